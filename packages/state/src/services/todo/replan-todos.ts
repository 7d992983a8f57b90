// The planner's write_todos as operations the core applies in ONE transaction: add (after a todo, or at the end),
// reorder (the named live todos take these relative positions), supersede (with a reason, optionally with
// replacements in its place) — never delete. Idempotent on its key: a repeat returns the stored result.
import { z } from "zod";
import type { Prisma, Todo } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { TERMINAL_STATES, nextTodoState, type TodoState } from "../../domain/todo-transitions.ts";
import { Id, IdempotencyKey, Text } from "../../domain/schemas.ts";
import { actorOf, appendEvent, clockDate, inTx, randomId, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";
import { insertTodos, lockGoalForPlanning, TodoDraft } from "./add-todos.ts";
import { normalizeTodo } from "./held.ts";
import { workspaceOfGoal } from "../idempotency-keys.ts";

const Reason = Text.trim().min(1).max(2000);

export const ReplanOp = z.discriminatedUnion("op", [
  /** A new todo after `after` (a todo of the goal, or one added earlier in this call); at the end without it. */
  z.object({ op: z.literal("add"), todo: TodoDraft, after: Id.optional() }),
  /** These live todos take the slots they occupy, in this order. */
  z.object({ op: z.literal("reorder"), todoIds: z.array(Id).min(1).max(1000) }),
  /** The todo is superseded with a reason; replacements take its place (the first becomes its supersededById). */
  z.object({ op: z.literal("supersede"), todoId: Id, reason: Reason, replacements: z.array(TodoDraft).max(100).default([]) }),
]);
export type ReplanOp = z.input<typeof ReplanOp>;

export const ReplanTodosInput = z.object({
  goalId: Id,
  /** A repeat with this key returns the stored result (duplicate: true) and changes nothing. */
  idempotencyKey: IdempotencyKey,
  /** Why the plan changes (kept on the replan and its event). */
  reason: Reason,
  ops: z.array(ReplanOp).max(1000),
});
export type ReplanTodosInput = z.input<typeof ReplanTodosInput>;

export interface ReplanTodosResult {
  /** The goal's todos after the replan, in plan order (superseded and done ones included). */
  todos: Todo[];
  inserted: string[];
  moved: string[];
  superseded: string[];
  /** true when the key was applied before: its stored result, nothing changed. */
  duplicate: boolean;
}

type StoredResult = Pick<ReplanTodosResult, "inserted" | "moved" | "superseded">;

export async function replanTodos(db: DbOrTx, raw: ReplanTodosInput, ctx?: OperatorContext): Promise<ReplanTodosResult> {
  const i = parseInput(ReplanTodosInput, raw, "todo.replan");
  return inTx(db, async (tx) => {
    await lockGoalForPlanning(tx, i.goalId); // serialises planners (and repeats of one key) on the goal
    const workspaceId = await workspaceOfGoal(tx, i.goalId);
    const first = workspaceId ? await tx.replan.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId, idempotencyKey: i.idempotencyKey } } }) : null;
    if (first) {
      if (first.goalId !== i.goalId) {
        throw new StateError("CONFLICT", `Idempotency key ${i.idempotencyKey} already replanned goal ${first.goalId}; use a fresh key for each replan.`, { goalId: first.goalId });
      }
      return { todos: await todosOf(tx, i.goalId), ...(first.result as unknown as StoredResult), duplicate: true };
    }
    const existing = (await tx.$queryRaw<Todo[]>`SELECT * FROM "Todo" WHERE "goalId" = ${i.goalId} ORDER BY "position", "createdAt", "id" FOR UPDATE`).map(normalizeTodo);
    const plan = applyOps(i, existing);
    const byId = new Map(existing.map((t) => [t.id, t]));
    const at = clockDate(ctx);
    const drafts = [...plan.added.values()];
    if (drafts.length) await insertTodos(tx, i.goalId, drafts, drafts.map((d) => plan.order.indexOf(d.id!)), ctx);
    const moved: string[] = [];
    for (const [position, id] of plan.order.entries()) {
      const t = byId.get(id);
      if (t && t.position !== position) {
        moved.push(id);
        await tx.todo.update({ where: { id }, data: { position, version: { increment: 1 }, ...(at ? { updatedAt: at } : {}) } });
      }
    }
    for (const [id, s] of plan.superseded) {
      await tx.todo.update({
        where: { id },
        data: { state: "superseded", reason: s.reason, supersededById: s.by, version: { increment: 1 }, ...(at ? { updatedAt: at } : {}) },
      });
    }
    const result: StoredResult = { inserted: drafts.map((d) => d.id!), moved, superseded: [...plan.superseded.keys()] };
    await tx.replan.create({
      data: {
        id: randomId("replan"),
        goalId: i.goalId,
        idempotencyKey: i.idempotencyKey,
        reason: i.reason,
        ops: i.ops as unknown as Prisma.InputJsonArray,
        result: result as unknown as Prisma.InputJsonObject,
        ...(at ? { createdAt: at } : {}),
      },
    });
    await appendEvent(
      tx,
      { operator: "todo.replan", actor: actorOf(ctx, undefined), subjectId: i.goalId, goalId: i.goalId, payload: { reason: i.reason, idempotencyKey: i.idempotencyKey, ...result } },
      ctx,
    );
    return { todos: await todosOf(tx, i.goalId), ...result, duplicate: false };
  });
}

