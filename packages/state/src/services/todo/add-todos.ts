import { z } from "zod";
import type { Todo } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Capabilities, Id, JsonObject, LongText, ShortText, Text } from "../../domain/schemas.ts";
import { TODO_KINDS } from "../../domain/vocabulary.ts";
import { actorOf, clockDate, appendEvent, inTx, isUniqueViolation, randomId, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";
import { normalizeTodo } from "./held.ts";

export const TodoDraft = z.object({
  /** Stable id; omit to mint one. */
  id: Id.optional(),
  title: ShortText,
  detail: LongText.default(""),
  /** executor: needs a live app on the phone; host: answered without a screen. */
  kind: z.enum(TODO_KINDS).default("executor"),
  appHint: Text.max(200).nullish(),
  requiredCapabilities: Capabilities.default([]),
  inputs: z.array(Text.max(200)).default([]),
  outputs: z.array(Text.max(200)).default([]),
  values: JsonObject.default({}),
});
export type TodoDraft = z.input<typeof TodoDraft>;

export const AddTodosInput = z.object({ goalId: Id, todos: z.array(TodoDraft).min(1).max(1000) });
export type AddTodosInput = z.input<typeof AddTodosInput>;

/** Appends todos after the goal's last one, in the order given. */
export async function addTodos(db: DbOrTx, raw: AddTodosInput, ctx?: OperatorContext): Promise<Todo[]> {
  const i = parseInput(AddTodosInput, raw, "todo.add");
  return inTx(db, async (tx) => {
    await lockGoalForPlanning(tx, i.goalId);
    const last = await tx.todo.aggregate({ where: { goalId: i.goalId }, _max: { position: true } });
    const start = (last._max.position ?? -1) + 1;
    const todos = await insertTodos(tx, i.goalId, i.todos, start, ctx);
    await appendEvent(tx, { operator: "todo.add", actor: actorOf(ctx, undefined), subjectId: i.goalId, goalId: i.goalId, payload: { added: todos.map((t) => t.id) } }, ctx);
    return todos;
  });
}

/** Serialises planners on one goal and refuses to plan into a closed goal. */
export async function lockGoalForPlanning(tx: Tx, goalId: string): Promise<void> {
  const rows = await tx.$queryRaw<{ status: string }[]>`SELECT "status" FROM "Goal" WHERE "id" = ${goalId} FOR UPDATE`;
  const goal = rows[0];
  if (!goal) throw new StateError("NOT_FOUND", `Goal ${goalId} does not exist.`, { goalId });
  if (goal.status === "cancelled" || goal.status === "completed") {
    throw new StateError("PRECONDITION_FAILED", `Goal ${goalId} is ${goal.status}; its plan can no longer change.`, { goalId, goalStatus: goal.status });
  }
}

/** Inserts drafts at `start`, `start + 1`, …, or at the positions given per draft. */
export async function insertTodos(tx: Tx, goalId: string, drafts: z.output<typeof TodoDraft>[], start: number | number[], ctx?: OperatorContext): Promise<Todo[]> {
  const at = clockDate(ctx);
  const data = drafts.map((d, n) => ({
    id: d.id ?? randomId("todo"),
    goalId,
    position: typeof start === "number" ? start + n : start[n]!,
    kind: d.kind,
    title: d.title,
    detail: d.detail,
    appHint: d.appHint ?? null,
    requiredCapabilities: d.requiredCapabilities,
    inputs: d.inputs,
    outputs: d.outputs,
    values: d.values as object,
    ...(at ? { createdAt: at, updatedAt: at } : {}),
  }));
  const dup = data.find((d, n) => data.findIndex((x) => x.id === d.id) !== n);
  if (dup) throw new StateError("INVALID_INPUT", `todo.add: todos: id ${dup.id} appears twice.`, { issues: [{ path: "todos" }] });
  try {
    const rows = await tx.todo.createManyAndReturn({ data });
    const order = new Map(data.map((d, n) => [d.id, n]));
    return rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!).map(normalizeTodo);
  } catch (e) {
    if (isUniqueViolation(e)) {
      throw new StateError("CONFLICT", `A todo with one of these ids already exists (${data.map((d) => d.id).join(", ")}); ids are stable, pick others.`, { todoIds: data.map((d) => d.id) });
    }
    throw e;
  }
}
