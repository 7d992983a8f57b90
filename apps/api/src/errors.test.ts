// State errors reach HTTP callers with the matching status and the state's own, actionable message.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCClientError } from "@trpc/client";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { StateError, StateErrorCode } from "@phoneloop/state";
import { createTestDatabase, seedAgent, seedClaimed, seedGate, seedGoal, seedMember, type TestDatabase } from "@phoneloop/state/testing";
import { createApiServer, type ApiServer } from "./api-server.ts";
import { STATE_TO_TRPC_CODE } from "./errors.ts";
import { createApiClient } from "@phoneloop/client";
import { createCallerFactory, createTRPCRouter, publicProcedure } from "./trpc.ts";

let t: TestDatabase;
let api: ApiServer;

beforeAll(async () => {
  t = await createTestDatabase();
  api = await createApiServer({ db: t.db, databaseUrl: t.url, port: 0, host: "127.0.0.1", onLog: (l) => console.error(l) });
});
afterAll(async () => {
  await api?.close();
  await t?.drop();
});

async function failure(p: Promise<unknown>): Promise<{ status: number; code: string; message: string; data: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof TRPCClientError)) throw e;
    const data = e.data as { httpStatus: number; code: string };
    return { status: data.httpStatus, code: data.code, message: e.message, data: e.data as Record<string, unknown> };
  }
  throw new Error("expected the call to fail");
}

describe("state error codes", () => {
  const router = createTRPCRouter({
    fail: publicProcedure.input((v) => v as StateErrorCode).query(({ input }) => {
      throw new StateError(input, `refused with ${input}`, { why: "test" });
    }),
  });
  const caller = createCallerFactory(router)({ db: t?.db, events: undefined as never, memberId: null, agentId: null } as never);
  const expected: Record<StateErrorCode, number> = {
    NOT_FOUND: 404,
    CONFLICT: 409,
    ILLEGAL_TRANSITION: 412,
    FORBIDDEN: 403,
    INVALID_INPUT: 400,
    QUOTA_EXCEEDED: 429,
    PRECONDITION_FAILED: 412,
  };
  for (const code of Object.values(StateErrorCode)) {
    it(`${code} → ${STATE_TO_TRPC_CODE[code]} (${expected[code]}), message kept`, async () => {
      const error = await caller.fail(code).then(
        () => undefined,
        (e: unknown) => e as Parameters<typeof getHTTPStatusCodeFromError>[0] & { message: string; cause: unknown },
      );
      expect(error?.code).toBe(STATE_TO_TRPC_CODE[code]);
      expect(getHTTPStatusCodeFromError(error!)).toBe(expected[code]);
      expect(error?.message).toBe(`refused with ${code}`);
      expect(error?.cause).toBeInstanceOf(StateError);
    });
  }
});

