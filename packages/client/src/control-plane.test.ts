// The client's ControlPlane against the real API and Postgres (a throwaway database cloned from the migrated
// template): the whole port contract, then what only this implementation does (errors, the unreachable API).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneConflict } from "@phoneloop/agent/ports";
import { describeControlPlaneContract } from "@phoneloop/agent/testing/contract";
import { agentTokenHeaders, type SignedUpMember, signUpMember, useApiServer } from "@phoneloop/api/testing";
import { useTestDatabase } from "@phoneloop/state/testing";
import { createApiClient } from "./api-client.ts";
import { createControlPlane } from "./control-plane.ts";
import { API_UNREACHABLE, ControlPlaneError } from "./errors.ts";
import { subscribeEvents, type StreamedEvent } from "./events.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let admin: SignedUpMember;
/** A client signed in as the workspace's admin (a Node caller passes the session cookie it got). */
const asAdmin = () => createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: admin.headers.cookie! } });
/** A client with a new agent token of the workspace, as a worker has. */
const asAgent = async () => createApiClient({ apiUrl: api.url, auth: { kind: "token", token: (await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId })).token } });

beforeAll(async () => {
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin", name: "Olive" });
});

describeControlPlaneContract("packages/client over the API and Postgres", async () => {
  const member = asAdmin();
  return {
    // The contract registers many agents through one port: a member (operator or admin) may; an agent token acts
    // only as the one agent it registered.
    controlPlane: createControlPlane(member, { apiUrl: api.url, gatePollMaxMs: 200 }),
    resolveGate: async (gateId, d) => {
      await member.gate.resolve.mutate({ gateId, ...d });
    },
    expireGate: async (gateId) => {
      await member.gate.expire.mutate({ gateId });
    },
    // The core reads the database's clock: let real time pass (a lease or gate ttl of 1 ms is then over).
    elapse: (ms) => new Promise((r) => setTimeout(r, ms)),
    savePolicyRules: async (rules) => void (await member.policy.save.mutate({ rules })),
  };
});

describe("packages/client errors", () => {
  it("a state error keeps the API's code and message; a lost lease is ControlPlaneConflict", async () => {
    const cp = createControlPlane(await asAgent(), { apiUrl: api.url });
    const e = await cp.reopenTodo({ todoId: "todo_missing", reason: "x" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ControlPlaneError);
    expect(e).toMatchObject({ code: "NOT_FOUND" });
    expect((e as Error).message).toMatch(/^todo\.reopen: .*todo_missing/);

    const { agentId } = await cp.registerAgent({ name: "w", kind: "headless", capabilities: ["phone"] });
    const goal = await cp.createGoal({ objective: "Conflicts" });
    await cp.replanTodos({ goalId: goal.id, idempotencyKey: `k_${goal.id}`, reason: "plan", ops: [{ op: "add", todo: { title: "A", kind: "executor" } }] });
    const claim = await cp.claimNext({ agentId, goalId: goal.id, ttlMs: 60_000 });
    if (!claim.claimed) throw new Error(claim.reason);
    const forged = cp.startTodo({ todoId: claim.todo.id, agentId, leaseKey: "lk_forged" });
    await expect(forged).rejects.toBeInstanceOf(ControlPlaneConflict);
  });

  it("an unreachable API is API_UNREACHABLE, naming the URL and how to start the API", async () => {
    const srv = createServer();
    await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
    const { port } = srv.address() as AddressInfo;
    await new Promise((ok) => srv.close(ok)); // nothing listens there now
    const down = `http://127.0.0.1:${port}`;
    const e = await createControlPlane(createApiClient({ apiUrl: down }), { apiUrl: down, retry: { maxMs: 0 } }).getGoal("goal_x").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ControlPlaneError);
    expect(e).toMatchObject({ code: API_UNREACHABLE });
    expect((e as Error).message).toContain(`Cannot reach the PhoneLoop API at ${down} (ECONNREFUSED)`);
    expect((e as Error).message).toContain("npm start");
  });

  it("an API that takes requests and never answers (its database frozen): each request times out on the client, is retried, then API_UNREACHABLE; a write whose repeat is not a no-op is not repeated", async () => {
    const seen: string[] = [];
    const stuck = createServer((req) => seen.push(req.url ?? "")); // takes every request, answers none
    await new Promise<void>((ok) => stuck.listen(0, "127.0.0.1", ok));
    const url = `http://127.0.0.1:${(stuck.address() as AddressInfo).port}`;
    try {
      const cp = createControlPlane(createApiClient({ apiUrl: url, requestTimeoutMs: 100 }), { apiUrl: url, retry: { maxMs: 600, baseMs: 20, capMs: 50 } });
      const read = await cp.getGoal("goal_x").catch((x: unknown) => x);
      expect(read).toMatchObject({ code: API_UNREACHABLE });
      expect((read as Error).message).toMatch(new RegExp(`Cannot reach the PhoneLoop API at ${url} \\(ETIMEDOUT; \\d+ attempts`));
      const reads = seen.filter((u) => u.includes("goal.get")).length;
      expect(reads).toBeGreaterThan(1);
      // goal.create twice would make two goals: a request that may have arrived is not sent again.
      const create = await cp.createGoal({ objective: "Once" }).catch((x: unknown) => x);
      expect(create).toMatchObject({ code: API_UNREACHABLE });
      expect(seen.filter((u) => u.includes("goal.create"))).toHaveLength(1);
    } finally {
      stuck.closeAllConnections();
      await new Promise((ok) => stuck.close(ok));
    }
  });

  it("without credentials the API answers UNAUTHORIZED, saying how to sign in or send an agent token", async () => {
    const cp = createControlPlane(createApiClient({ apiUrl: api.url }), { apiUrl: api.url });
    await expect(cp.createGoal({ objective: "x" })).rejects.toMatchObject({ code: "UNAUTHORIZED", message: expect.stringMatching(/PHONELOOP_AGENT_TOKEN/) });
  });
});

describe("subscribeEvents", () => {
  it("delivers a goal's events as they commit, with the signed-in person as the actor", async () => {
    const client = asAdmin();
    const goal = await client.goal.create.mutate({ title: "Streamed", objective: "watch it" });
    const received: StreamedEvent[] = [];
    let started!: () => void;
    const live = new Promise<void>((r) => (started = r));
    let arrived!: () => void;
    const got = new Promise<void>((r) => (arrived = r));
    const sub = subscribeEvents(client, { goalId: goal.id }, {
      onStarted: () => started(),
      onEvent: (e) => {
        received.push(e);
        arrived();
      },
    });
    await live;
    await client.goal.pause.mutate({ goalId: goal.id });
    await got;
    sub.unsubscribe();
    expect(received[0]).toMatchObject({ operator: "goal.pause", subjectId: goal.id, goalId: goal.id, actor: admin.userId });
  });
});
