import { z } from "zod";
import type { Run, Step } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { Count, Id, Text, jsonValue } from "../../domain/schemas.ts";
import { StepAction, StepOutcome } from "../../domain/evidence.ts";
import { actorOf, clockDate, appendEvent, inTx, randomId, type DbOrTx, type EventInput, type OperatorContext, type Tx } from "../operator.ts";
import { lockRun, requireRunning } from "./run-guards.ts";

export const AppendStepInput = z.object({
  runId: Id,
  agentId: Id.optional(),
  index: Count,
  node: Text.trim().min(1).max(100),
  action: jsonValue().pipe(StepAction).optional(),
  /** The step's outcome (domain/evidence.ts StepOutcome). Its screenshot is its observation evidence's blob, never the step's. */
  outcome: jsonValue().pipe(StepOutcome).optional(),
  anomalies: z.array(Text.max(200)).default([]),
  tokens: Count.default(0),
});
export type AppendStepInput = z.input<typeof AppendStepInput>;

/** Appends step `index`; appending the same index again returns the first step (a resumed worker may repeat it). */
export async function appendStep(db: DbOrTx, raw: AppendStepInput, ctx?: OperatorContext): Promise<{ step: Step; created: boolean }> {
  const i = parseInput(AppendStepInput, raw, "run.appendStep");
  return inTx(db, async (tx) => appendStepTo(tx, await lockRun(tx, i.runId), i, ctx));
}

/**
 * appendStep on a run the caller locked in this transaction (a step record). A running run takes the row in one
 * statement (an index taken before is answered with its first row); a run that is not running, or is driven by
 * another agent, still answers a step recorded before and refuses a new one. Its Event goes into `events` when given.
 */
export async function appendStepTo(tx: Tx, run: Run, i: z.output<typeof AppendStepInput> & { memberId?: string }, ctx?: OperatorContext, events?: EventInput[]): Promise<{ step: Step; created: boolean }> {
  const first = () => tx.step.findUnique({ where: { runId_index: { runId: run.id, index: i.index } } });
  try {
    requireRunning(run, i.agentId, "append a step to");
  } catch (e) {
    const existing = await first();
    if (existing) return { step: existing, created: false };
    throw e;
  }
  const id = randomId("step");
  // The client's clock as the row's time, as Prisma's default would stamp it (not the transaction's start).
  const at = clockDate(ctx) ?? new Date();
  const rows = await tx.$queryRaw<Step[]>`
    INSERT INTO "Step" ("id", "runId", "index", "node", "action", "outcome", "anomalies", "tokens", "memberId", "createdAt")
    VALUES (${id}, ${run.id}, ${i.index}, ${i.node}, ${i.action == null ? null : JSON.stringify(i.action)}::jsonb, ${i.outcome == null ? null : JSON.stringify(i.outcome)}::jsonb,
            ${i.anomalies}::text[], ${i.tokens}, ${i.memberId ?? null}, ${at}::timestamptz)
    ON CONFLICT ("runId", "index") DO NOTHING RETURNING *`;
  const step = rows[0];
  if (!step) return { step: (await first())!, created: false };
  const event: EventInput = { operator: "run.appendStep", actor: actorOf(ctx, i.agentId ?? run.agentId), subjectId: step.id, goalId: run.goalId, payload: { runId: run.id, index: i.index, node: i.node, anomalies: i.anomalies, ...(i.memberId ? { memberId: i.memberId } : {}) } };
  if (events) events.push(event);
  else await appendEvent(tx, event, ctx);
  return { step, created: true };
}
