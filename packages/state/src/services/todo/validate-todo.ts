import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { Id, IdempotencyKey, Text } from "../../domain/schemas.ts";
import { actorOf, type DbOrTx, type OperatorContext } from "../operator.ts";
import { holderTransition, type TransitionResult } from "./held.ts";
import { HolderFields } from "./holder-input.ts";

export const ValidateTodoInput = z.object({ ...HolderFields, agentId: Id, leaseKey: IdempotencyKey, summary: Text.max(2000).optional() });
export type ValidateTodoInput = z.input<typeof ValidateTodoInput>;
export async function validateTodo(db: DbOrTx, raw: ValidateTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(ValidateTodoInput, raw, "todo.validate");
  return holderTransition(db, i, "validate", { actor: actorOf(ctx, i.agentId), payload: { summary: i.summary ?? null } }, ctx);
}
