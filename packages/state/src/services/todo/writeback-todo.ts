import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { actorOf, type DbOrTx, type OperatorContext } from "../operator.ts";
import { holderTransition, type TransitionResult } from "./held.ts";
import { WritebackFields } from "./holder-input.ts";

export const WritebackTodoInput = z.object(WritebackFields);
export type WritebackTodoInput = z.input<typeof WritebackTodoInput>;
export async function writebackTodo(db: DbOrTx, raw: WritebackTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(WritebackTodoInput, raw, "todo.writeback");
  return holderTransition(db, i, "writeback", { actor: actorOf(ctx, i.agentId), patch: { values: i.values, outputs: i.outputs, lastResult: i.result ?? "validated_progress" } }, ctx);
}
