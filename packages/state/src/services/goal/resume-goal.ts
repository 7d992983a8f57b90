import type { Goal } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { GoalStatusChangeInput, transitionGoal } from "./transition-goal.ts";

export const ResumeGoalInput = GoalStatusChangeInput;
export type ResumeGoalInput = GoalStatusChangeInput;

export async function resumeGoal(db: DbOrTx, raw: ResumeGoalInput, ctx?: OperatorContext): Promise<Goal> {
  const input = parseInput(GoalStatusChangeInput, raw, "goal.resume");
  return inTx(db, (tx) => transitionGoal(tx, input.goalId, "resume", input.reason, ctx));
}
