// Contract: the same scenario runs against the port's in-memory double and against the tRPC adapter over the real
// API (HTTP) and the real state core (Postgres); both must behave alike wherever the port promises something.
import { createHash, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneConflict, type ControlPlane, type GateDecision, type Lease } from "@phoneloop/agent";
import { MemoryControlPlane } from "@phoneloop/agent/testing";
import { createApiServer, type ApiServer } from "@phoneloop/api";
import { createTestDatabase, seedMember, type TestDatabase } from "@phoneloop/state/testing";
import { createCliClient } from "../client.ts";
import { ApiUnreachable, createTrpcControlPlane } from "./trpc-control-plane.ts";

let t: TestDatabase;
let api: ApiServer;
let ownerId: string;

beforeAll(async () => {
  t = await createTestDatabase();
  api = await createApiServer({ db: t.db, databaseUrl: t.url, port: 0, host: "127.0.0.1" });
  ownerId = (await seedMember(t.db, "owner", "Olive Owner")).id;
});
afterAll(async () => {
  await api?.close();
  await t?.drop();
});

interface Subject {
  cp: ControlPlane;
  /** A team member answers a gate (the double: its test control; the real one: gate.resolve through the API). */
  resolve(gateId: string, d: Required<Pick<GateDecision, "decision" | "rationale">> & Pick<GateDecision, "answer">): Promise<void>;
}

const subjects: Record<string, () => Subject> = {
  memory: () => {
    const cp = new MemoryControlPlane();
    return { cp, resolve: async (gateId, d) => cp.resolveGate(gateId, d) };
  },
  trpc: () => {
    const member = createCliClient(api.url, { member: ownerId });
    return {
      cp: createTrpcControlPlane({ apiUrl: api.url }),
      resolve: async (gateId, d) => void (await member.gate.resolve.mutate({ gateId, ...d })),
    };
  },
};

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

const ref = (l: Lease) => ({ leaseId: l.leaseId, epoch: l.epoch });

