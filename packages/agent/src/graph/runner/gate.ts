// The gate effect family: opening a gate in the state core (which blocks the todo and ends this lease in the same
// transaction) with the evidence it shows, and waiting for its answer. The executor only waits and reads.
import type { InputEffect, Observation } from "../executor.ts";
import type { ExecutorRunState, RunContext } from "../state.ts";
import type { StepRecords } from "./step-record.ts";

export async function openGate(ctx: RunContext, state: ExecutorRunState, e: Extract<InputEffect, { type: "open_gate" }>, records: StepRecords): Promise<Observation> {
  const { gateId } = await ctx.ports.controlPlane.openGate({
    idempotencyKey: e.idempotencyKey,
    goalId: state.goalId,
    todoId: state.executor.todoId,
    runId: state.runId,
    question: e.question,
    options: e.options,
    evidenceIds: records.evidenceIds(e.evidenceKeys),
    kind: e.kind,
    ...(e.takeoverReason ? { takeoverReason: e.takeoverReason } : {}),
    tier: e.tier,
    action: e.action,
    policy: e.policy,
    lease: e.lease,
  });
  return { type: "gate_opened", gateId };
}

export async function waitGate(ctx: RunContext, e: Extract<InputEffect, { type: "wait_gate" }>, state: ExecutorRunState): Promise<Observation> {
  try {
    const resolution = await ctx.ports.controlPlane.waitForGate(e.gateId, ctx.signal);
    const pending = state.executor.pendingGate;
    // Only a takeover moves the run's steps on: the agent's own ask, or a gate it did not open (a person took over).
    const takeover = pending?.gateId === e.gateId ? pending.action.type === "ask_takeover" : true;
    if (!takeover || resolution.status !== "answered") return { type: "gate_resolved", gateId: e.gateId, resolution };
    return { type: "gate_resolved", gateId: e.gateId, resolution, nextStepIndex: await nextStepIndex(ctx, state) };
  } catch (err) {
    if (ctx.signal?.aborted) return { type: "cancelled" };
    throw err;
  }
}

/**
 * The run's next free step index after a takeover: the person's steps took the run's next indexes (each with its
 * action evidence), so the agent goes on after the last of them.
 */
async function nextStepIndex(ctx: RunContext, state: ExecutorRunState): Promise<number> {
  const actions = await ctx.ports.controlPlane.listEvidence({ goalId: state.goalId, runId: state.runId, kind: "action" });
  return actions.reduce((next, a) => (a.stepIndex === null ? next : Math.max(next, a.stepIndex + 1)), state.stepIndex);
}
