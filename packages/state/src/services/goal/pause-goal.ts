import type { Goal } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { GoalStatusChangeInput, transitionGoal } from "./transition-goal.ts";

export const PauseGoalInput = GoalStatusChangeInput;
export type PauseGoalInput = GoalStatusChangeInput;

export async function pauseGoal(db: DbOrTx, raw: PauseGoalInput, ctx?: OperatorContext): Promise<Goal> {
  const input = parseInput(GoalStatusChangeInput, raw, "goal.pause");
  return inTx(db, (tx) => transitionGoal(tx, input.goalId, "pause", input.reason, ctx));
}
