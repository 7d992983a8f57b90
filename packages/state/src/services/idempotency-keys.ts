// Idempotency keys are the workspace's (migration workspace_idempotency_keys): evidence, gates, turns and replans
// are unique per (workspaceId, idempotencyKey), the row's workspace being its goal's (set on insert). A repeat is
// looked up in the workspace the caller writes to — its goal's — so another workspace's rows never take a key from
// it, never answer its repeat and never appear in its CONFLICT messages.
import type { DbOrTx } from "./operator.ts";

/** The workspace a goal belongs to, or null when there is no such goal. */
export async function workspaceOfGoal(db: DbOrTx, goalId: string): Promise<string | null> {
  return (await db.goal.findUnique({ where: { id: goalId }, select: { workspaceId: true } }))?.workspaceId ?? null;
}

/** The workspace a todo's goal belongs to, or null when there is no such todo. */
export async function workspaceOfTodo(db: DbOrTx, todoId: string): Promise<string | null> {
  return (await db.todo.findUnique({ where: { id: todoId }, select: { goal: { select: { workspaceId: true } } } }))?.goal.workspaceId ?? null;
}
