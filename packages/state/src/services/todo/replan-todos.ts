// The planner's write_todos: the new ordered plan. Existing ids keep their identity and history; new drafts are
// inserted; a live todo left out of the plan must be superseded with a reason — never silently deleted.
import { z } from "zod";
import type { Todo } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { TERMINAL_STATES, nextTodoState } from "../../domain/todo-transitions.ts";
import { Id } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { insertTodos, lockGoalForPlanning, TodoDraft } from "./add-todos.ts";
import { normalizeTodo } from "./held.ts";

export const ReplanTodosInput = z.object({
  goalId: Id,
  /** The plan in order: `{ id }` keeps (and moves) an existing todo, a draft without an existing id inserts one. */
  plan: z.array(z.union([z.object({ keep: Id }), TodoDraft])).max(1000),
  /** Live todos dropped from the plan, each with why (and optionally which plan entry replaces it). */
  supersede: z.array(z.object({ todoId: Id, reason: z.string().trim().min(1).max(2000), replacedBy: Id.optional() })).default([]),
});
export type ReplanTodosInput = z.input<typeof ReplanTodosInput>;

export interface ReplanTodosResult {
  todos: Todo[];
  inserted: string[];
  moved: string[];
  superseded: string[];
}

export async function replanTodos(db: DbOrTx, raw: ReplanTodosInput, ctx?: OperatorContext): Promise<ReplanTodosResult> {
  const i = parseInput(ReplanTodosInput, raw, "todo.replan");
  return inTx(db, async (tx) => {
    await lockGoalForPlanning(tx, i.goalId);
    const existing = (await tx.$queryRaw<Todo[]>`SELECT * FROM "Todo" WHERE "goalId" = ${i.goalId} ORDER BY "position" FOR UPDATE`).map(normalizeTodo);
    const byId = new Map(existing.map((t) => [t.id, t]));
    const kept = new Set<string>();
    for (const [n, entry] of i.plan.entries()) {
      if ("keep" in entry) {
        const t = byId.get(entry.keep);
        if (!t) throw new StateError("INVALID_INPUT", `todo.replan: plan.${n}.keep: todo ${entry.keep} is not in goal ${i.goalId}.`, { issues: [{ path: `plan.${n}.keep` }] });
        if (kept.has(t.id)) throw new StateError("INVALID_INPUT", `todo.replan: plan.${n}.keep: todo ${t.id} appears twice in the plan.`, { issues: [{ path: `plan.${n}.keep` }] });
        kept.add(t.id);
      } else if (entry.id && byId.has(entry.id)) {
        throw new StateError("INVALID_INPUT", `todo.replan: plan.${n}.id: todo ${entry.id} exists; use { keep: "${entry.id}" } to keep it.`, { issues: [{ path: `plan.${n}.id` }] });
      }
    }
    const dropping = new Map(i.supersede.map((s) => [s.todoId, s]));
    const unaccounted = existing.filter((t) => !TERMINAL_STATES.includes(t.state) && !kept.has(t.id) && !dropping.has(t.id));
    if (unaccounted.length) {
      throw new StateError(
        "INVALID_INPUT",
        `todo.replan: supersede: the plan leaves out ${unaccounted.map((t) => t.id).join(", ")} without a reason. Keep them in the plan or supersede them with a reason.`,
        { issues: [{ path: "supersede", todoIds: unaccounted.map((t) => t.id) }] },
      );
    }
    for (const s of i.supersede) {
      const t = byId.get(s.todoId);
      if (!t) throw new StateError("NOT_FOUND", `Todo ${s.todoId} is not in goal ${i.goalId}.`, { todoId: s.todoId });
      if (kept.has(t.id)) throw new StateError("INVALID_INPUT", `todo.replan: supersede: ${t.id} is both kept and superseded.`, { issues: [{ path: "supersede" }] });
      nextTodoState(t.state, "supersede", t.id);
    }
    // Positions follow the plan; superseded and finished todos keep theirs after it.
    const inserted: string[] = [];
    const moved: string[] = [];
    const at = ctx?.clock?.now();
    for (const [n, entry] of i.plan.entries()) {
      if ("keep" in entry) {
        const t = byId.get(entry.keep)!;
        if (t.position !== n) {
          await tx.todo.update({ where: { id: t.id }, data: { position: n, version: { increment: 1 }, ...(at ? { updatedAt: at } : {}) } });
          moved.push(t.id);
        }
      } else {
        const [todo] = await insertTodos(tx, i.goalId, [entry], n, ctx);
        inserted.push(todo!.id);
      }
    }
    for (const s of i.supersede) {
      await tx.todo.update({
        where: { id: s.todoId },
        data: { state: "superseded", reason: s.reason, supersededById: s.replacedBy ?? null, version: { increment: 1 }, ...(at ? { updatedAt: at } : {}) },
      });
    }
    await appendEvent(
      tx,
      { operator: "todo.replan", actor: actorOf(ctx, undefined), subjectId: i.goalId, goalId: i.goalId, payload: { inserted, moved, superseded: i.supersede } },
      ctx,
    );
    const todos = (await tx.todo.findMany({ where: { goalId: i.goalId }, orderBy: [{ position: "asc" }, { createdAt: "asc" }] })).map(normalizeTodo);
    return { todos, inserted, moved, superseded: i.supersede.map((s) => s.todoId) };
  });
}
