// Bad input is a 4xx naming the field, never a 5xx: every procedure of the router (listed from the router itself)
// gets an otherwise valid input with one bad value in one place, over HTTP, as the admin of a seeded workspace;
// batches past their budgets and bad images (cut, damaged, declaring huge sizes) get the same answer.
import { crc32, deflateSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import sharp from "sharp";
import superjson from "superjson";
import type { z } from "zod";
import { addTodos, createGoal, registerAgent, startRun } from "@phoneloop/state";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { agentTokenHeaders, signUpMember } from "./auth/testing.ts";
import { appRouter } from "./root.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let cookie: string;
/** Real ids for fields of these names, so an input gets past the schema to the database. */
const known: Record<string, string> = {};

beforeAll(async () => {
  const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  cookie = admin.headers.cookie!;
  const goal = await createGoal(t.db, { title: "Fuzzed", objective: "Take bad input", workspaceId: admin.workspaceId });
  const [todo] = await addTodos(t.db, { goalId: goal.id, todos: [{ title: "A todo" }] });
  const agent = await registerAgent(t.db, { id: "agent_fuzz", name: "Fuzz", kind: "headless", workspaceId: admin.workspaceId });
  const run = await startRun(t.db, { goalId: goal.id, todoId: todo!.id, agentId: agent.id });
  Object.assign(known, { goalId: goal.id, todoId: todo!.id, agentId: agent.id, runId: run.id, workspaceId: admin.workspaceId, userId: admin.userId });
});

type Call = { path: string; type: "query" | "mutation"; input: unknown };

async function call(c: Call): Promise<number> {
  const body = superjson.serialize(c.input);
  const url = `${api.url}/trpc/${c.path}`;
  const res =
    c.type === "query"
      ? await fetch(`${url}?input=${encodeURIComponent(JSON.stringify(body))}`, { headers: { cookie } })
      : await fetch(url, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
}

// The bad values, by the kind of place they go.
const BAD_STRINGS = ["nul \u0000 inside", "lone \uD800 high", "lone \uDC00 low"];
const BAD_NUMBERS = [2 ** 31, 2 ** 53 + 2, -1, 1e308];
const BAD_JSON: unknown[] = [
  { text: "nul \u0000" },
  { ["key \u0000"]: 1 },
  { big: 12345678901234567890n },
  { when: new Date(8.64e15) },
  { nested: [1, { deeper: "\uD83D" }] },
  { huge: "x".repeat(3 * 1024 * 1024) },
];
const BAD_ANYWHERE: unknown[] = [9007199254740993n, new Map([["a", 1]])];

describe("bad input is a 4xx, never a 5xx", () => {
  const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string; inputs: z.ZodType[] } }>)
    .filter(([, p]) => p._def.type !== "subscription")
    .map(([path, p]) => ({ path, type: p._def.type as "query" | "mutation", schema: p._def.inputs[0] }));

  it("lists every query and mutation of the router", () => {
    expect(procedures.length).toBeGreaterThan(40);
  });

  it("every procedure, every bad value in every field: 4xx", async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const p of procedures) {
      if (!p.schema) continue;
      const valid = sample(p.schema, "");
      const cases: unknown[] = [];
      for (const leaf of leaves(p.schema, valid, [])) {
        const bad = leaf.kind === "string" ? BAD_STRINGS : leaf.kind === "number" ? BAD_NUMBERS : BAD_JSON;
        for (const value of [...bad, ...BAD_ANYWHERE]) cases.push(replaceAt(valid, leaf.path, value));
      }
      for (const value of BAD_ANYWHERE) cases.push(value);
      for (const input of cases) {
        const status = await call({ path: p.path, type: p.type, input });
        sent++;
        if (status >= 500) failures.push(`${p.path} answered ${status} to ${shown(input)}`);
      }
    }
    expect(sent).toBeGreaterThan(500);
    expect(failures).toEqual([]);
    // Thousands of requests one after another: room for a loaded machine (CI's two cores run every suite at once).
  }, 180_000);

  it("names the field: a NUL in a todo's title", async () => {
    const res = await fetch(`${api.url}/trpc/todo.add`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify(superjson.serialize({ goalId: known.goalId, todos: [{ title: "bad \u0000 title" }] })),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { json: { message: string } } };
    expect(body.error.json.message).toContain("todos.0.title");
  });

  it("ids beyond int8 in lastEventId and a history cursor are a 400", async () => {
    expect(await call({ path: "board.history", type: "query", input: { goalId: known.goalId, cursor: "99999999999999999999" } })).toBe(400);
    expect(await call({ path: "board.history", type: "query", input: { goalId: known.goalId, cursor: "9223372036854775808" } })).toBe(400);
    const res = await fetch(`${api.url}/trpc/event.stream?input=${encodeURIComponent(JSON.stringify(superjson.serialize({ lastEventId: "99999999999999999999" })))}`, {
      headers: { cookie },
    });
    const text = await res.text();
    expect(text).toContain("BAD_REQUEST");
  });

  it("a 30-day quota window is stored", async () => {
    expect(await call({ path: "quota.setPolicy", type: "mutation", input: { scope: "goal", goalId: known.goalId, windowMs: 30 * 24 * 3600 * 1000, maxSteps: 10 } })).toBe(200);
  });

  it("one bad item in a batch fails alone: its valid sibling answers 200", async () => {
    const good = superjson.serialize({ goalId: known.goalId });
    const bad = superjson.serialize({ goalId: "nul \u0000 id" });
    // An item superjson cannot decode (a BigInt whose text is not a number) fails alone too.
    const undecodable = { json: { goalId: "x" }, meta: { values: { goalId: ["bigint"] } } };
    const res = await fetch(`${api.url}/trpc/goal.get,goal.get,goal.get?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: good, 1: bad, 2: undecodable }))}`, {
      headers: { cookie },
    });
    const items = (await res.json()) as { result?: unknown; error?: { json: { data: { httpStatus: number } } } }[];
    expect(items[0]!.result).toBeDefined();
    expect(items[1]!.error?.json.data.httpStatus).toBe(400);
    expect(items[2]!.error?.json.data.httpStatus).toBe(400);
  });
});

