import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { actorOf, type DbOrTx, type OperatorContext } from "../operator.ts";
import { holderTransition, type TransitionResult } from "./held.ts";
import { HolderFields } from "./holder-input.ts";
import { Text } from "../../domain/schemas.ts";

export const BlockTodoInput = z.object({ ...HolderFields, reason: Text.trim().min(1).max(2000) });
export type BlockTodoInput = z.input<typeof BlockTodoInput>;
export async function blockTodo(db: DbOrTx, raw: BlockTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(BlockTodoInput, raw, "todo.block");
  return holderTransition(db, i, "block", { actor: actorOf(ctx, i.agentId), patch: { reason: i.reason } }, ctx);
}
