import type { Goal } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { GoalStatusChangeInput, transitionGoal } from "./transition-goal.ts";

export const CancelGoalInput = GoalStatusChangeInput;
export type CancelGoalInput = GoalStatusChangeInput;

export async function cancelGoal(db: DbOrTx, raw: CancelGoalInput, ctx?: OperatorContext): Promise<Goal> {
  const input = parseInput(GoalStatusChangeInput, raw, "goal.cancel");
  return inTx(db, (tx) => transitionGoal(tx, input.goalId, "cancel", input.reason, ctx));
}
