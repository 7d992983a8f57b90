import { z } from "zod";
import type { Run } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id } from "../../domain/schemas.ts";
import { actorOf, appendEvent, currentTime, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { lockRun, requireRunning } from "./run-guards.ts";

export const ResumeRunInput = z.object({ runId: Id, agentId: Id });
export type ResumeRunInput = z.input<typeof ResumeRunInput>;

/**
 * A worker takes a running or interrupted run over and continues from its last checkpoint (returned on the run).
 * The same agent resuming is a restarted worker: it takes over at once. Another agent waits while the run's
 * worker still holds a lease on one of the goal's todos: a CONFLICT naming the holder and until when (the run
 * itself is untouched, so resuming early never ends it).
 */
export async function resumeRun(db: DbOrTx, raw: ResumeRunInput, ctx?: OperatorContext): Promise<Run & { lastStepIndex: number | null }> {
  const i = parseInput(ResumeRunInput, raw, "run.resume");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    requireRunning(run, undefined, "resume", { interrupted: true });
    if (!(await tx.agent.findUnique({ where: { id: i.agentId }, select: { id: true } }))) throw new StateError("NOT_FOUND", `Agent ${i.agentId} is not registered.`, { agentId: i.agentId });
    if (run.agentId !== i.agentId) {
      const now = await currentTime(tx, ctx);
      const held = await tx.lease.findFirst({
        where: { status: "active", ownerId: run.agentId, expiresAt: { gt: now }, todo: { goalId: run.goalId } },
        orderBy: { expiresAt: "desc" },
      });
      if (held) {
        throw new StateError(
          "CONFLICT",
          `Run ${run.id} is driven by ${run.agentId}, which holds todo ${held.todoId} until ${held.expiresAt.toISOString()}; wait until then (or until it stops) and resume again.`,
          { runId: run.id, currentHolder: run.agentId, todoId: held.todoId, expiresAt: held.expiresAt.toISOString(), currentEpoch: held.epoch },
        );
      }
    }
    const resumed = await tx.run.update({ where: { id: run.id }, data: { agentId: i.agentId, status: "running" } });
    const last = await tx.step.aggregate({ where: { runId: run.id }, _max: { index: true } });
    await appendEvent(tx, { operator: "run.resume", actor: actorOf(ctx, i.agentId), subjectId: run.id, goalId: run.goalId, payload: { from: run.agentId, to: i.agentId, fromStatus: run.status } }, ctx);
    return { ...resumed, lastStepIndex: last._max.index ?? null };
  });
}
