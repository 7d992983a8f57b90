// run.recordStep: one executor step's writes in one transaction — evidence (in one statement, stamped in order),
// step row, checkpoint — each part idempotent, fenced by the lease, and answered as first recorded on a retry.
import { describe, expect, it } from "vitest";
import { useTestDatabase, manualClock, rid, seedAgent, seedClaimed, seedGate, seedWorkspace } from "../../testing/index.ts";
import { setQuotaPolicy } from "../quota/set-quota-policy.ts";
import { spendQuota } from "../quota/spend-quota.ts";
import { reserveQuota } from "../quota/reserve-quota.ts";
import { shouldRun } from "../quota/should-run.ts";
import type { StateError } from "../../domain/errors.ts";
import { putBlob } from "../blob/put-blob.ts";
import { claimTodo } from "../todo/claim-todo.ts";
import { startTodo } from "../todo/start-todo.ts";
import { releaseLease } from "../lease/release-lease.ts";
import { finishRun } from "./finish-run.ts";
import { recordStep, type RecordStepInput } from "./record-step.ts";
import { resumeRun } from "./resume-run.ts";
import { startRun } from "./start-run.ts";

const t = useTestDatabase();

const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);

/** A claimed todo, its run, and a screenshot the goal's workspace holds. */
async function started() {
  const { goal, todo, agent, claim } = await seedClaimed(t.db);
  const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
  const blob = await putBlob(t.db, { bytes: Buffer.from(`screen ${rid("png")}`), mime: "text/plain", workspaceId: goal.workspaceId });
  const record = (over: Partial<RecordStepInput> = {}): RecordStepInput => ({
    runId: run.id,
    agentId: agent.id,
    todoId: todo.id,
    leaseKey: claim.lease.leaseKey,
    evidence: [
      { idempotencyKey: `${run.id}:0:observation`, kind: "observation", stepIndex: 0, summary: "feed, 12 elements", data: { app: "com.example.social" }, blobSha256: blob.sha256 },
      { idempotencyKey: `${run.id}:0:model`, kind: "model_call", stepIndex: 0, summary: "executor: 1200 tokens", data: { via: "runtime", role: "executor", model: "m", inputTokens: 1000, outputTokens: 200, microUsd: 30, latencyMs: 900 } },
      { idempotencyKey: `${run.id}:0:action`, kind: "action", stepIndex: 0, summary: "tap the first post", data: { action: { type: "click", element: "3" } } },
    ],
    step: { index: 0, node: "executor", action: { type: "click", element: "3" }, outcome: { outcome: "ok" }, anomalies: [], tokens: 1200 },
    checkpoint: { node: "executor", stepIndex: 1 },
    ...over,
  });
  const events = async () => (await t.db.event.findMany({ where: { goalId: goal.id, operator: { in: ["evidence.append", "run.appendStep", "run.saveCheckpoint", "turn.result", "quota.spend"] } }, orderBy: { id: "asc" }, select: { operator: true } })).map((e) => e.operator);
  return { goal, todo, agent, claim, run, blob, record, events };
}

