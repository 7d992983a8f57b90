// A person (or the validating operator) completes a goal whose work is done; the attention queue proposes it
// (goal_done) once every todo is done or superseded. Completing is never automatic: acceptance is a judgement.
import type { Goal } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { GoalStatusChangeInput, transitionGoal } from "./transition-goal.ts";

export const CompleteGoalInput = GoalStatusChangeInput;
export type CompleteGoalInput = GoalStatusChangeInput;

export async function completeGoal(db: DbOrTx, raw: CompleteGoalInput, ctx?: OperatorContext): Promise<Goal> {
  const input = parseInput(GoalStatusChangeInput, raw, "goal.complete");
  return inTx(db, async (tx) => {
    const open = await tx.todo.findFirst({ where: { goalId: input.goalId, state: { notIn: ["done", "superseded"] } }, orderBy: { position: "asc" }, select: { id: true, title: true, state: true } });
    if (open) {
      throw new StateError("PRECONDITION_FAILED", `Goal ${input.goalId} still has work: todo ${open.id} ("${open.title}") is ${open.state}. Finish, supersede or replan it first.`, {
        goalId: input.goalId,
        todoId: open.id,
        state: open.state,
      });
    }
    return transitionGoal(tx, input.goalId, "complete", input.reason, ctx);
  });
}