describe("operators over HTTP", () => {
  it("NOT_FOUND: a goal that does not exist", async () => {
    const f = await failure(createApiClient({ apiUrl: api.url }).goal.pause.mutate({ goalId: "goal_missing" }));
    expect(f).toMatchObject({ status: 404, code: "NOT_FOUND", data: { stateCode: "NOT_FOUND" } });
    expect(f.message).toContain("goal_missing");
  });

  it("CONFLICT: creating a goal whose id is taken", async () => {
    const goal = await seedGoal(t.db);
    const f = await failure(createApiClient({ apiUrl: api.url }).goal.create.mutate({ id: goal.id, title: "Again", objective: "x", createdBy: "m" }));
    expect(f).toMatchObject({ status: 409, code: "CONFLICT" });
    expect(f.message).toContain("pick another id");
  });

  it("ILLEGAL_TRANSITION: resuming an active goal is a precondition failure naming what may happen", async () => {
    const goal = await seedGoal(t.db);
    const f = await failure(createApiClient({ apiUrl: api.url }).goal.resume.mutate({ goalId: goal.id }));
    expect(f).toMatchObject({ status: 412, code: "PRECONDITION_FAILED", data: { stateCode: "ILLEGAL_TRANSITION" } });
    expect(f.message).toMatch(/Cannot resume .* it is active/);
  });

  it("CONFLICT: a write with someone else's lease names the holder", async () => {
    const { todo, agent } = await seedClaimed(t.db);
    const other = await seedAgent(t.db);
    const f = await failure(createApiClient({ apiUrl: api.url, credentials: { agentId: other.id } }).todo.start.mutate({ todoId: todo.id, agentId: other.id, leaseKey: "not-mine" }));
    expect(f).toMatchObject({ status: 409, code: "CONFLICT" });
    expect(f.message).toContain(agent.id);
  });

  it("QUOTA_EXCEEDED: spending past a policy is 429 with what remains", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgent(t.db);
    const client = createApiClient({ apiUrl: api.url, credentials: { agentId: agent.id } });
    await client.quota.setPolicy.mutate({ scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxSteps: 2 });
    await client.quota.spend.mutate({ key: "k1", goalId: goal.id, agentId: agent.id, steps: 2 });
    const f = await failure(client.quota.spend.mutate({ key: "k2", goalId: goal.id, agentId: agent.id, steps: 1 }));
    expect(f).toMatchObject({ status: 429, code: "TOO_MANY_REQUESTS", data: { stateCode: "QUOTA_EXCEEDED" } });
    expect(f.message).toContain("would exceed");
  });

  describe("gate resolve needs a member", () => {
    it("UNAUTHORIZED without x-phoneloop-member, saying how to send it", async () => {
      const gate = await seedGate(t.db, (await seedGoal(t.db)).id);
      const f = await failure(createApiClient({ apiUrl: api.url }).gate.resolve.mutate({ gateId: gate.id, decision: "approve", rationale: "ok" }));
      expect(f).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
      expect(f.message).toContain("x-phoneloop-member");
    });

    it("FORBIDDEN for an unknown member id", async () => {
      const gate = await seedGate(t.db, (await seedGoal(t.db)).id);
      const f = await failure(createApiClient({ apiUrl: api.url, credentials: { memberId: "m_nobody" } }).gate.resolve.mutate({ gateId: gate.id, decision: "approve", rationale: "ok" }));
      expect(f).toMatchObject({ status: 403, code: "FORBIDDEN" });
      expect(f.message).toContain("m_nobody");
    });

    it("FORBIDDEN for a member whose role may not answer", async () => {
      const gate = await seedGate(t.db, (await seedGoal(t.db)).id, { answerRoles: ["owner"] });
      const viewer = await seedMember(t.db, "viewer", "Vera Viewer");
      const f = await failure(createApiClient({ apiUrl: api.url, credentials: { memberId: viewer.id } }).gate.resolve.mutate({ gateId: gate.id, decision: "approve", rationale: "ok" }));
      expect(f).toMatchObject({ status: 403, code: "FORBIDDEN", data: { stateCode: "FORBIDDEN" } });
      expect(f.message).toContain("owner");
    });

    it("INVALID_INPUT from the operator (an answer outside the options) names the field", async () => {
      const gate = await seedGate(t.db, (await seedGoal(t.db)).id, { options: ["pay", "skip"] });
      const owner = await seedMember(t.db, "owner");
      const f = await failure(createApiClient({ apiUrl: api.url, credentials: { memberId: owner.id } }).gate.resolve.mutate({ gateId: gate.id, decision: "answer", answer: "maybe", rationale: "hm" }));
      expect(f).toMatchObject({ status: 400, code: "BAD_REQUEST", data: { stateCode: "INVALID_INPUT" } });
      expect(f.message).toContain("answer");
      expect((f.data.issues as { path: string }[]).map((i) => i.path)).toContain("answer");
    });

    it("resolves as the calling member, and a second resolution is a CONFLICT naming who decided", async () => {
      const gate = await seedGate(t.db, (await seedGoal(t.db)).id);
      const owner = await seedMember(t.db, "owner", "Olive Owner");
      const resolved = await createApiClient({ apiUrl: api.url, credentials: { memberId: owner.id } }).gate.resolve.mutate({ gateId: gate.id, decision: "answer", answer: "pay", rationale: "worth it" });
      expect(resolved).toMatchObject({ status: "answered", answer: "pay", resolvedBy: owner.id });
      const f = await failure(createApiClient({ apiUrl: api.url, credentials: { memberId: owner.id } }).gate.resolve.mutate({ gateId: gate.id, decision: "deny", rationale: "changed my mind" }));
      expect(f).toMatchObject({ status: 409, code: "CONFLICT" });
      expect(f.message).toContain(owner.id);
    });
  });

  it("unknown paths say what the API serves", async () => {
    const res = await fetch(`${api.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("/health");
  });

  it("CORS: the web origin may call with identity headers; others get no allow-origin", async () => {
    const pre = await fetch(`${api.url}/trpc/board.goals`, {
      method: "OPTIONS",
      headers: { origin: "http://127.0.0.1:3000", "access-control-request-headers": "x-phoneloop-member" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:3000");
    expect(pre.headers.get("access-control-allow-headers")).toContain("x-phoneloop-member");
    const other = await fetch(`${api.url}/health`, { headers: { origin: "http://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});