describe("bad batches and bad images are a 4xx, never a 5xx", () => {
  /** Every call of a batch over HTTP: the response's status and each item's. */
  async function batch(paths: string[], inputs: unknown[], method: "GET" | "POST"): Promise<number[]> {
    const body = JSON.stringify(Object.fromEntries(inputs.map((input, i) => [i, superjson.serialize(input)])));
    const url = `${api.url}/trpc/${paths.join(",")}?batch=1`;
    const res =
      method === "GET"
        ? await fetch(`${url}&input=${encodeURIComponent(body)}`, { headers: { cookie } })
        : await fetch(url, { method: "POST", headers: { cookie, "content-type": "application/json" }, body });
    const text = await res.text();
    const items = text.startsWith("[") ? (JSON.parse(text) as { error?: { json: { data: { httpStatus: number } } } }[]) : [];
    return [res.status, ...items.map((i) => i.error?.json.data.httpStatus ?? 200)];
  }

  it("batches: too many calls, too many items, mixed good and bad items", async () => {
    const heartbeat = { agentId: known.agentId };
    const todos = (n: number, caps = 0) => ({ goalId: known.goalId, todos: Array.from({ length: n }, (_, k) => ({ title: `t${k}`, requiredCapabilities: Array.from({ length: caps }, (_, c) => `c${c}`) })) });
    const cases: [string[], unknown[], "GET" | "POST"][] = [
      [Array(1000).fill("agent.heartbeat"), Array(1000).fill(heartbeat), "POST"],
      [Array(51).fill("agent.heartbeat"), Array(51).fill(heartbeat), "POST"],
      [Array(51).fill("goal.get"), Array(51).fill({ goalId: known.goalId }), "GET"],
      [["todo.add"], [todos(1000, 3)], "POST"],
      [["todo.add", "todo.add", "agent.heartbeat"], [todos(1000), todos(1000), heartbeat], "POST"],
      [["agent.heartbeat", "agent.heartbeat", "todo.add"], [heartbeat, { agentId: "nul \u0000" }, { goalId: known.goalId, todos: [] }], "POST"],
      [["goal.create"], [{ title: "Many bounds", objective: "x", bounds: Array(5000).fill("b") }], "POST"],
      [Array(50).fill("no.such"), Array(50).fill({}), "POST"],
    ];
    const failures: string[] = [];
    for (const [paths, inputs, method] of cases) {
      const statuses = await batch(paths, inputs, method);
      if (statuses.some((s) => s >= 500)) failures.push(`${paths.length}× ${paths[0]} (${method}) answered ${[...new Set(statuses)].join(", ")}`);
    }
    expect(failures).toEqual([]);
  });

  it("images: every bad upload to POST /blobs, in every mode", async () => {
    const { token } = await agentTokenHeaders(t.db, { workspaceId: known.workspaceId!, issuedBy: known.userId! });
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#08f" } }).png().toBuffer();
    const jpeg = await sharp(png).jpeg().toBuffer();
    const webp = await sharp(png).webp().toBuffer();
    const chunk = (type: string, data: Buffer) => {
      const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(data.length);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(body));
      return Buffer.concat([length, body, crc]);
    };
    /** A PNG whose header declares width × height, with a few bytes of pixels. */
    const declaring = (width: number, height: number) => {
      const ihdr = Buffer.alloc(13);
      ihdr.writeUInt32BE(width, 0);
      ihdr.writeUInt32BE(height, 4);
      ihdr.set([8, 2, 0, 0, 0], 8);
      return Buffer.concat([png.subarray(0, 8), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(Buffer.alloc(64))), chunk("IEND", Buffer.alloc(0))]);
    };
    const badCrc = Buffer.from(png);
    badCrc.writeUInt8(badCrc.readUInt8(badCrc.length - 20) ^ 0xff, badCrc.length - 20);
    const bodies: [string, Buffer][] = [
      ["random", Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))],
      ["png cut", png.subarray(0, Math.floor(png.length / 2))],
      ["jpeg cut", jpeg.subarray(0, Math.floor(jpeg.length / 2))],
      ["webp cut", webp.subarray(0, Math.floor(webp.length / 2))],
      ["png header only", png.subarray(0, 33)],
      ["png bad crc", badCrc],
      ["png 100000×100000", declaring(100_000, 100_000)],
      ["png 6000×6600", declaring(6000, 6600)],
      ["png 0×0", declaring(0, 0)],
      ["png 1×1 with no pixels", declaring(1, 1)],
      ["empty", Buffer.alloc(0)],
      ["png", png],
      ["jpeg", jpeg],
      ["webp", webp],
    ];
    const failures: string[] = [];
    for (const [name, body] of bodies) {
      for (const mime of ["image/png", "image/jpeg", "image/webp", "image/gif", "text/plain"]) {
        for (const query of ["", "?exact=1", "?exact=0"]) {
          const res = await fetch(`${api.url}/blobs${query}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": mime }, body: new Uint8Array(body) });
          await res.arrayBuffer();
          if (res.status >= 500) failures.push(`${name} as ${mime}${query} answered ${res.status}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

// --- A valid input from a zod schema (enough of zod 4's internals for the router's inputs). ---

type Def = { type: string; [k: string]: unknown };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def; bag: Record<string, unknown> } })._zod;

function sample(schema: z.ZodType, name: string): unknown {
  const { def, bag } = defOf(schema);
  switch (def.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(def.shape as Record<string, z.ZodType>)) {
        const inner = defOf(v).def.type;
        if ((inner === "optional" || inner === "default") && !(k in known)) continue;
        out[k] = sample(v, k);
      }
      return out;
    }
    case "string": {
      if (name in known) return known[name];
      const patterns = [...((bag.patterns as Set<RegExp> | undefined) ?? [])].map(String).join(" ");
      if (patterns.includes("0-9a-f]{64}")) return "a".repeat(64);
      if (patterns.includes("\\d")) return "1";
      return "a sample text value".padEnd(Number(bag.minimum ?? 0), "x");
    }
    case "number":
      return Math.max(1, Number(bag.minimum ?? 1));
    case "boolean":
      return true;
    case "enum":
      return Object.values(def.entries as Record<string, unknown>)[0];
    case "literal":
      return (def.values as unknown[])[0];
    case "array":
      return [sample(def.element as z.ZodType, name)].slice(0, Math.max(1, Number(bag.minimum ?? 1)));
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
      return sample(def.innerType as z.ZodType, name);
    case "pipe":
      return sample(def.in as z.ZodType, name);
    case "union":
      return sample((def.options as z.ZodType[])[0]!, name);
    case "intersection":
      return { ...(sample(def.left as z.ZodType, name) as object), ...(sample(def.right as z.ZodType, name) as object) };
    case "record":
    case "unknown":
    case "any":
      return {};
    case "date":
      return new Date();
    default:
      return undefined;
  }
}

