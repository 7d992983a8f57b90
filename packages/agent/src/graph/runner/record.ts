// The record effect family: the writes the planner's and the summarizer's transitions ask for — evidence, the run's
// finish, a todo's turn result, a replan — performed in order against the state core. (The executor's writes go out
// as step records: graph/runner/step-record.ts.)
import { ControlPlaneConflict, type EvidenceInput, type RunEndReason, type RunEndStatus, type Todo } from "../../ports.ts";
import type { PlannerEffect } from "../planner.ts";
import type { RunCommon, RunContext } from "../state.ts";

export type RecordEffect =
  | { type: "evidence"; input: EvidenceInput }
  | { type: "finish_run"; status: RunEndStatus; endReason: RunEndReason; summary: string };

export async function record(ctx: RunContext, run: Pick<RunCommon, "runId" | "goalId" | "agentId">, e: RecordEffect): Promise<void> {
  const cp = ctx.ports.controlPlane;
  switch (e.type) {
    case "evidence":
      await cp.appendEvidence(e.input);
      return;
    case "finish_run":
      await cp.finishRun({ runId: run.runId, agentId: run.agentId, status: e.status, endReason: e.endReason, summary: e.summary });
  }
}

/** A turn result under a lease this run holds: the todo after it (null when tolerated: the lease was another worker's by then). */
export async function recordTurn(ctx: RunContext, e: Extract<PlannerEffect, { type: "turn_result" }>): Promise<Todo | null> {
  const { type: _type, tolerateConflict, ...input } = e;
  try {
    return (await ctx.ports.controlPlane.recordTurnResult(input)).todo;
  } catch (err) {
    if (tolerateConflict && err instanceof ControlPlaneConflict) return null;
    throw err;
  }
}

/** The goal's todos after a replan (the initial plan, or a supervisor's replacements). */
export function replan(ctx: RunContext, run: Pick<RunCommon, "goalId">, e: Extract<PlannerEffect, { type: "replan" }>): Promise<Todo[]> {
  return ctx.ports.controlPlane.replanTodos({ goalId: run.goalId, idempotencyKey: e.idempotencyKey, reason: e.reason, ops: e.ops });
}
