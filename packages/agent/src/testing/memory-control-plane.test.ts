// The memory double against the ControlPlane contract (the same suite packages/client runs against the real API
// and Postgres), plus what only a test double offers: quota limits set by the test.
import { describe, expect, it } from "vitest";
import { describeControlPlaneContract } from "./control-plane-contract.ts";
import { MemoryControlPlane } from "./memory-control-plane.ts";
import { FakeClock } from "./fake-clock.ts";
import { leaseRefOf } from "../ports.ts";

const STATUS = { approve: "approved", deny: "denied", answer: "answered" } as const;

describeControlPlaneContract("memory double", async () => {
  const clock = new FakeClock();
  const cp = new MemoryControlPlane({ clock });
  return {
    controlPlane: cp,
    resolveGate: async (gateId, d) => cp.resolveGate(gateId, { status: STATUS[d.decision], rationale: d.rationale, ...(d.decision === "answer" ? { answer: d.answer } : {}) }),
    expireGate: async (gateId) => cp.resolveGate(gateId, { status: "expired" }),
    elapse: async (ms) => clock.advance(ms),
    savePolicyRules: async (rules) => void cp.savePolicyRules(rules),
  };
});

describe("memory double: quota limits", () => {
  it("a validated result whose spend would go over the limit is recorded as quota_spend_failed and blocks the todo", async () => {
    const cp = new MemoryControlPlane({ clock: new FakeClock() });
    const { agentId } = await cp.registerAgent({ name: "w", kind: "headless", capabilities: ["phone"] });
    const goal = await cp.createGoal({ objective: "Open items" });
    await cp.replanTodos({ goalId: goal.id, idempotencyKey: "plan", reason: "plan", ops: [{ op: "add", todo: { id: "a", title: "A", kind: "executor", requiredCapabilities: ["phone"] } }] });
    cp.setQuota(goal.id, { steps: 1 });
    const claim = await cp.claimNext({ agentId, goalId: goal.id, ttlMs: 60_000 });
    if (!claim.claimed) throw new Error(claim.reason);
    const ref = leaseRefOf(claim.lease);
    await cp.startTodo(ref);
    const first = await cp.recordTurnResult({ idempotencyKey: "t1", lease: ref, kind: "validated_progress", summary: "step 1", spend: { key: "s1", steps: 1, tokens: 10, microUsd: 5 } });
    expect(first).toMatchObject({ kind: "validated_progress", todo: { state: "running" } });
    expect(await cp.shouldRun({ agentId, goalId: goal.id })).toMatchObject({ decision: "skip", reason: "exhausted" });
    const second = await cp.recordTurnResult({ idempotencyKey: "t2", lease: ref, kind: "validated_progress", summary: "step 2", spend: { key: "s2", steps: 1, tokens: 10, microUsd: 5 } });
    expect(second).toMatchObject({ kind: "quota_spend_failed", todo: { state: "blocked", lastResult: "quota_spend_failed" } });
    expect(cp.spent.get(goal.id)).toEqual({ steps: 1, tokens: 10, microUsd: 5 });
  });
});
