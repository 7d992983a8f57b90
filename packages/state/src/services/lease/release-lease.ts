import { z } from "zod";
import type { Todo } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { nextTodoState } from "../../domain/todo-transitions.ts";
import { actorOf, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { applyTodoTransition, lockTodo, requireHolder } from "../todo/held.ts";
import { LeaseRef } from "./lease-ref.ts";
import { Text } from "../../domain/schemas.ts";

export const ReleaseLeaseInput = z.object({ ...LeaseRef, reason: Text.max(2000).optional() });
export type ReleaseLeaseInput = z.input<typeof ReleaseLeaseInput>;

/** Gives the todo back to the pool (todo → pending) and ends the lease. */
export async function releaseLease(db: DbOrTx, raw: ReleaseLeaseInput, ctx?: OperatorContext): Promise<{ todo: Todo }> {
  const i = parseInput(ReleaseLeaseInput, raw, "lease.release");
  return inTx(db, async (tx) => {
    const todo = await lockTodo(tx, i.todoId, ctx);
    nextTodoState(todo.state, "release", todo.id);
    const lease = await requireHolder(tx, todo, i);
    const r = await applyTodoTransition(tx, todo, "release", { actor: actorOf(ctx, i.agentId), lease, operator: "lease.release", patch: { reason: i.reason ?? null } }, ctx);
    return { todo: r.todo };
  });
}