describe("run.recordStep", () => {
  it("writes the step's evidence in order, its step row and the checkpoint; a retry answers the same and writes nothing", async () => {
    const s = await started();
    const first = await recordStep(t.db, s.record());
    expect(first.evidence.map((e) => e.created)).toEqual([true, true, true]);
    expect(new Set(first.evidence.map((e) => e.id)).size).toBe(3);
    expect(first.step?.created).toBe(true);

    const rows = await t.db.evidence.findMany({ where: { runId: s.run.id }, orderBy: { createdAt: "asc" } });
    expect(rows.map((r) => r.id)).toEqual(first.evidence.map((e) => e.id));
    expect(rows.map((r) => r.createdAt.getTime() - rows[0]!.createdAt.getTime())).toEqual([0, 1, 2]);
    expect(rows[0]).toMatchObject({ kind: "observation", todoId: s.todo.id, agentId: s.agent.id, goalId: s.goal.id, blobSha256: s.blob.sha256, data: { app: "com.example.social" } });
    expect(rows[2]!.data).toEqual({ action: { type: "click", element: "3" } });
    expect(await t.db.step.findUniqueOrThrow({ where: { id: first.step!.id } })).toMatchObject({
      index: 0,
      action: { type: "click", element: "3" },
      outcome: { outcome: "ok" },
      anomalies: [],
      tokens: 1200,
    });
    expect((await t.db.run.findUniqueOrThrow({ where: { id: s.run.id } })).checkpoint).toEqual({ node: "executor", stepIndex: 1 });
    // In the order of the record's parts; the direct endpoint's model call is spent with its row.
    expect(await s.events()).toEqual(["evidence.append", "evidence.append", "evidence.append", "quota.spend", "run.appendStep", "run.saveCheckpoint"]);

    const again = await recordStep(t.db, s.record({ checkpoint: undefined }));
    expect(again.evidence).toEqual(first.evidence.map((e) => ({ ...e, created: false })));
    expect(again.step).toEqual({ id: first.step!.id, created: false });
    expect(await s.events()).toHaveLength(6);
    expect(await t.db.quotaSpend.findMany({ where: { goalId: s.goal.id }, select: { key: true, tokens: true, microUsd: true } })).toEqual([{ key: `model_call:${s.run.id}:0:model`, tokens: 1200, microUsd: 30n }]);
    expect(await t.db.evidence.count({ where: { runId: s.run.id } })).toBe(3);
  });

  it("one new row beside rows recorded before: only the new one is written", async () => {
    const s = await started();
    const first = await recordStep(t.db, s.record({ step: undefined, checkpoint: undefined }));
    const more = s.record({ step: undefined, checkpoint: undefined });
    more.evidence = [...more.evidence!, { idempotencyKey: `${s.run.id}:0:anomaly`, kind: "anomaly", stepIndex: 0, summary: "the screen did not change", data: { kind: "no_change" } }];
    const out = await recordStep(t.db, more);
    expect(out.evidence.slice(0, 3)).toEqual(first.evidence.map((e) => ({ ...e, created: false })));
    expect(out.evidence[3]?.created).toBe(true);
    expect((await s.events()).filter((o) => o === "evidence.append")).toHaveLength(4);
  });

  it("after the lease moved on, a retried record is answered as it was; new evidence under the old key is CONFLICT", async () => {
    const s = await started();
    const first = await recordStep(t.db, s.record());
    const again = await claimTodo(t.db, { agentId: s.agent.id, todoId: s.todo.id }); // a restarted worker: a new epoch
    if (!again.claimed) throw new Error(again.reason);
    expect((await recordStep(t.db, s.record())).evidence).toEqual(first.evidence.map((e) => ({ ...e, created: false })));
    const late = s.record({ evidence: [{ idempotencyKey: `${s.run.id}:1:observation`, kind: "observation", stepIndex: 1, summary: "late write of the old life" }], step: undefined, checkpoint: undefined });
    expect((await err(recordStep(t.db, late)))?.code).toBe("CONFLICT");
    expect(await t.db.evidence.count({ where: { runId: s.run.id } })).toBe(3);
    const fresh = { ...late, leaseKey: again.lease.leaseKey };
    expect((await recordStep(t.db, fresh)).evidence[0]?.created).toBe(true);
  });

  it("a screenshot this workspace never put is NOT_FOUND, and nothing is written", async () => {
    const s = await started();
    const other = await seedWorkspace(t.db);
    const foreign = await putBlob(t.db, { bytes: Buffer.from(`other ${rid("png")}`), mime: "text/plain", workspaceId: other.workspace.id });
    const r = s.record();
    r.evidence![0]!.blobSha256 = foreign.sha256;
    expect((await err(recordStep(t.db, r)))?.code).toBe("NOT_FOUND");
    expect(await t.db.evidence.count({ where: { runId: s.run.id } })).toBe(0);
    expect(await t.db.step.count({ where: { runId: s.run.id } })).toBe(0);
  });

  it("a finished run answers a step recorded before and refuses a new one", async () => {
    const s = await started();
    const first = await recordStep(t.db, s.record({ checkpoint: undefined }));
    await finishRun(t.db, { runId: s.run.id, agentId: s.agent.id, status: "completed" });
    const answered = await recordStep(t.db, { runId: s.run.id, agentId: s.agent.id, step: { index: 0, node: "executor" } });
    expect(answered.step).toEqual({ id: first.step!.id, created: false });
    expect((await err(recordStep(t.db, { runId: s.run.id, agentId: s.agent.id, step: { index: 1, node: "executor" } })))?.code).toBe("ILLEGAL_TRANSITION");
    expect((await err(recordStep(t.db, { runId: s.run.id, agentId: s.agent.id, checkpoint: { node: "end" } })))?.code).toBe("ILLEGAL_TRANSITION");
  });

  it("answers the route after its writes: ready; with the quota spent, blocked; an open gate first; past the lease, contract_error", async () => {
    const s = await started();
    const ask = (ctx?: Parameters<typeof recordStep>[2]) => recordStep(t.db, { runId: s.run.id, agentId: s.agent.id, todoId: s.todo.id, route: true }, ctx).then((r) => r.route);
    expect(await ask()).toEqual({ route: "ready_for_host", reason: "held, unblocked, within quota" });
    const stranger = await recordStep(t.db, { runId: s.run.id, agentId: (await seedAgent(t.db)).id, todoId: s.todo.id, route: true }).then((r) => r.route);
    expect(stranger).toEqual({ route: "wait", reason: `the todo is held by ${s.agent.id}` });
    await setQuotaPolicy(t.db, { scope: "goal", goalId: s.goal.id, windowMs: 60_000, maxSteps: 1 });
    await spendQuota(t.db, { key: rid("spend"), goalId: s.goal.id, agentId: s.agent.id, steps: 1 });
    expect(await ask()).toEqual({ route: "blocked", reason: "quota exhausted" });
    await seedGate(t.db, s.goal.id, { todoId: s.todo.id });
    expect(await ask()).toMatchObject({ route: "user_action_required" });
    const other = await started();
    const later = manualClock(new Date(other.claim.lease.expiresAt.getTime() + 1));
    expect(await recordStep(t.db, { runId: other.run.id, agentId: other.agent.id, todoId: other.todo.id, route: true }, { clock: later }).then((r) => r.route)).toEqual({
      route: "contract_error",
      reason: "your lease expired; claim the todo again",
    });
  });

  it("records the turn result and its spend within the step's transaction: once; a spend the quota refuses ends quota_spend_failed, the rest stands", async () => {
    const s = await started();
    await startTodo(t.db, { todoId: s.todo.id, agentId: s.agent.id, leaseKey: s.claim.lease.leaseKey });
    // The turn result spends the step; the step's model call was spent with its evidence.
    const turn = (n: number) => ({ idempotencyKey: `${s.run.id}:${n}:turn`, kind: "validated_progress" as const, summary: `step ${n} done`, spend: { key: `${s.run.id}:${n}:spend`, steps: 1 } });
    const first = await recordStep(t.db, s.record({ turnResult: turn(0), route: true }));
    expect(first.turnResult).toMatchObject({ kind: "validated_progress", duplicate: false, spend: { steps: 1, tokens: 0 }, spendError: null });
    expect(first.route?.route).toBe("ready_for_host");
    expect(await s.events()).toEqual(["evidence.append", "evidence.append", "evidence.append", "quota.spend", "run.appendStep", "turn.result", "quota.spend", "run.saveCheckpoint"]);
    const again = await recordStep(t.db, s.record({ turnResult: turn(0), route: true }));
    expect(again.turnResult).toMatchObject({ kind: "validated_progress", duplicate: true });
    expect(await t.db.quotaSpend.count({ where: { goalId: s.goal.id } })).toBe(2);
    expect(await t.db.turn.count({ where: { todoId: s.todo.id } })).toBe(1);

    await setQuotaPolicy(t.db, { scope: "goal", goalId: s.goal.id, windowMs: 60_000, maxSteps: 1 });
    const next = s.record({
      evidence: [{ idempotencyKey: `${s.run.id}:1:action`, kind: "action", stepIndex: 1, summary: "scroll down", data: { action: { type: "scroll", direction: "down" } } }],
      step: { index: 1, node: "executor" },
      turnResult: turn(1),
      route: true,
    });
    const refused = await recordStep(t.db, next);
    expect(refused.turnResult).toMatchObject({ kind: "quota_spend_failed", spend: null, spendError: { code: "QUOTA_EXCEEDED" } });
    expect(refused.turnResult?.transitions.map((x) => x.kind)).toEqual(["validated_progress", "quota_spend_failed"]);
    expect(refused.route).toEqual({ route: "blocked", reason: "the todo is blocked" });
    expect(await t.db.evidence.count({ where: { idempotencyKey: `${s.run.id}:1:action` } })).toBe(1);
    expect(await t.db.step.count({ where: { runId: s.run.id } })).toBe(2);
    expect(await t.db.quotaSpend.count({ where: { goalId: s.goal.id } })).toBe(2);
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: s.todo.id } })).state).toBe("blocked");
    // The run stops for the quota: should-run names the refused spend (the one way a run learns why it stops).
    const verdict = await shouldRun(t.db, { goalId: s.goal.id, agentId: s.agent.id, todoId: s.todo.id });
    expect(verdict).toMatchObject({ decision: "skip", reason: "exhausted" });
    if (verdict.decision === "skip") expect(verdict.message).toMatch(/quota refused the last step's spend: Spending 1 steps would exceed the goal quota/);
  });

  it("a direct endpoint's call past the cap is spent with its row (it was made), and the quota then stops the run", async () => {
    const s = await started();
    await startTodo(t.db, { todoId: s.todo.id, agentId: s.agent.id, leaseKey: s.claim.lease.leaseKey });
    await setQuotaPolicy(t.db, { scope: "goal", goalId: s.goal.id, windowMs: 60_000, maxTokens: 2000 });
    // Another call in flight holds 1000 tokens: this step's call (1200) goes past the cap and is spent all the same.
    await reserveQuota(t.db, { key: rid("model"), goalId: s.goal.id, agentId: s.agent.id, inputTokens: 500, maxOutputTokens: 500, ttlMs: 60_000 });
    const turnResult = { idempotencyKey: `${s.run.id}:0:turn`, kind: "validated_progress" as const, summary: "step 0 done", spend: { key: `${s.run.id}:0:spend`, steps: 1 } };
    const r = await recordStep(t.db, s.record({ turnResult, route: true }));
    expect(r.turnResult).toMatchObject({ kind: "validated_progress", spendError: null });
    const spends = await t.db.quotaSpend.findMany({ where: { goalId: s.goal.id } });
    expect(spends.reduce((n, x) => n + x.tokens, 0)).toBe(1200);
    // No room for a next call: the model proxy refuses to reserve one, and should-run says the quota is exhausted.
    await expect(reserveQuota(t.db, { key: rid("model"), goalId: s.goal.id, agentId: s.agent.id, inputTokens: 100, ttlMs: 60_000 })).rejects.toMatchObject({ code: "QUOTA_EXCEEDED" });
  });

  it("a run resumed by another agent re-sends its predecessor's last step record: answered as recorded, nothing repeated or spent twice", async () => {
    const s = await started();
    await startTodo(t.db, { todoId: s.todo.id, agentId: s.agent.id, leaseKey: s.claim.lease.leaseKey });
    const turn = { idempotencyKey: `${s.run.id}:0:turn`, kind: "validated_progress" as const, summary: "step 0 done", spend: { key: `${s.run.id}:0:spend`, steps: 1 } };
    // The first worker's step record (its post-step checkpoint would ride on the next write-ahead: never sent).
    const first = await recordStep(t.db, s.record({ turnResult: turn, checkpoint: undefined, route: true }));
    expect(first.turnResult).toMatchObject({ duplicate: false });
    // Its tab closes; its lease ends; another agent (a second tab) resumes the run and claims the todo.
    await releaseLease(t.db, { todoId: s.todo.id, agentId: s.agent.id, leaseKey: s.claim.lease.leaseKey, reason: "tab closed" });
    const next = await seedAgent(t.db, { workspaceId: s.goal.workspaceId });
    await resumeRun(t.db, { runId: s.run.id, agentId: next.id });
    const claim = await claimTodo(t.db, { agentId: next.id, todoId: s.todo.id });
    if (!claim.claimed) throw new Error(claim.reason);
    await startTodo(t.db, { todoId: s.todo.id, agentId: next.id, leaseKey: claim.lease.leaseKey });
    // From the checkpoint before, it finds step 0 in flight and records it again under the run's keys.
    const again = await recordStep(t.db, s.record({ agentId: next.id, leaseKey: claim.lease.leaseKey, evidence: [], turnResult: turn, route: true }));
    expect(again.turnResult).toMatchObject({ kind: "validated_progress", duplicate: true });
    expect(again.step?.created).toBe(false);
    expect(again.route?.route).toBe("ready_for_host");
    expect(await t.db.turn.count({ where: { todoId: s.todo.id } })).toBe(1);
    expect(await t.db.quotaSpend.count({ where: { goalId: s.goal.id } })).toBe(2); // its model call and its step, once each

    // The run's key stays the run's: another run's agent using it is CONFLICT.
    const other = await started();
    await startTodo(t.db, { todoId: other.todo.id, agentId: other.agent.id, leaseKey: other.claim.lease.leaseKey });
    const stolen = other.record({ evidence: [], turnResult: { ...turn, summary: "not mine" } });
    expect((await err(recordStep(t.db, stolen)))?.code).toBe("CONFLICT");
  });

  it("a turn key another todo recorded is CONFLICT, and the record writes nothing", async () => {
    const s = await started();
    const other = await started();
    await startTodo(t.db, { todoId: s.todo.id, agentId: s.agent.id, leaseKey: s.claim.lease.leaseKey });
    await startTodo(t.db, { todoId: other.todo.id, agentId: other.agent.id, leaseKey: other.claim.lease.leaseKey });
    const key = rid("turn");
    await recordStep(t.db, other.record({ turnResult: { idempotencyKey: key, kind: "validated_progress", summary: "theirs" } }));
    const mine = s.record({ turnResult: { idempotencyKey: key, kind: "validated_progress", summary: "mine" } });
    expect((await err(recordStep(t.db, mine)))?.code).toBe("CONFLICT");
    expect(await t.db.evidence.count({ where: { runId: s.run.id } })).toBe(0);
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: s.todo.id } })).lastResult).toBeNull();
  });
});
