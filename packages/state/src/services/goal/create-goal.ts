import { z } from "zod";
import type { Goal } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { StateError } from "../../domain/errors.ts";
import { Id, LongText, ShortText } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";

export const CreateGoalInput = z.object({
  id: Id.optional(),
  title: ShortText,
  objective: LongText.min(1),
  bounds: z.array(ShortText).default([]),
  nonGoals: z.array(ShortText).default([]),
  acceptance: z.array(ShortText).default([]),
  /** The workspace the goal belongs to (the API sets the caller's). */
  workspaceId: Id,
});
export type CreateGoalInput = z.input<typeof CreateGoalInput>;

export async function createGoal(db: DbOrTx, raw: CreateGoalInput, ctx?: OperatorContext): Promise<Goal> {
  const input = parseInput(CreateGoalInput, raw, "goal.create");
  return inTx(db, async (tx) => {
    const goal = await tx.goal.create({
      data: {
        id: input.id ?? randomId("goal"),
        title: input.title,
        objective: input.objective,
        bounds: input.bounds,
        nonGoals: input.nonGoals,
        acceptance: input.acceptance,
        workspaceId: input.workspaceId,
        createdBy: actorOf(ctx, undefined),
        ...(ctx?.clock ? { createdAt: new Date(ctx.clock.now()), updatedAt: new Date(ctx.clock.now()) } : {}),
      },
    });
    await appendEvent(tx, { operator: "goal.create", actor: actorOf(ctx, undefined), subjectId: goal.id, goalId: goal.id, payload: { title: goal.title } }, ctx);
    return goal;
  }).catch((e: unknown) => {
    if ((e as { code?: string }).code === "P2002") {
      throw new StateError("CONFLICT", `A goal with id ${input.id} already exists; pick another id or omit it.`, { goalId: input.id });
    }
    throw e;
  });
}
