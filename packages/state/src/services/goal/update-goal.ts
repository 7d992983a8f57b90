import { z } from "zod";
import type { Goal } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Count, Id, LongText, ShortText } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";

export const UpdateGoalInput = z.object({
  goalId: Id,
  /** The version the caller read; the update applies only if nobody changed the goal since. */
  version: Count.min(1),
  title: ShortText.optional(),
  objective: LongText.min(1).optional(),
  bounds: z.array(ShortText).optional(),
  nonGoals: z.array(ShortText).optional(),
  acceptance: z.array(ShortText).optional(),
});
export type UpdateGoalInput = z.input<typeof UpdateGoalInput>;

export async function updateGoal(db: DbOrTx, raw: UpdateGoalInput, ctx?: OperatorContext): Promise<Goal> {
  const { goalId, version, ...patch } = parseInput(UpdateGoalInput, raw, "goal.update");
  return inTx(db, async (tx) => {
    const changed = await tx.goal.updateMany({
      where: { id: goalId, version },
      data: { ...patch, version: { increment: 1 }, ...(ctx?.clock ? { updatedAt: new Date(ctx.clock.now()) } : {}) },
    });
    if (changed.count === 0) {
      const current = await tx.goal.findUnique({ where: { id: goalId }, select: { version: true } });
      if (!current) throw new StateError("NOT_FOUND", `Goal ${goalId} does not exist.`, { goalId });
      throw new StateError(
        "CONFLICT",
        `Goal ${goalId} changed since you read it (you had version ${version}, it is now ${current.version}). Reload it and apply your edit again.`,
        { goalId, expectedVersion: version, currentVersion: current.version },
      );
    }
    const goal = await tx.goal.findUniqueOrThrow({ where: { id: goalId } });
    await appendEvent(tx, { operator: "goal.update", actor: actorOf(ctx, undefined), subjectId: goalId, goalId, payload: { fields: Object.keys(patch), version: goal.version } }, ctx);
    return goal;
  });
}
