// State errors reach HTTP callers with the matching status and the state's own, actionable message.
import { beforeAll, describe, expect, it } from "vitest";
import { TRPCClientError } from "@trpc/client";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { StateError, StateErrorCode } from "@phoneloop/state";
import { z } from "zod";
import { claimTodo, issueAgentToken, registerAgent } from "@phoneloop/state";
import { rid, seedGate, seedGoal as seedAnyGoal, seedTodos, useTestDatabase, type TestDatabase } from "@phoneloop/state/testing";
import { signUpMember, type SignedUpMember } from "./auth/testing.ts";
import { useApiServer } from "./use-api-server.ts";
import { STATE_TO_TRPC_CODE } from "./errors.ts";
import { createApiClient } from "@phoneloop/client";
import { anyoneProcedure, createCallerFactory, createTRPCContext, createTRPCRouter } from "./trpc.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let admin: SignedUpMember;
let agentToken: string;
let agentId: string;

beforeAll(async () => {
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  agentToken = (await issueAgentToken(t.db, { workspaceId: admin.workspaceId, name: "Worker", issuedBy: admin.userId })).token;
  agentId = (await agentClient().agent.register.mutate({ id: rid("agent"), name: "Worker", kind: "headless", capabilities: ["android"] })).id;
});

const seedGoal = (db: TestDatabase["db"]) => seedAnyGoal(db, { workspaceId: admin.workspaceId });
/** The client as a signed-in person (their session cookie). */
const as = (m: SignedUpMember) => createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: m.headers.cookie! } });
const agentClient = () => createApiClient({ apiUrl: api.url, auth: { kind: "token", token: agentToken } });
const member = (role: SignedUpMember["role"]) => signUpMember({ db: t.db, auth: api.auth }, { role, workspaceId: admin.workspaceId });

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
  // At a path whose permissions-table row is "anyone" (share.open), so the anonymous caller reaches the handler.
  const router = createTRPCRouter({
    share: createTRPCRouter({
      open: anyoneProcedure(z.enum(StateErrorCode)).query(({ input }) => {
        throw new StateError(input, `refused with ${input}`, { why: "test" });
      }),
    }),
  });
  const caller = createCallerFactory(router)(createTRPCContext({ services: { db: undefined as never, events: undefined as never }, principal: { kind: "anonymous" } }));
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
      const error = await caller.share.open(code).then(
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
    const f = await failure(as(admin).goal.pause.mutate({ goalId: "goal_missing" }));
    expect(f).toMatchObject({ status: 404, code: "NOT_FOUND", data: { stateCode: "NOT_FOUND" } });
    expect(f.message).toContain("goal_missing");
  });

  it("CONFLICT: creating a goal whose id is taken", async () => {
    const goal = await seedGoal(t.db);
    const f = await failure(as(admin).goal.create.mutate({ id: goal.id, title: "Again", objective: "x" }));
    expect(f).toMatchObject({ status: 409, code: "CONFLICT" });
    expect(f.message).toContain("pick another id");
  });

  it("ILLEGAL_TRANSITION: resuming an active goal is a precondition failure naming what may happen", async () => {
    const goal = await seedGoal(t.db);
    const f = await failure(as(admin).goal.resume.mutate({ goalId: goal.id }));
    expect(f).toMatchObject({ status: 412, code: "PRECONDITION_FAILED", data: { stateCode: "ILLEGAL_TRANSITION" } });
    expect(f.message).toMatch(/Cannot resume .* it is active/);
  });

  it("CONFLICT: a write with someone else's lease names the holder", async () => {
    const [todo] = await seedTodos(t.db, (await seedGoal(t.db)).id, 1);
    const holder = await registerAgent(t.db, { id: rid("agent"), name: "Holder", kind: "headless", workspaceId: admin.workspaceId });
    await claimTodo(t.db, { agentId: holder.id, todoId: todo!.id });
    const f = await failure(agentClient().todo.start.mutate({ todoId: todo!.id, agentId, leaseKey: "not-mine" }));
    expect(f).toMatchObject({ status: 409, code: "CONFLICT" });
    expect(f.message).toContain(holder.id);
  });

  it("QUOTA_EXCEEDED: spending past a policy is 429 with what remains", async () => {
    const goal = await seedGoal(t.db);
    const agent = { id: agentId };
    const client = agentClient();
    await as(admin).quota.setPolicy.mutate({ scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxSteps: 2 });
    await client.quota.spend.mutate({ key: "k1", goalId: goal.id, agentId: agent.id, steps: 2 });
    const f = await failure(client.quota.spend.mutate({ key: "k2", goalId: goal.id, agentId: agent.id, steps: 1 }));
    expect(f).toMatchObject({ status: 429, code: "TOO_MANY_REQUESTS", data: { stateCode: "QUOTA_EXCEEDED" } });
    expect(f.message).toContain("would exceed");
  });

  describe("gate resolve needs a member whose role may answer", () => {
    it("UNAUTHORIZED when nobody is signed in, saying how to sign in", async () => {
      const gate = await seedGate(t.db, (await seedGoal(t.db)).id);
      const f = await failure(createApiClient({ apiUrl: api.url }).gate.resolve.mutate({ gateId: gate.id, decision: "approve", rationale: "ok" }));
      expect(f).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
      expect(f.message).toContain("Sign in");
    });

    it("FORBIDDEN for an agent token, and for a member whose role may not answer, naming who may", async () => {
      const gate = await seedGate(t.db, (await seedGoal(t.db)).id);
      const byAgent = await failure(agentClient().gate.resolve.mutate({ gateId: gate.id, decision: "approve", rationale: "ok" }));
      expect(byAgent).toMatchObject({ status: 403, code: "FORBIDDEN" });
      const viewer = await member("viewer");
      const f = await failure(as(viewer).gate.resolve.mutate({ gateId: gate.id, decision: "approve", rationale: "ok" }));
      expect(f).toMatchObject({ status: 403, code: "FORBIDDEN" });
      expect(f.message).toContain("approver, admin");
      expect(f.message).toContain("viewer");
    });

    it("INVALID_INPUT from the operator (an answer outside the options) names the field", async () => {
      const gate = await seedGate(t.db, (await seedGoal(t.db)).id, { options: ["pay", "skip"] });
      const owner = await member("approver");
      const f = await failure(as(owner).gate.resolve.mutate({ gateId: gate.id, decision: "answer", answer: "maybe", rationale: "hm" }));
      expect(f).toMatchObject({ status: 400, code: "BAD_REQUEST", data: { stateCode: "INVALID_INPUT" } });
      expect(f.message).toContain("answer");
      expect((f.data.issues as { path: string }[]).map((i) => i.path)).toContain("answer");
    });

    it("resolves as the calling member, and a second resolution is a CONFLICT naming who decided", async () => {
      const gate = await seedGate(t.db, (await seedGoal(t.db)).id);
      const owner = await member("approver");
      const resolved = await as(owner).gate.resolve.mutate({ gateId: gate.id, decision: "answer", answer: "pay", rationale: "worth it" });
      expect(resolved).toMatchObject({ status: "answered", answer: "pay", resolvedBy: owner.userId });
      const f = await failure(as(admin).gate.resolve.mutate({ gateId: gate.id, decision: "deny", rationale: "changed my mind" }));
      expect(f).toMatchObject({ status: 409, code: "CONFLICT" });
      expect(f.message).toContain(owner.userId);
    });
  });

  it("unknown paths say what the API serves", async () => {
    const res = await fetch(`${api.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("/health");
  });

  it("CORS: the web origin may call with its credentials; others get no allow-origin", async () => {
    const pre = await fetch(`${api.url}/trpc/board.goals`, {
      method: "OPTIONS",
      headers: { origin: "http://127.0.0.1:3000", "access-control-request-headers": "authorization" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:3000");
    expect(pre.headers.get("access-control-allow-headers")).toContain("authorization");
    const other = await fetch(`${api.url}/health`, { headers: { origin: "http://evil.example" } });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});
