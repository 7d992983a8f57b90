// One goal as an agent reads it before working on it: objective, bounds, non-goals, acceptance, status.
import { z } from "zod";
import type { Goal } from "../generated/prisma/client.ts";
import { StateError } from "../domain/errors.ts";
import { parseInput } from "../domain/input.ts";
import { Id } from "../domain/schemas.ts";
import type { DbOrTx } from "../services/operator.ts";

export const GoalDetailInput = z.object({ goalId: Id });
export type GoalDetailInput = z.input<typeof GoalDetailInput>;

export async function goalDetail(db: DbOrTx, raw: GoalDetailInput): Promise<Goal> {
  const i = parseInput(GoalDetailInput, raw, "goalDetail");
  const goal = await db.goal.findUnique({ where: { id: i.goalId } });
  if (!goal) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
  return goal;
}
