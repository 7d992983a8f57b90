import { z } from "zod";
import type { Run } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, Text } from "../../domain/schemas.ts";
import { RUN_END_STATUSES, RunEndReasonSchema } from "../../domain/run.ts";
import { actorOf, appendEvent, atParam, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { lockRun, requireRunning } from "./run-guards.ts";
import { phoneSerialOf } from "./run-stop.ts";
import { validateSkillsByUse } from "../skill/validate-by-use.ts";

export const FinishRunInput = z.object({
  runId: Id,
  agentId: Id.optional(),
  status: z.enum(RUN_END_STATUSES),
  /** Why the run ended, in the runtime's words (RUN_END_REASONS). */
  endReason: RunEndReasonSchema.optional(),
  summary: Text.max(5000).optional(),
});
export type FinishRunInput = z.input<typeof FinishRunInput>;

export async function finishRun(db: DbOrTx, raw: FinishRunInput, ctx?: OperatorContext): Promise<Run> {
  const i = parseInput(FinishRunInput, raw, "run.finish");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    // A person (no agentId) may end an interrupted run; a worker resumes it first.
    requireRunning(run, i.agentId, "finish", { interrupted: !i.agentId });
    const at = atParam(ctx);
    const rows = await tx.$queryRaw<{ endedAt: Date }[]>`SELECT COALESCE(${at}::timestamptz, now()) AS "endedAt"`;
    // The phone the run drove, kept with its end: a run stopped for a lost phone resumes with that phone only.
    const agent = await tx.agent.findUnique({ where: { id: run.agentId }, select: { meta: true } });
    const deviceSerial = phoneSerialOf(agent?.meta);
    const done = await tx.run.update({ where: { id: run.id }, data: { status: i.status, endReason: i.endReason ?? null, summary: i.summary ?? null, endedAt: rows[0]!.endedAt } });
    await validateSkillsByUse(tx, run, ctx);
    await appendEvent(tx, { operator: "run.finish", actor: actorOf(ctx, i.agentId ?? run.agentId), subjectId: run.id, goalId: run.goalId, payload: { status: i.status, endReason: i.endReason ?? null, summary: i.summary ?? null, ...(deviceSerial ? { deviceSerial } : {}) } }, ctx);
    return done;
  });
}
