import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { actorOf, type DbOrTx, type OperatorContext } from "../operator.ts";
import { holderTransition, type TransitionResult } from "./held.ts";
import { HolderFields } from "./holder-input.ts";
import { Text } from "../../domain/schemas.ts";

export const FailTodoInput = z.object({ ...HolderFields, reason: Text.trim().min(1).max(2000) });
export type FailTodoInput = z.input<typeof FailTodoInput>;
export async function failTodo(db: DbOrTx, raw: FailTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(FailTodoInput, raw, "todo.fail");
  return holderTransition(db, i, "fail", { actor: actorOf(ctx, i.agentId), patch: { reason: i.reason } }, ctx);
}
