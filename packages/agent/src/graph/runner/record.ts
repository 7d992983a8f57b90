// The record effect family: the writes the planner's and the summarizer's transitions ask for — evidence, the quota
// spend of their own model calls, the run's finish — performed in order against the state core. Nothing comes back from them. (The executor's writes go out
// as step records: graph/runner/step-record.ts.)
import type { EvidenceInput, RunEndReason, RunEndStatus } from "../../ports.ts";
import type { RunCommon, RunContext } from "../state.ts";

export type RecordEffect =
  | { type: "evidence"; input: EvidenceInput }
  /** What the runtime still owes for a model call the run made outside any todo's turn result. */
  | { type: "spend"; key: string; tokens: number; microUsd: number }
  | { type: "finish_run"; status: RunEndStatus; endReason: RunEndReason; summary: string };

export async function record(ctx: RunContext, run: Pick<RunCommon, "runId" | "goalId" | "agentId">, e: RecordEffect): Promise<void> {
  const cp = ctx.ports.controlPlane;
  switch (e.type) {
    case "evidence":
      await cp.appendEvidence(e.input);
      return;
    case "spend":
      await cp.spendQuota({ key: e.key, agentId: run.agentId, goalId: run.goalId, runId: run.runId, steps: 0, tokens: e.tokens, microUsd: e.microUsd });
      return;
    case "finish_run":
      await cp.finishRun({ runId: run.runId, agentId: run.agentId, status: e.status, endReason: e.endReason, summary: e.summary });
  }
}