async function todosOf(tx: Tx, goalId: string): Promise<Todo[]> {
  return (await tx.todo.findMany({ where: { goalId }, orderBy: [{ position: "asc" }, { createdAt: "asc" }, { id: "asc" }] })).map(normalizeTodo);
}

interface Plan {
  /** Every todo id of the goal, in its new position order. */
  order: string[];
  added: Map<string, z.output<typeof TodoDraft>>;
  superseded: Map<string, { reason: string; by: string | null }>;
}

/** The ops applied in order to the plan in memory; every check fails before anything is written. */
function applyOps(i: z.output<typeof ReplanTodosInput>, existing: Todo[]): Plan {
  const order = existing.map((t) => t.id);
  const state = new Map<string, TodoState>(existing.map((t) => [t.id, t.state]));
  const added = new Map<string, z.output<typeof TodoDraft>>();
  const superseded = new Map<string, { reason: string; by: string | null }>();
  const invalid = (path: string, why: string) => new StateError("INVALID_INPUT", `todo.replan: ${path}: ${why}`, { issues: [{ path, message: why }] });
  const mint = (d: z.output<typeof TodoDraft>, path: string) => {
    const id = d.id ?? randomId("todo");
    if (state.has(id)) throw invalid(path, `todo ${id} already exists in goal ${i.goalId}; give the new todo another id.`);
    state.set(id, "pending");
    const draft = { ...d, id };
    added.set(id, draft);
    return draft;
  };
  for (const [n, op] of i.ops.entries()) {
    if (op.op === "add") {
      let at = order.length;
      if (op.after !== undefined) {
        const k = order.indexOf(op.after);
        if (k < 0) throw invalid(`ops.${n}.after`, `todo ${op.after} is not in goal ${i.goalId}.`);
        at = k + 1;
      }
      order.splice(at, 0, mint(op.todo, `ops.${n}.todo.id`).id);
    } else if (op.op === "reorder") {
      const seen = new Set<string>();
      for (const [k, id] of op.todoIds.entries()) {
        const s = state.get(id);
        if (!s) throw invalid(`ops.${n}.todoIds.${k}`, `todo ${id} is not in goal ${i.goalId}.`);
        if (seen.has(id)) throw invalid(`ops.${n}.todoIds.${k}`, `todo ${id} appears twice.`);
        if (TERMINAL_STATES.includes(s)) throw invalid(`ops.${n}.todoIds.${k}`, `todo ${id} is ${s}; only live todos are reordered.`);
        seen.add(id);
      }
      const slots = op.todoIds.map((id) => order.indexOf(id)).sort((a, b) => a - b);
      for (const [k, slot] of slots.entries()) order[slot] = op.todoIds[k]!;
    } else {
      const s = state.get(op.todoId);
      if (!s) throw new StateError("NOT_FOUND", `Todo ${op.todoId} is not in goal ${i.goalId}; replan only the goal's own todos.`, { todoId: op.todoId });
      nextTodoState(s, "supersede", op.todoId); // done, superseded or held: ILLEGAL_TRANSITION naming the state
      const replacements = op.replacements.map((d, k) => mint(d, `ops.${n}.replacements.${k}.id`).id);
      order.splice(order.indexOf(op.todoId) + 1, 0, ...replacements);
      state.set(op.todoId, "superseded");
      superseded.set(op.todoId, { reason: op.reason, by: replacements[0] ?? null });
    }
  }
  return { order, added, superseded };
}
