// pause, resume, cancel: one rule table (domain/goal-transitions.ts), one way to apply it.
import { z } from "zod";
import type { Goal } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { nextGoalStatus, type GoalEvent } from "../../domain/goal-transitions.ts";
import { Id, Text } from "../../domain/schemas.ts";
import { actorOf, appendEvent, atParam, type OperatorContext, type Tx } from "../operator.ts";

export const GoalStatusChangeInput = z.object({ goalId: Id, reason: Text.max(2000).optional() });
export type GoalStatusChangeInput = z.input<typeof GoalStatusChangeInput>;

export async function transitionGoal(tx: Tx, goalId: string, event: GoalEvent, reason: string | undefined, ctx?: OperatorContext): Promise<Goal> {
  const rows = await tx.$queryRaw<{ status: Goal["status"] }[]>`SELECT "status" FROM "Goal" WHERE "id" = ${goalId} FOR UPDATE`;
  const row = rows[0];
  if (!row) throw new StateError("NOT_FOUND", `Goal ${goalId} does not exist.`, { goalId });
  const to = nextGoalStatus(row.status, event, goalId);
  const at = atParam(ctx);
  const goal = await tx.goal.update({
    where: { id: goalId },
    data: { status: to, version: { increment: 1 }, ...(at ? { updatedAt: at } : {}) },
  });
  let leasesEnded = 0;
  if (to === "cancelled") {
    // A cancelled goal's holders lose their leases; their next write is rejected as a conflict.
    // Todo versions first (they fence the one-statement holder path), then the leases.
    await tx.$executeRaw`
      UPDATE "Todo" t SET "version" = t."version" + 1
      WHERE t."goalId" = ${goalId} AND EXISTS (SELECT 1 FROM "Lease" l WHERE l."todoId" = t."id" AND l."status" = 'active')`;
    leasesEnded = await tx.$executeRaw`
      UPDATE "Lease" l SET "status" = 'released', "endedAt" = COALESCE(${at}::timestamptz, now()), "version" = l."version" + 1
      FROM "Todo" t WHERE l."todoId" = t."id" AND t."goalId" = ${goalId} AND l."status" = 'active'`;
  }
  await appendEvent(tx, { operator: `goal.${event}`, actor: actorOf(ctx, undefined), subjectId: goalId, goalId, payload: { from: row.status, to, reason: reason ?? null, leasesEnded } }, ctx);
  return goal;
}
