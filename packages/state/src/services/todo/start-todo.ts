import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { Id, IdempotencyKey } from "../../domain/schemas.ts";
import { actorOf, type DbOrTx, type OperatorContext } from "../operator.ts";
import { holderTransition, type TransitionResult } from "./held.ts";
import { HolderFields } from "./holder-input.ts";

export const StartTodoInput = z.object({ ...HolderFields, agentId: Id, leaseKey: IdempotencyKey });
export type StartTodoInput = z.input<typeof StartTodoInput>;
export async function startTodo(db: DbOrTx, raw: StartTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(StartTodoInput, raw, "todo.start");
  return holderTransition(db, i, "start", { actor: actorOf(ctx, i.agentId), requireActiveGoal: true }, ctx);
}
