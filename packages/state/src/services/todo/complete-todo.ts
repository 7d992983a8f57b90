import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { actorOf, type DbOrTx, type OperatorContext } from "../operator.ts";
import { holderTransition, type TransitionResult } from "./held.ts";
import { WritebackFields } from "./holder-input.ts";

export const CompleteTodoInput = z.object(WritebackFields);
export type CompleteTodoInput = z.input<typeof CompleteTodoInput>;
export async function completeTodo(db: DbOrTx, raw: CompleteTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(CompleteTodoInput, raw, "todo.complete");
  return holderTransition(db, i, "complete", { actor: actorOf(ctx, i.agentId), patch: { values: i.values, outputs: i.outputs, lastResult: i.result ?? "validated_completion" } }, ctx);
}