describe.each(Object.keys(subjects))("ControlPlane contract: %s", (name) => {
  let s: Subject;
  let cp: ControlPlane;
  beforeAll(() => {
    s = subjects[name]!();
    cp = s.cp;
  });
  const p = `${name}-${randomUUID().slice(0, 8)}`;
  const ids = { t1: `${p}-t1`, t2: `${p}-t2`, t2b: `${p}-t2b`, t3: `${p}-t3`, host: `${p}-host` };
  let a = "";
  let b = "";
  let goalId = "";
  let leaseA: Lease;
  let leaseB: Lease;
  const live = async () => (await cp.readTodos(goalId)).filter((x) => x.status !== "superseded").map((x) => x.todoId);
  const todo = async (id: string) => (await cp.readTodos(goalId)).find((x) => x.todoId === id)!;

  it("registers peers and creates an objective", async () => {
    a = (await cp.registerAgent({ agentId: `${p}-a`, name: "worker A", kind: "headless", capabilities: ["phone"] })).agentId;
    b = (await cp.registerAgent({ name: "worker B", kind: "headless", capabilities: ["phone"] })).agentId;
    expect(a).toBe(`${p}-a`);
    expect(b).toBeTruthy();
    await cp.heartbeat(a);
    const o = await cp.createGoal({ goal: "Book a table for two at 8pm", bounds: ["spend nothing"] });
    goalId = o.goalId;
    expect(await cp.getGoal(goalId)).toMatchObject({ goalId, goal: "Book a table for two at 8pm", bounds: ["spend nothing"] });
    expect(await cp.getGoal(`${p}-missing`)).toBeNull();
  });

  it("writes todos: insert, a repeated replan is a no-op, reorder, supersede with a reason", async () => {
    const ops = [
      { op: "insert" as const, todo: { todoId: ids.t1, title: "Open the booking app", kind: "executor" as const, appHint: "com.example.book" } },
      { op: "insert" as const, todo: { todoId: ids.t2, title: "Pick 8pm", kind: "executor" as const, outputs: ["slot"] } },
      { op: "insert" as const, todo: { todoId: ids.t3, title: "Confirm", kind: "executor" as const, inputs: ["slot"] } },
      { op: "insert" as const, todo: { todoId: ids.host, title: "Write the confirmation sentence", kind: "host" as const } },
    ];
    const first = await cp.replanTodos({ goalId, idempotencyKey: `${p}:plan`, reason: "initial plan", ops });
    expect(first.map((x) => x.todoId)).toEqual([ids.t1, ids.t2, ids.t3, ids.host]);
    expect(first.map((x) => x.status)).toEqual(["todo", "todo", "todo", "todo"]);
    expect(first.map((x) => x.kind)).toEqual(["executor", "executor", "executor", "host"]);
    expect(first[0]).toMatchObject({ appHint: "com.example.book", capabilities: ["phone"], goalId });
    expect(first[1]!.outputs).toEqual(["slot"]);
    expect(first[2]!.inputs).toEqual(["slot"]);
    expect(first[3]!.capabilities).toEqual([]);
    const again = await cp.replanTodos({ goalId, idempotencyKey: `${p}:plan`, reason: "initial plan", ops });
    expect(again.map((x) => x.todoId)).toEqual([ids.t1, ids.t2, ids.t3, ids.host]);

    await cp.replanTodos({ goalId, idempotencyKey: `${p}:reorder`, reason: "confirm first", ops: [{ op: "reorder", todoIds: [ids.t3, ids.t1, ids.t2, ids.host] }] });
    expect(await live()).toEqual([ids.t3, ids.t1, ids.t2, ids.host]);

    await cp.replanTodos({
      goalId,
      idempotencyKey: `${p}:supersede`,
      reason: "8pm is gone",
      ops: [{ op: "supersede", todoId: ids.t2, reason: "8pm is fully booked", replacements: [{ todoId: ids.t2b, title: "Pick 8:30pm", kind: "executor" }] }],
    });
    expect(await live()).toEqual([ids.t3, ids.t1, ids.t2b, ids.host]);
    expect(await todo(ids.t2)).toMatchObject({ status: "superseded", supersedeReason: "8pm is fully booked", supersededBy: [ids.t2b] });
  });

  it("claims, renews and releases; a stale epoch is an explicit conflict", async () => {
    leaseA = (await cp.claim({ agentId: a, goalId, capabilities: ["phone"], todoId: ids.t3, ttlMs: 60_000 }))!;
    expect(leaseA).toMatchObject({ todoId: ids.t3, agentId: a, epoch: 1 });
    expect((await todo(ids.t3)).status).toBe("claimed");
    await cp.startTodo(ids.t3, ref(leaseA));
    expect((await todo(ids.t3)).status).toBe("in_progress");
    const renewed = await cp.renewLease(ref(leaseA), 60_000);
    expect(renewed).toMatchObject({ leaseId: leaseA.leaseId, epoch: 1 });
    expect(renewed.expiresAt).toBeGreaterThanOrEqual(leaseA.expiresAt);

    await expect(cp.renewLease({ leaseId: leaseA.leaseId, epoch: 7 }, 60_000)).rejects.toBeInstanceOf(ControlPlaneConflict);
    // Held by A: B gets nothing (not an error).
    expect(await cp.claim({ agentId: b, goalId, capabilities: ["phone"], todoId: ids.t3, ttlMs: 60_000 })).toBeNull();
    // Without the capability, nothing is claimable either.
    expect(await cp.claim({ agentId: b, goalId, capabilities: [], todoId: ids.t1, ttlMs: 60_000 })).toBeNull();

    await cp.releaseLease(ref(leaseA));
    await cp.releaseLease(ref(leaseA)); // releasing twice is a no-op
    leaseB = (await cp.claim({ agentId: b, goalId, capabilities: ["phone"], todoId: ids.t3, ttlMs: 60_000 }))!;
    expect(leaseB).toMatchObject({ todoId: ids.t3, agentId: b, epoch: 2 });
    await cp.startTodo(ids.t3, ref(leaseB));

    // A's late writes on the lease it lost: explicit conflicts, never silent overwrites.
    await expect(cp.renewLease(ref(leaseA), 60_000)).rejects.toBeInstanceOf(ControlPlaneConflict);
    await expect(
      cp.appendEvidence({ idempotencyKey: `${p}:late`, kind: "action", goalId, todoId: ids.t3, lease: ref(leaseA), summary: "late tap" }),
    ).rejects.toBeInstanceOf(ControlPlaneConflict);
    await expect(
      cp.recordTurnResult({ idempotencyKey: `${p}:late-turn`, goalId, todoId: ids.t3, lease: ref(leaseA), result: "validated_progress", summary: "late", evidenceIds: [] }),
    ).rejects.toBeInstanceOf(ControlPlaneConflict);
    expect((await todo(ids.t3)).status).toBe("in_progress");
  });

  it("evidence is idempotent on its key and keeps its screenshot blob", async () => {
    const bytes = new TextEncoder().encode(`png bytes ${p}`);
    const e = { idempotencyKey: `${p}:obs:0`, kind: "observation" as const, goalId, todoId: ids.t3, lease: ref(leaseB), stepIndex: 0, summary: "booking app, 12 elements", data: { app: "com.example.book" }, blob: { bytes, mime: "image/png" } };
    const first = await cp.appendEvidence(e);
    expect(first.duplicate).toBe(false);
    const second = await cp.appendEvidence(e);
    expect(second).toEqual({ evidenceId: first.evidenceId, duplicate: true });
    const listed = (await cp.listEvidence({ goalId, kind: "observation" })).filter((x) => x.idempotencyKey === e.idempotencyKey);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      evidenceId: first.evidenceId,
      todoId: ids.t3,
      stepIndex: 0,
      summary: "booking app, 12 elements",
      data: { app: "com.example.book" },
      blobSha256: createHash("sha256").update(bytes).digest("hex"),
      blobMime: "image/png",
    });
  });

  it("a gate waits for a member's decision; the todo waits meanwhile", async () => {
    const req = { idempotencyKey: `${p}:gate:1`, goalId, todoId: ids.t3, lease: ref(leaseB), question: "Allow the agent to tap Pay (19.90 EUR)?", options: ["approve", "deny"], evidenceIds: [], answerRoles: ["owner" as const] };
    const { gateId } = await cp.openGate(req);
    expect((await cp.openGate(req)).gateId).toBe(gateId);
    expect((await cp.recordTurnResult({ idempotencyKey: `${p}:gate-turn`, goalId, todoId: ids.t3, lease: ref(leaseB), result: "user_action_required", summary: "asked", reason: `gate ${gateId}`, evidenceIds: [] })).duplicate).toBe(false);
    expect((await todo(ids.t3)).status).toBe("waiting");
    expect(await cp.shouldRun({ agentId: b, goalId, todoId: ids.t3 })).toMatchObject({ run: false, reason: "gate_waiting" });

    const waiting = cp.waitForGate(gateId);
    await s.resolve(gateId, { decision: "approve", rationale: "expected amount" });
    expect(await waiting).toMatchObject({ decision: "approve", rationale: "expected amount" });
    expect((await todo(ids.t3)).status).toBe("in_progress");
    expect(await cp.shouldRun({ agentId: b, goalId, todoId: ids.t3 })).toEqual({ run: true });

    // Waiting honours its AbortSignal.
    const other = await cp.openGate({ ...req, idempotencyKey: `${p}:gate:2`, question: "Allow the agent to send the message?" });
    const ac = new AbortController();
    const aborted = cp.waitForGate(other.gateId, ac.signal);
    ac.abort(new Error("run cancelled"));
    await expect(aborted).rejects.toThrow(/cancelled/);
    await s.resolve(other.gateId, { decision: "deny", rationale: "not now" });
    expect(await cp.waitForGate(other.gateId)).toMatchObject({ decision: "deny", rationale: "not now" });

    // A free-text question (the runtime's single option "answer") takes any answer.
    const question = await cp.openGate({ ...req, idempotencyKey: `${p}:gate:3`, question: "Which day should the table be booked for?", options: ["answer"] });
    await s.resolve(question.gateId, { decision: "answer", answer: "Tuesday", rationale: "the user said so" });
    expect(await cp.waitForGate(question.gateId)).toMatchObject({ decision: "answer", answer: "Tuesday" });
  });

  it("should-run and spend: a repeated spend with the same key spends once", async () => {
    expect(await cp.shouldRun({ agentId: b, goalId })).toEqual({ run: true });
    expect(await cp.spend(`${p}:0:spend`, { agentId: b, goalId, steps: 1, tokens: 1200, microUsd: 3000 })).toEqual({ spent: true, duplicate: false });
    expect(await cp.spend(`${p}:0:spend`, { agentId: b, goalId, steps: 1, tokens: 1200, microUsd: 3000 })).toEqual({ spent: false, duplicate: true });
  });

  it("records turn results once per key; completion finishes the todo (executor and host)", async () => {
    const turn = { idempotencyKey: `${p}:0:turn`, goalId, todoId: ids.t3, lease: ref(leaseB), result: "validated_progress" as const, summary: "tap Confirm → ok", evidenceIds: [] };
    expect(await cp.recordTurnResult(turn)).toEqual({ duplicate: false });
    expect(await cp.recordTurnResult(turn)).toEqual({ duplicate: true });
    expect((await todo(ids.t3)).status).toBe("in_progress");
    const done = { ...turn, idempotencyKey: `${p}:1:turn`, result: "validated_completion" as const, summary: "booked", outputs: { slot: "8:30pm" } };
    expect(await cp.recordTurnResult(done)).toEqual({ duplicate: false });
    expect(await cp.recordTurnResult(done)).toEqual({ duplicate: true });
    expect((await todo(ids.t3)).status).toBe("done");
    await cp.releaseLease(ref(leaseB)); // after completion the lease is gone: giving it back is a no-op
    // A host todo is answered without the phone and without a lease.
    expect(await cp.recordTurnResult({ idempotencyKey: `${p}:host`, goalId, todoId: ids.host, result: "validated_completion", summary: "Table booked for 8:30pm.", evidenceIds: [] })).toEqual({ duplicate: false });
    expect((await todo(ids.host)).status).toBe("done");
  });

  it("a todo handed back for a replan, or told to wait, stays open and is claimed again under a new epoch", async () => {
    const open = ["todo", "claimed", "in_progress", "waiting"];
    const l1 = (await cp.claim({ agentId: a, goalId, capabilities: ["phone"], todoId: ids.t1, ttlMs: 60_000 }))!;
    await cp.startTodo(ids.t1, ref(l1));
    await cp.recordTurnResult({ idempotencyKey: `${p}:t1:replan`, goalId, todoId: ids.t1, lease: ref(l1), result: "replan_required", summary: "scroll streak", evidenceIds: [] });
    await cp.releaseLease(ref(l1));
    expect(open).toContain((await todo(ids.t1)).status);
    // The supervisor retries it.
    const l2 = (await cp.claim({ agentId: a, goalId, capabilities: ["phone"], todoId: ids.t1, ttlMs: 60_000 }))!;
    expect(l2.epoch).toBe(2);
    await cp.startTodo(ids.t1, ref(l2));
    await cp.recordTurnResult({ idempotencyKey: `${p}:t1:wait`, goalId, todoId: ids.t1, lease: ref(l2), result: "wait", summary: "quota exhausted", reason: "quota exhausted: steps", evidenceIds: [] });
    expect((await todo(ids.t1)).status).toBe("waiting");
    const l3 = (await cp.claim({ agentId: a, goalId, capabilities: ["phone"], todoId: ids.t1, ttlMs: 60_000 }))!;
    expect(l3.epoch).toBe(3);
    await cp.startTodo(ids.t1, ref(l3));
    expect((await todo(ids.t1)).status).toBe("in_progress");
    // The epoch-2 lease is dead now.
    await expect(cp.renewLease(ref(l2), 60_000)).rejects.toBeInstanceOf(ControlPlaneConflict);
    await cp.releaseLease(ref(l3));
  });

  it("runs: start, steps once per index, checkpoint, resume on another worker, finish", async () => {
    const started = await cp.startRun({ goalId, agentId: b, goal: "Book a table for two at 8pm" });
    expect(started.resumed).toBe(false);
    const runId = started.runId;
    const step = { runId, index: 0, todoId: ids.t3, action: { type: "click", x: 500, y: 900 }, outcome: "ok", evidenceIds: [], at: Date.now() };
    expect(await cp.appendStep(step)).toEqual({ duplicate: false });
    expect(await cp.appendStep({ ...step, outcome: "again" })).toEqual({ duplicate: true });
    expect(await cp.loadCheckpoint(runId)).toBeNull();
    const state = { version: 1, runId, node: "executor", stepIndex: 1, blackboard: { slot: "8:30pm" } };
    await cp.saveCheckpoint(runId, state);
    expect(await cp.loadCheckpoint(runId)).toEqual(state);
    const resumed = await cp.startRun({ runId, goalId, agentId: a, goal: "Book a table for two at 8pm" });
    expect(resumed).toEqual({ runId, resumed: true });
    expect(await cp.loadCheckpoint(runId)).toEqual(state);
    await cp.saveCheckpoint(runId, { ...state, stepIndex: 2 });
    await cp.appendStep({ ...step, index: 1 });
    await cp.finishRun(runId, { status: "completed", summary: "booked" });
    expect(await cp.loadCheckpoint(`${p}-no-run`)).toBeNull();
  });
});

