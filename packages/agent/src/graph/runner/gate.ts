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

export async function waitGate(ctx: RunContext, e: Extract<InputEffect, { type: "wait_gate" }>): Promise<Observation> {
  try {
    return { type: "gate_resolved", gateId: e.gateId, resolution: await ctx.ports.controlPlane.waitForGate(e.gateId, ctx.signal) };
  } catch (err) {
    if (ctx.signal?.aborted) return { type: "cancelled" };
    throw err;
  }
}
