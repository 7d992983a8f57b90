// One attempt's outcome joins its suite run: the task, the seed, the run (its replay) and the evaluator's score with
// what it cost. The task, seed and trial are the key: recording them again returns the first outcome and changes nothing.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { BigCount, Count, Id, Text } from "../../domain/schemas.ts";
import { actorOf, appendEvent, currentTime, inTx, isUniqueViolation, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { suiteAttemptViewOf, type SuiteAttemptView } from "./suite-run-view.ts";

export const RecordSuiteAttemptInput = z.object({
  suiteRunId: Id,
  taskId: Text.trim().min(1).max(200),
  seed: Count,
  /** Which trial of this task and seed (1 when the suite runs one). */
  trial: z.number().int().min(1).max(100).default(1),
  /** The agent's run; absent when the attempt failed before a run began (the reason says why). */
  runId: Id.nullish(),
  score: z.number().min(0).max(1),
  reason: Text.max(2000),
  steps: Count,
  inputTokens: Count,
  outputTokens: Count,
  costMicroUsd: BigCount,
  durationMs: Count,
  /** With shared learning: the place the attempt started in (1, 2, …), recorded in its suite.recordAttempt Event. */
  order: z.number().int().min(1).max(1_000_000).optional(),
});
export type RecordSuiteAttemptInput = z.input<typeof RecordSuiteAttemptInput>;

export async function recordSuiteAttempt(db: DbOrTx, raw: RecordSuiteAttemptInput, ctx?: OperatorContext): Promise<SuiteAttemptView> {
  const i = parseInput(RecordSuiteAttemptInput, raw, "suite.recordAttempt");
  const existing = () => db.suiteAttempt.findUnique({ where: { suiteRunId_taskId_seed_trial: { suiteRunId: i.suiteRunId, taskId: i.taskId, seed: i.seed, trial: i.trial } } });
  const first = await existing();
  if (first) return suiteAttemptViewOf(first);
  try {
    return await inTx(db, async (tx) => {
      const suite = await tx.suiteRun.findUnique({ where: { id: i.suiteRunId }, select: { workspaceId: true, status: true } });
      if (!suite) throw new StateError("NOT_FOUND", `Suite run ${i.suiteRunId} does not exist.`, { suiteRunId: i.suiteRunId });
      if (suite.status !== "running") {
        throw new StateError("ILLEGAL_TRANSITION", `Suite run ${i.suiteRunId} is ${suite.status}: it takes no more attempts. Start a new suite run.`, { suiteRunId: i.suiteRunId, status: suite.status });
      }
      if (i.runId) {
        const run = await tx.run.findUnique({ where: { id: i.runId }, select: { goal: { select: { workspaceId: true } } } });
        if (!run || run.goal.workspaceId !== suite.workspaceId) throw new StateError("NOT_FOUND", `Run ${i.runId} does not exist.`, { runId: i.runId });
      }
      const actor = actorOf(ctx, undefined);
      const row = await tx.suiteAttempt.create({
        data: {
          id: randomId("attempt"),
          suiteRunId: i.suiteRunId,
          taskId: i.taskId,
          seed: i.seed,
          trial: i.trial,
          runId: i.runId ?? null,
          score: i.score,
          reason: i.reason,
          steps: i.steps,
          inputTokens: i.inputTokens,
          outputTokens: i.outputTokens,
          costMicroUsd: BigInt(i.costMicroUsd),
          durationMs: i.durationMs,
          createdAt: await currentTime(tx, ctx),
        },
      });
      await appendEvent(tx, { operator: "suite.recordAttempt", actor, subjectId: row.id, workspaceId: suite.workspaceId, payload: { suiteRunId: i.suiteRunId, taskId: i.taskId, seed: i.seed, trial: i.trial, score: i.score, runId: i.runId ?? null, ...(i.order ? { order: i.order } : {}) } }, ctx);
      return suiteAttemptViewOf(row);
    });
  } catch (e) {
    // a concurrent record of the same task, seed and trial won: its outcome is the one
    if (isUniqueViolation(e)) {
      const won = await existing();
      if (won) return suiteAttemptViewOf(won);
    }
    throw e;
  }
}