describe("tRPC ControlPlane against the state core", () => {
  it("leaves the run's truth in the state core, readable through the API", async () => {
    const cp = createTrpcControlPlane({ apiUrl: api.url });
    const { agentId } = await cp.registerAgent({ name: "worker", kind: "headless", capabilities: ["phone"] });
    const { goalId } = await cp.createGoal({ goal: "Open the settings" });
    await cp.replanTodos({ goalId, idempotencyKey: `${goalId}:plan`, reason: "plan", ops: [{ op: "insert", todo: { title: "Open settings", kind: "executor" } }] });
    const lease = (await cp.claim({ agentId, goalId, capabilities: ["phone"], ttlMs: 60_000 }))!;
    await cp.startTodo(lease.todoId, ref(lease));
    const { runId } = await cp.startRun({ goalId, agentId, goal: "Open the settings" });
    await cp.appendStep({ runId, index: 0, todoId: lease.todoId, action: { type: "open_app", app: "settings" }, outcome: "ok", evidenceIds: [], at: 0 });
    await cp.recordTurnResult({ idempotencyKey: `${runId}:0:turn`, goalId, todoId: lease.todoId, lease: ref(lease), result: "validated_completion", summary: "settings open", evidenceIds: [] });
    await cp.finishRun(runId, { status: "waiting", summary: "nothing left" });

    const reader = createCliClient(api.url, {});
    const board = await reader.board.get.query({ goalId: goalId });
    expect(board.lanes.find((l) => l.state === "done")!.cards.map((c) => c.id)).toEqual([lease.todoId]);
    const run = await reader.run.get.query({ runId });
    expect(run).toMatchObject({ status: "blocked", agentId, summary: "waiting: nothing left" });
    expect(run.steps.map((x) => x.index)).toEqual([0]);
    const turns = await reader.evidence.list.query({ goalId: goalId, kind: "validation" });
    expect(turns.map((e) => e.summary)).toContain("turn validated_completion: settings open");
  });

  it("waitForGate is woken by the API's event stream, not only by polling", async () => {
    // A clock whose pauses never end on their own: only the stream can wake the waiter.
    const stuck = { now: () => Date.now(), monotonic: () => performance.now(), sleep: (_ms: number, signal?: AbortSignal) => new Promise<void>((r) => signal?.addEventListener("abort", () => r(), { once: true })) };
    const cp = createTrpcControlPlane({ apiUrl: api.url, clock: stuck, gatePollMaxMs: 3_600_000 });
    await cp.registerAgent({ name: "worker", kind: "headless", capabilities: ["phone"] });
    const { goalId } = await cp.createGoal({ goal: "Send the message" });
    const [todo] = await cp.replanTodos({ goalId, idempotencyKey: `${goalId}:plan`, reason: "plan", ops: [{ op: "insert", todo: { title: "Send it", kind: "executor" } }] });
    const { gateId } = await cp.openGate({ idempotencyKey: `${goalId}:gate`, goalId, todoId: todo!.todoId, question: "Allow the agent to send the message?", options: ["approve", "deny"], evidenceIds: [], answerRoles: ["owner"] });
    const waiting = cp.waitForGate(gateId);
    await createCliClient(api.url, { member: ownerId }).gate.resolve.mutate({ gateId, decision: "approve", rationale: "go ahead" });
    expect(await waiting).toEqual({ decision: "approve", rationale: "go ahead" });
  });

  it("an unreachable API says where it looked and how to start one", async () => {
    const port = await closedPort();
    const cp = createTrpcControlPlane({ apiUrl: `http://127.0.0.1:${port}` });
    const e = await cp.readTodos("goal_x").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiUnreachable);
    expect((e as Error).message).toContain(`http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect((e as Error).message).toMatch(/npm start/);
  });

  it("a refusal carries the API's own message and code", async () => {
    const cp = createTrpcControlPlane({ apiUrl: api.url });
    await cp.registerAgent({ name: "worker", kind: "headless", capabilities: ["phone"] });
    const e = await cp.startRun({ goalId: "goal_missing", agentId: cp.agentId!, goal: "x" }).catch((x: unknown) => x);
    expect((e as { code: string }).code).toBe("NOT_FOUND");
    expect((e as Error).message).toMatch(/Goal goal_missing does not exist/);
  });
});
