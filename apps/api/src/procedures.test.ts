// Every procedure of the router, found by walking it (so a new one cannot be missed), is sent malformed input
// over real HTTP by a signed-in admin (who holds every permission, so the input is what gets judged): each answer
// is a 4xx naming the offending field, never a 5xx.
import { beforeAll, describe, expect, it } from "vitest";
import type { AnyProcedure } from "@trpc/server";
import type { z } from "zod";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { appRouter } from "./root.ts";
import { signUpMember } from "./auth/testing.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let signedIn: Record<string, string>;

beforeAll(async () => {
  signedIn = (await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" })).headers;
});

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, AnyProcedure>).map(([path, proc]) => ({
  path,
  type: proc._def.type as "query" | "mutation" | "subscription",
  schema: (proc._def as unknown as { inputs: z.ZodType[] }).inputs[0],
}));

interface Reply {
  status: number;
  message: string;
  issues: { path: string; message: string }[] | null;
}

async function send(path: string, type: string, json: unknown): Promise<Reply> {
  const headers: Record<string, string> = { ...signedIn };
  const payload = JSON.stringify({ json });
  const url = `${api.url}/trpc/${path}`;
  const res =
    type === "mutation"
      ? await fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: payload })
      : await fetch(`${url}?input=${encodeURIComponent(payload)}`, {
          headers: type === "subscription" ? { ...headers, accept: "text/event-stream" } : headers,
        });
  const text = await res.text();
  if (type === "subscription" && res.headers.get("content-type")?.includes("text/event-stream")) {
    // An SSE stream reports a bad input as a `serialized-error` event on a 200 response.
    const lines = text.split("\n");
    const at = lines.indexOf("event: serialized-error");
    const line = at >= 0 ? lines[at + 1] : undefined;
    const body = JSON.parse(line?.slice("data: ".length) ?? "{}") as { json?: { message: string; data: { httpStatus: number; issues: Reply["issues"] } } };
    const err = body.json;
    return { status: err?.data.httpStatus ?? res.status, message: err?.message ?? text, issues: err?.data.issues ?? null };
  }
  const body = JSON.parse(text) as { error?: { json?: { message: string; data: { issues: Reply["issues"] } } } };
  return { status: res.status, message: body.error?.json?.message ?? "", issues: body.error?.json?.data.issues ?? null };
}

/** An input the schema rejects at a named field: `{}` when fields are required, else one field of the wrong type. */
function malformedAtField(schema: z.ZodType): { input: unknown; path: string } | undefined {
  const empty = schema.safeParse({});
  if (!empty.success) {
    const issue = empty.error.issues.find((i) => i.path.length > 0);
    if (issue) return { input: {}, path: issue.path.map(String).join(".") };
  }
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};
  for (const key of Object.keys(shape)) {
    for (const wrong of [12345, "not-valid", [[["nested"]]], { unexpected: true }, -1]) {
      const r = schema.safeParse({ [key]: wrong });
      const issue = r.success ? undefined : r.error.issues.find((i) => i.path[0] === key);
      if (issue) return { input: { [key]: wrong }, path: issue.path.map(String).join(".") };
    }
  }
  return undefined;
}

describe("malformed requests", () => {
  it("a body that is not JSON, or JSON without the superjson envelope, is a 4xx", async () => {
    const notJson = await fetch(`${api.url}/trpc/goal.create`, { method: "POST", headers: { "content-type": "application/json" }, body: "{title:" });
    expect(notJson.status).toBeGreaterThanOrEqual(400);
    expect(notJson.status).toBeLessThan(500);
    const bare = await send("goal.create", "mutation", undefined);
    expect(bare.status).toBe(400);
  });

  it("an unknown procedure is a 404", async () => {
    const res = await fetch(`${api.url}/trpc/goal.frobnicate`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(404);
  });
});

describe("every procedure, given malformed input", () => {
  it("covers the whole router, including the runtime's procedures", () => {
    expect(procedures.length).toBeGreaterThan(30);
    const paths = procedures.map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(["todo.claimNext", "todo.claim", "todo.replan", "turn.route", "turn.result", "gate.open", "run.finish"]));
    expect(paths).not.toContain("turn.recordResult");
  });

  for (const p of procedures) {
    it(`${p.path} (${p.type}): a 4xx naming the field, never a 5xx`, async () => {
      // Not an object at all.
      for (const garbage of ["just a string", 42, [1, 2, 3]]) {
        const r = await send(p.path, p.type, garbage);
        expect(r.status, `${p.path} with ${JSON.stringify(garbage)}: ${r.message}`).toBeGreaterThanOrEqual(400);
        expect(r.status, `${p.path} with ${JSON.stringify(garbage)}: ${r.message}`).toBeLessThan(500);
      }
      if (!p.schema) return;
      const bad = malformedAtField(p.schema);
      if (!bad) return; // every field accepts anything: nothing to name
      const r = await send(p.path, p.type, bad.input);
      expect(r.status, r.message).toBe(400);
      expect(r.message).toContain(bad.path);
      expect(r.issues?.map((i) => i.path)).toContain(bad.path);
    });
  }
});
