// A goal's todos in plan order with every field a worker needs to pick and run one (inputs, outputs, capabilities,
// values, reason) and the open gate on each: what an agent's read_todos reads. The board is the UI's view.
import { z } from "zod";
import type { Todo } from "../generated/prisma/client.ts";
import { StateError } from "../domain/errors.ts";
import { parseInput } from "../domain/input.ts";
import { pageOf, PageFields, type Page } from "../domain/page.ts";
import { Id } from "../domain/schemas.ts";
import type { DbOrTx } from "../services/operator.ts";
import { cursorOf, keysetPage, pageOrder } from "./page-query.ts";

/** A page of todos in plan order; the cursor is opaque. */
export const TodoListInput = z.object({ goalId: Id, ...PageFields });
export type TodoListInput = z.input<typeof TodoListInput>;

export type TodoListItem = Todo & {
  /** The todo's active lease, if any (expired ones included: the todo is then reclaimable). */
  holder: { leaseId: string; ownerId: string; epoch: number; expiresAt: Date } | null;
  openGate: { id: string; question: string } | null;
};

const TODO_ORDER = pageOrder(["position", "asc", Number], ["createdAt", "asc", Date], ["id", "asc", String]);

export async function todoList(db: DbOrTx, raw: TodoListInput): Promise<Page<TodoListItem>> {
  const i = parseInput(TodoListInput, raw, "todoList");
  const goal = await db.goal.findUnique({ where: { id: i.goalId }, select: { id: true } });
  if (!goal) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
  const page = pageOf(
    await db.todo.findMany(keysetPage(TODO_ORDER, i, { goalId: goal.id })),
    i.limit,
    cursorOf(TODO_ORDER),
  );
  const ids = page.items.map((t) => t.id);
  const [leases, gates] = await Promise.all([
    db.lease.findMany({ where: { status: "active", todoId: { in: ids } } }),
    db.gate.findMany({ where: { goalId: goal.id, status: "open", todoId: { in: ids } }, orderBy: { createdAt: "asc" } }),
  ]);
  const leaseBy = new Map(leases.map((l) => [l.todoId, l]));
  const gateBy = new Map<string, (typeof gates)[number]>();
  for (const g of gates) if (!gateBy.has(g.todoId!)) gateBy.set(g.todoId!, g);
  const items = page.items.map((t) => {
    const l = leaseBy.get(t.id);
    const g = gateBy.get(t.id);
    return {
      ...t,
      requiredCapabilities: t.requiredCapabilities ?? [],
      inputs: t.inputs ?? [],
      outputs: t.outputs ?? [],
      holder: l ? { leaseId: l.id, ownerId: l.ownerId, epoch: l.epoch, expiresAt: l.expiresAt } : null,
      openGate: g ? { id: g.id, question: g.question } : null,
    };
  });
  return { items, nextCursor: page.nextCursor };
}
