import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { Id, Text } from "../../domain/schemas.ts";
import { actorOf, type DbOrTx, type OperatorContext } from "../operator.ts";
import { holderTransition, type TransitionResult } from "./held.ts";

export const ReopenTodoInput = z.object({ todoId: Id, reason: Text.max(2000).optional() });
export type ReopenTodoInput = z.input<typeof ReopenTodoInput>;
/** A blocked or failed todo goes back to the pool (after its gate is answered, or by a user). */
export async function reopenTodo(db: DbOrTx, raw: ReopenTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(ReopenTodoInput, raw, "todo.reopen");
  return holderTransition(db, i, "reopen", { actor: actorOf(ctx, undefined), payload: { note: i.reason ?? null } }, ctx);
}