type Leaf = { path: (string | number)[]; kind: "string" | "number" | "json" };

function leaves(schema: z.ZodType, value: unknown, path: (string | number)[]): Leaf[] {
  const { def } = defOf(schema);
  switch (def.type) {
    case "object": {
      const out: Leaf[] = [];
      for (const [k, v] of Object.entries(def.shape as Record<string, z.ZodType>)) {
        const inner = (value as Record<string, unknown> | undefined)?.[k];
        out.push(...leaves(v, inner === undefined ? sample(unwrap(v), k) : inner, [...path, k]));
      }
      return out;
    }
    case "string":
      return [{ path, kind: "string" }];
    case "number":
      return [{ path, kind: "number" }];
    case "array":
      return leaves(def.element as z.ZodType, (value as unknown[] | undefined)?.[0], [...path, 0]);
    case "record":
    case "unknown":
    case "any":
      return [{ path, kind: "json" }];
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
      return leaves(def.innerType as z.ZodType, value, path);
    case "pipe":
      return leaves(def.in as z.ZodType, value, path);
    case "union":
      return leaves((def.options as z.ZodType[])[0]!, value, path);
    default:
      return [];
  }
}

function unwrap(s: z.ZodType): z.ZodType {
  const { def } = defOf(s);
  return def.innerType ? unwrap(def.innerType as z.ZodType) : s;
}

function replaceAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const base = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  if (Array.isArray(base) && base.length === 0) base.push(undefined);
  base[head!] = replaceAt(base[head!], rest, replacement);
  return base;
}

function shown(input: unknown): string {
  return superjson.stringify(input).slice(0, 160);
}
