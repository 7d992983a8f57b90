// A gate's todo after the gate closes: gate.open blocked it, so whoever closes the gate (an answer, a denial, its
// expiry) gives it back to the pool in the same transaction once no other gate holds it. The runtime waiting on
// the gate then claims it again and acts on the answer (a denial is told to the model, which finds another way).
import type { Gate } from "../../generated/prisma/client.ts";
import type { OperatorContext, Tx } from "../operator.ts";
import { applyTodoTransition, lockTodo } from "../todo/held.ts";

export async function reopenGatedTodo(tx: Tx, gate: Pick<Gate, "todoId">, actor: string, operator: string, ctx?: OperatorContext): Promise<{ id: string; from: string; to: string } | null> {
  if (!gate.todoId) return null;
  const todo = await lockTodo(tx, gate.todoId, ctx);
  const stillOpen = await tx.gate.count({ where: { todoId: todo.id, status: "open" } });
  if (todo.state !== "blocked" || stillOpen > 0) return null;
  const moved = await applyTodoTransition(tx, todo, "reopen", { actor, withinEventOf: operator, patch: { reason: null } }, ctx);
  return { id: todo.id, from: moved.from, to: moved.to };
}
