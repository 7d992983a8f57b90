import { z } from "zod";
import type { Run } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { lockRun, requireRunning } from "./run-guards.ts";

export const ResumeRunInput = z.object({ runId: Id, agentId: Id });
export type ResumeRunInput = z.input<typeof ResumeRunInput>;

/** Another worker takes a running run over and continues from its last checkpoint (returned on the run). */
export async function resumeRun(db: DbOrTx, raw: ResumeRunInput, ctx?: OperatorContext): Promise<Run & { lastStepIndex: number | null }> {
  const i = parseInput(ResumeRunInput, raw, "run.resume");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    requireRunning(run, undefined, "resume");
    if (!(await tx.agent.findUnique({ where: { id: i.agentId }, select: { id: true } }))) throw new StateError("NOT_FOUND", `Agent ${i.agentId} is not registered.`, { agentId: i.agentId });
    const resumed = await tx.run.update({ where: { id: run.id }, data: { agentId: i.agentId } });
    const last = await tx.step.aggregate({ where: { runId: run.id }, _max: { index: true } });
    await appendEvent(tx, { operator: "run.resume", actor: actorOf(ctx, i.agentId), subjectId: run.id, goalId: run.goalId, payload: { from: run.agentId, to: i.agentId } }, ctx);
    return { ...resumed, lastStepIndex: last._max.index ?? null };
  });
}
