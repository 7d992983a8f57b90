// Bad input is a 4xx naming the field, never a 5xx: every procedure of the router (listed from the router itself)
// gets an otherwise valid input with one bad value in one place, over HTTP, as the admin of a seeded workspace.
import { beforeAll, describe, expect, it } from "vitest";
import superjson from "superjson";
import type { z } from "zod";
import { addTodos, createGoal, registerAgent, startRun } from "@phoneloop/state";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { signUpMember } from "./auth/testing.ts";
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
  });

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
