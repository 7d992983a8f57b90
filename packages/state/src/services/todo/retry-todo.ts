import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { Id, IdempotencyKey, Text } from "../../domain/schemas.ts";
import { actorOf, type DbOrTx, type OperatorContext } from "../operator.ts";
import { holderTransition, type TransitionResult } from "./held.ts";
import { HolderFields } from "./holder-input.ts";

export const RetryTodoInput = z.object({ ...HolderFields, agentId: Id, leaseKey: IdempotencyKey, result: Text.trim().min(1).max(2000) });
export type RetryTodoInput = z.input<typeof RetryTodoInput>;
export async function retryTodo(db: DbOrTx, raw: RetryTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(RetryTodoInput, raw, "todo.retry");
  return holderTransition(db, i, "retry", { actor: actorOf(ctx, i.agentId), patch: { lastResult: i.result } }, ctx);
}
