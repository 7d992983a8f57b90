// The API's log: one JSON line per failed request, with its request id (the x-request-id it answered) and run id,
// and never an input value, a token or a cookie.
import { Writable } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import superjson from "superjson";
import { issueAgentToken } from "@phoneloop/state";
import { rid, seedGoal, useTestDatabase } from "@phoneloop/state/testing";
import { signUpMember, type SignedUpMember } from "./auth/testing.ts";
import { useApiServer } from "./use-api-server.ts";
import { createApiLogger, errorFields } from "./logger.ts";

const SECRET = "sk-live-7f3a9c1e5b2d4f6a8c0e1f2a3b4c5d6e";

const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString().split("\n").filter((l) => l.trim()));
    done();
  },
});
const t = useTestDatabase();
const api = useApiServer(t, { logger: createApiLogger({ destination: sink }) });
let admin: SignedUpMember;
let agentToken: string;

beforeAll(async () => {
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  agentToken = (await issueAgentToken(t.db, { workspaceId: admin.workspaceId, name: "Worker", issuedBy: admin.userId })).token;
});

type Line = { level: number; msg: string; reqId?: string; runId?: string; procedure?: string; status?: number; code?: string; fields?: string[] };
const parsed = (): Line[] => lines.map((l) => JSON.parse(l) as Line);

/** A tRPC batch POST; returns the response's request id and status. */
async function batch(paths: string[], inputs: unknown[], headers: Record<string, string>): Promise<{ reqId: string | null; status: number }> {
  const body = Object.fromEntries(inputs.map((input, n) => [n, superjson.serialize(input)]));
  const res = await fetch(`${api.url}/trpc/${paths.join(",")}?batch=1`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  await res.text();
  return { reqId: res.headers.get("x-request-id"), status: res.status };
}

describe("structured logs", () => {
  it("a failing request with a secret in its input logs one line per failure, naming the field, never the secret", async () => {
    const goal = await seedGoal(t.db, { workspaceId: admin.workspaceId });
    lines.length = 0;
    const runId = rid("run");
    const r = await batch(
      ["goal.create", "evidence.append", "run.finish"],
      [
        { title: `pay with ${SECRET}\u0000`, objective: SECRET },
        { goalId: goal.id, kind: "observation", summary: SECRET, data: { apiKey: SECRET, blob: "x".repeat(300 * 1024) }, idempotencyKey: SECRET },
        { runId, status: "completed", endReason: "done", summary: SECRET },
      ],
      { cookie: admin.headers.cookie! },
    );
    expect(r.reqId).toMatch(/^[0-9a-f-]{36}$/);
    const out = parsed();
    expect(out).toHaveLength(3);
    expect(out.map((l) => l.reqId)).toEqual([r.reqId, r.reqId, r.reqId]);
    expect(out.map((l) => l.procedure)).toEqual(["goal.create", "evidence.append", "run.finish"]);
    expect(out[0]).toMatchObject({ status: 400, code: "BAD_REQUEST", fields: ["title"] });
    expect(out[1]).toMatchObject({ status: 400, fields: ["data"] });
    expect(out[2]).toMatchObject({ runId });
    expect(out[2]!.status).toBeGreaterThanOrEqual(400);
    expect(lines.join("\n")).not.toContain(SECRET);
    expect(lines.join("\n")).not.toContain("pay with");
  });

  it("a refused credential is logged without the token or the cookie", async () => {
    lines.length = 0;
    const wrong = `${agentToken.slice(0, -4)}abcd`;
    const r = await batch(["goal.create"], [{ title: "A goal", objective: "Something" }], { authorization: `Bearer ${wrong}`, cookie: `better-auth.session_token=${SECRET}` });
    expect(r.status).toBe(401);
    expect(parsed()).toMatchObject([{ reqId: r.reqId, procedure: "goal.create", status: 401 }]);
    const all = lines.join("\n");
    for (const s of [wrong, SECRET, agentToken]) expect(all).not.toContain(s);
  });

  it("an unexpected error's line has its type, code and frames but not its message", () => {
    const e = Object.assign(new Error(`Invalid prisma.goal.create() invocation: { data: { title: "${SECRET}" } }`), { name: "PrismaClientKnownRequestError", code: "P2000" });
    const fields = errorFields(e);
    expect(fields).toMatchObject({ type: "PrismaClientKnownRequestError", code: "P2000", frames: expect.any(Array) });
    expect(JSON.stringify(fields)).not.toContain(SECRET);
  });
});
