// Idempotency keys are the workspace's, over real HTTP: the agent keys are built from a run id, which a share link
// reveals, so an agent of ANOTHER workspace can send the same keys first. Its rows must neither take the keys from
// this workspace's run (which would then get 409 on its own writes) nor show up in any answer here: evidence, gates,
// replans, turn results and spends each keep their key per workspace, and a 409 names only the caller's own rows.
import { beforeAll, describe, expect, it } from "vitest";
import { claimTodo, registerAgent, startRun, startTodo } from "@phoneloop/state";
import { rid, seedGoal, seedTodos, useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { agentTokenHeaders, callOverHttp, signUpMember } from "./auth/testing.ts";

const t = useTestDatabase();
const api = useApiServer(t);

interface Side {
  ws: string;
  agentId: string;
  headers: Record<string, string>;
}
let mine: Side;
let theirs: Side;

async function side(): Promise<Side> {
  const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  const { tokenId, headers } = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId });
  const agentId = rid("agent");
  await registerAgent(t.db, { id: agentId, name: "Worker", kind: "headless", capabilities: ["android"], workspaceId: admin.workspaceId, tokenId });
  return { ws: admin.workspaceId, agentId, headers };
}

beforeAll(async () => {
  mine = await side();
  theirs = await side();
});

const call = (s: Side, path: string, input: unknown) => callOverHttp(api.url, path, input, s.headers);

/** A goal of the side's workspace with a todo its agent holds and runs, and the run's id. */
async function working(s: Side) {
  const goal = await seedGoal(t.db, { workspaceId: s.ws });
  const [todo] = await seedTodos(t.db, goal.id, 1);
  const run = await startRun(t.db, { goalId: goal.id, agentId: s.agentId });
  const claim = await claimTodo(t.db, { agentId: s.agentId, todoId: todo!.id });
  if (!claim.claimed) throw new Error(claim.reason);
  await startTodo(t.db, { todoId: todo!.id, agentId: s.agentId, leaseKey: claim.lease.leaseKey });
  return { goalId: goal.id, todoId: todo!.id, runId: run.id, leaseKey: claim.lease.leaseKey };
}

/** Nothing of the other workspace in an answer: none of its ids. */
function namesNoneOf(answer: unknown, ids: string[]) {
  const text = JSON.stringify(answer);
  for (const id of ids) expect(text, `the answer names ${id} of another workspace`).not.toContain(id);
}

describe("a key another workspace used first is still this workspace's", () => {
  it("evidence: this run's write is recorded, not refused", async () => {
    const here = await working(mine);
    const there = await working(theirs);
    const key = `${here.runId}:summary`;
    // A report as the summarizer writes it (the summary schema).
    const data = { goal: "g", status: "completed", endReason: "all_done", executed: [], findings: [], blocked: [], conclusion: "Done.", outputs: {}, totals: { steps: 0, modelCalls: 0, inputTokens: 0, outputTokens: 0, microUsd: 0, promptTokensCounted: 0 }, lessons: [] };
    const taken = await call(theirs, "evidence.append", { goalId: there.goalId, kind: "summary", summary: "squatted", data, idempotencyKey: key });
    expect(taken.status, taken.message).toBe(200);
    const own = await call(mine, "evidence.append", { goalId: here.goalId, runId: here.runId, kind: "summary", summary: "the run's summary", data, idempotencyKey: key });
    expect(own.status, own.message).toBe(200);
    expect(own.data).toMatchObject({ created: true, evidence: { goalId: here.goalId, summary: "the run's summary" } });
    const byKey = await call(mine, "evidence.byKey", { idempotencyKey: key });
    expect(byKey.data).toMatchObject({ goalId: here.goalId });
    namesNoneOf([own.data, byKey.data], [there.goalId]);
  });

  it("gates: this run's gate opens, and a reused key's 409 names only this workspace's gate", async () => {
    const here = await working(mine);
    const there = await working(theirs);
    const key = `${here.runId}:3:gate`;
    const taken = await call(theirs, "gate.open", { goalId: there.goalId, todoId: there.todoId, question: "Pay the squatter?", idempotencyKey: key });
    expect(taken.status, taken.message).toBe(200);
    const theirGate = (taken.data as { gate: { id: string } }).gate.id;
    const own = await call(mine, "gate.open", { goalId: here.goalId, todoId: here.todoId, question: "Pay the 5 EUR deposit?", idempotencyKey: key });
    expect(own.status, own.message).toBe(200);
    expect(own.data).toMatchObject({ created: true, gate: { goalId: here.goalId } });
    const reused = await call(mine, "gate.open", { goalId: here.goalId, todoId: here.todoId, question: "Another question", idempotencyKey: key });
    expect(reused.status).toBe(409);
    expect(reused.message).toContain((own.data as { gate: { id: string } }).gate.id);
    namesNoneOf([own.data, reused.message], [theirGate, there.goalId, there.todoId]);
  });

  it("replans: this goal's replan applies", async () => {
    const here = await working(mine);
    const there = await working(theirs);
    const key = `${here.runId}:replan:1`;
    const ops = [{ op: "add", todo: { title: "Pick a time" } }];
    expect((await call(theirs, "todo.replan", { goalId: there.goalId, idempotencyKey: key, reason: "squat", ops })).status).toBe(200);
    const own = await call(mine, "todo.replan", { goalId: here.goalId, idempotencyKey: key, reason: "one more step", ops });
    expect(own.status, own.message).toBe(200);
    expect(own.data).toMatchObject({ duplicate: false });
    namesNoneOf([own.data, own.message], [there.goalId]);
  });

  it("spends: this run's spend is recorded", async () => {
    const here = await working(mine);
    const there = await working(theirs);
    const key = `${here.runId}:2:spend`;
    expect((await call(theirs, "quota.spend", { key, goalId: there.goalId, agentId: theirs.agentId, steps: 1 })).status).toBe(200);
    const own = await call(mine, "quota.spend", { key, goalId: here.goalId, agentId: mine.agentId, runId: here.runId, steps: 1 });
    expect(own.status, own.message).toBe(200);
    expect(own.data).toMatchObject({ duplicate: false, spend: { goalId: here.goalId } });
    namesNoneOf([own.data, own.message], [there.goalId, theirs.agentId]);
  });

  it("turn results: this run's turn is recorded, and a reused key's 409 names only this workspace's agent and todo", async () => {
    const here = await working(mine);
    const there = await working(theirs);
    const key = `${here.runId}:1:turn`;
    const taken = await call(theirs, "turn.result", { todoId: there.todoId, agentId: theirs.agentId, leaseKey: there.leaseKey, idempotencyKey: key, kind: "repair_required", summary: "squat" });
    expect(taken.status, taken.message).toBe(200);
    const own = await call(mine, "turn.result", { todoId: here.todoId, agentId: mine.agentId, leaseKey: here.leaseKey, runId: here.runId, idempotencyKey: key, kind: "repair_required", summary: "tap missed" });
    expect(own.status, own.message).toBe(200);
    expect(own.data).toMatchObject({ duplicate: false, todo: { id: here.todoId } });
    // The same key for another todo of this workspace: 409, naming this workspace's turn only.
    const other = await working(mine);
    const reused = await call(mine, "turn.result", { todoId: other.todoId, agentId: mine.agentId, leaseKey: other.leaseKey, idempotencyKey: key, kind: "repair_required", summary: "again" });
    expect(reused.status).toBe(409);
    expect(reused.message).toContain(here.todoId);
    namesNoneOf([own.data, reused.message], [theirs.agentId, there.todoId, there.goalId]);
  });
});
