// Locking a todo, fencing its holder, and applying one transition from the table. Every todo operator goes
// through here. Lock order everywhere: Todo row, then its Lease rows.
import type { GoalStatus, Lease, Todo } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { endsLease, HELD_STATES, nextTodoState, TODO_TRANSITIONS, type TodoEvent } from "../../domain/todo-transitions.ts";
import { appendEvent, atParam, inTx, rawStatement, timeCte, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";

export interface LockedTodo extends Todo {
  goalStatus: GoalStatus;
  /** The operator's time (clock or the transaction's now()). */
  now: Date;
}

export async function lockTodo(tx: Tx, todoId: string, ctx?: OperatorContext): Promise<LockedTodo> {
  const rows = await tx.$queryRaw<LockedTodo[]>`
    SELECT t.*, g."status" AS "goalStatus", COALESCE(${atParam(ctx)}::timestamptz, now()) AS "now"
    FROM "Todo" t JOIN "Goal" g ON g."id" = t."goalId" WHERE t."id" = ${todoId} FOR UPDATE OF t`;
  const row = rows[0];
  if (!row) throw new StateError("NOT_FOUND", `Todo ${todoId} does not exist.`, { todoId });
  return normalizeTodo(row);
}

export function normalizeTodo<T extends Todo>(row: T): T {
  row.requiredCapabilities ??= [];
  row.inputs ??= [];
  row.outputs ??= [];
  return row;
}

export async function lockActiveLease(tx: Tx, todoId: string): Promise<Lease | null> {
  const rows = await tx.$queryRaw<Lease[]>`SELECT * FROM "Lease" WHERE "todoId" = ${todoId} AND "status" = 'active' FOR UPDATE`;
  return rows[0] ?? null;
}

export interface HolderRef {
  agentId: string;
  leaseKey: string;
}

/** The caller's lease if it is the todo's current, unexpired one; otherwise CONFLICT naming who holds it now. */
export async function requireHolder(tx: Tx, todo: LockedTodo, holder: Partial<HolderRef>): Promise<Lease> {
  const lease = await lockActiveLease(tx, todo.id);
  if (lease && holder.leaseKey === lease.leaseKey && holder.agentId === lease.ownerId && lease.expiresAt > todo.now) {
    return lease;
  }
  throw await holderConflict(tx, todo, holder, lease);
}

async function holderConflict(tx: Tx, todo: LockedTodo, holder: Partial<HolderRef>, active: Lease | null): Promise<StateError> {
  let why = "you sent no lease key";
  if (holder.leaseKey) {
    const mine = await tx.lease.findUnique({ where: { leaseKey: holder.leaseKey } });
    if (!mine || mine.todoId !== todo.id) why = `no lease with that key exists on todo ${todo.id}`;
    else if (mine.ownerId !== holder.agentId) why = `that lease belongs to ${mine.ownerId}, not ${holder.agentId ?? "you"}`;
    else if (mine.status !== "active") why = `your lease was ${mine.status}${mine.endedAt ? ` at ${mine.endedAt.toISOString()}` : ""}`;
    else why = `your lease expired at ${mine.expiresAt.toISOString()}`;
  }
  let now: string;
  let currentHolder: string | null = null;
  if (active && active.expiresAt > todo.now) {
    currentHolder = active.ownerId;
    now = `It is held by ${active.ownerId} (epoch ${active.epoch}) until ${active.expiresAt.toISOString()}.`;
  } else if (active) {
    now = `Nobody holds it: ${active.ownerId}'s lease expired at ${active.expiresAt.toISOString()}; any eligible agent may claim it.`;
  } else {
    now = `Nobody holds it; it is ${todo.state}.`;
  }
  return new StateError("CONFLICT", `Your write to todo ${todo.id} was rejected: ${why}. ${now}`, {
    todoId: todo.id,
    currentHolder,
    currentEpoch: active?.epoch ?? null,
    state: todo.state,
  });
}

export interface TodoPatch {
  values?: Record<string, unknown>;
  outputs?: string[];
  lastResult?: string | null;
  reason?: string | null;
  supersededById?: string | null;
}

export interface TransitionResult {
  todo: Todo;
  from: Todo["state"];
  to: Todo["state"];
}

/** Applies one transition from the table to a locked todo, ends the lease if the todo leaves the held states, appends the Event. */
export async function applyTodoTransition(
  tx: Tx,
  todo: LockedTodo,
  event: TodoEvent,
  opts: { actor: string; lease?: Lease | null; patch?: TodoPatch; operator?: string; payload?: Record<string, unknown>; withinEventOf?: string },
  ctx?: OperatorContext,
): Promise<TransitionResult> {
  const to = nextTodoState(todo.state, event, todo.id);
  const patch = opts.patch ?? {};
  const updated = await tx.todo.update({
    where: { id: todo.id },
    data: {
      state: to,
      version: { increment: 1 },
      updatedAt: todo.now,
      ...(event === "retry" ? { attempts: { increment: 1 } } : {}),
      ...(patch.values ? { values: { ...(todo.values as Record<string, unknown>), ...patch.values } as object } : {}),
      ...(patch.outputs ? { outputs: patch.outputs } : {}),
      ...(patch.lastResult !== undefined ? { lastResult: patch.lastResult } : {}),
      ...(patch.reason !== undefined ? { reason: patch.reason } : to === "pending" || to === "running" ? { reason: null } : {}),
      ...(patch.supersededById !== undefined ? { supersededById: patch.supersededById } : {}),
    },
  });
  const lease = opts.lease;
  if (lease && endsLease(event, to)) {
    await tx.lease.update({ where: { id: lease.id }, data: { status: "released", endedAt: todo.now, version: { increment: 1 } } });
  }
  // A transition made as part of another operator is recorded in that operator's one Event.
  if (opts.withinEventOf) return { todo: normalizeTodo(updated), from: todo.state, to };
  await appendEvent(
    tx,
    {
      operator: opts.operator ?? `todo.${event}`,
      actor: opts.actor,
      subjectId: todo.id,
      goalId: todo.goalId,
      payload: { from: todo.state, to, ...(patch.reason ? { reason: patch.reason } : {}), ...(lease ? { leaseId: lease.id, epoch: lease.epoch } : {}), ...opts.payload },
    },
    ctx,
  );
  return { todo: normalizeTodo(updated), from: todo.state, to };
}

/** Locks the todo, fences the holder when the todo is held, and applies `event`. */
export async function transitionAsHolder(
  tx: Tx,
  ref: { todoId: string; agentId?: string | undefined; leaseKey?: string | undefined },
  event: TodoEvent,
  opts: { actor: string; patch?: TodoPatch; operator?: string; payload?: Record<string, unknown>; requireActiveGoal?: boolean },
  ctx?: OperatorContext,
): Promise<TransitionResult> {
  return transitionLockedAsHolder(tx, await lockTodo(tx, ref.todoId, ctx), ref, event, opts, ctx);
}

/** transitionAsHolder on a todo the caller locked in this transaction. */
export async function transitionLockedAsHolder(
  tx: Tx,
  todo: LockedTodo,
  ref: { todoId: string; agentId?: string | undefined; leaseKey?: string | undefined },
  event: TodoEvent,
  opts: { actor: string; patch?: TodoPatch; operator?: string; payload?: Record<string, unknown>; requireActiveGoal?: boolean; heldLease?: Lease },
  ctx?: OperatorContext,
): Promise<TransitionResult> {
  nextTodoState(todo.state, event, todo.id); // an illegal move fails before any other check
  // heldLease: the lease requireHolder answered for `ref` under this same lock (a step record checked it already).
  const { heldLease, ...rest } = opts;
  const lease = HELD_STATES.includes(todo.state) ? (heldLease ?? (await requireHolder(tx, todo, ref))) : null;
  if (opts.requireActiveGoal && todo.goalStatus !== "active") {
    throw new StateError("PRECONDITION_FAILED", `Goal ${todo.goalId} is ${todo.goalStatus}; resume it before working on its todos.`, {
      goalId: todo.goalId,
      goalStatus: todo.goalStatus,
    });
  }
  return applyTodoTransition(tx, todo, event, { ...rest, lease }, ctx);
}

/**
 * The holder's common case in one statement, without an interactive transaction (the claim/complete hot path).
 * It reads the todo's version under a valid lease from the statement's snapshot, then updates the todo only if
 * that version is still current: every change to a todo's lease (claim, reclaim, release, transfer, cancel) bumps
 * the todo's version in the same transaction, so a lease that moved meanwhile fails the re-check under the row
 * lock. Returns null when anything is off; the caller then takes the explicit path, which names the reason.
 */
export async function tryHeldTransitionFast(
  db: DbOrTx,
  ref: { todoId: string; agentId?: string | undefined; leaseKey?: string | undefined },
  event: TodoEvent,
  opts: { actor: string; patch?: TodoPatch; operator?: string; payload?: Record<string, unknown>; requireActiveGoal?: boolean },
  ctx?: OperatorContext,
): Promise<TransitionResult | null> {
  if (!ref.agentId || !ref.leaseKey) return null;
  const from = HELD_STATES.filter((s) => TODO_TRANSITIONS[s][event] !== undefined);
  const targets = new Set(from.map((s) => TODO_TRANSITIONS[s][event]));
  if (from.length === 0 || targets.size !== 1) return null;
  const to = [...targets][0]!;
  const patch = opts.patch ?? {};
  const endLease = endsLease(event, to);
  const at = atParam(ctx);
  const clearReason = patch.reason === undefined && (to === "pending" || to === "running");
  const payload = { ...(patch.reason ? { reason: patch.reason } : {}), ...opts.payload };
  const values = patch.values ? JSON.stringify(patch.values) : null;
  const rows = await rawStatement<Todo & { event_id: bigint | string; from_state: Todo["state"] }>(db, HELD_TRANSITION_SQL, [
    at,
    ref.todoId,
    ref.leaseKey,
    ref.agentId,
    from,
    opts.requireActiveGoal ?? false,
    to,
    event === "retry" ? 1 : 0,
    values,
    patch.outputs ?? null,
    patch.lastResult !== undefined,
    patch.lastResult ?? null,
    patch.reason !== undefined,
    patch.reason ?? null,
    clearReason,
    endLease,
    opts.operator ?? `todo.${event}`,
    opts.actor,
    JSON.stringify(payload),
  ], "phoneloop.heldTransition");
  const row = rows[0];
  if (!row) return null;
  const { event_id: _id, from_state, leaseId: _l, epoch: _e, ...todo } = row as typeof row & { leaseId: string; epoch: number };
  return { todo: normalizeTodo(todo as Todo), from: from_state, to };
}

// $1 at, $2 todoId, $3 lease key, $4 agentId, $5 from states, $6 require active goal, $7 to, $8 attempts delta,
// $9 values to merge (null: keep), $10 outputs (null: keep), $11/$12 set lastResult, $13/$14 set reason,
// $15 clear reason, $16 end the lease, $17 operator, $18 actor, $19 extra payload.
const HELD_TRANSITION_SQL = `
  WITH ${timeCte("$1")},
  cur AS (
    SELECT t."id", t."version", t."state", l."id" AS "leaseId", l."epoch"
    FROM "Todo" t
      JOIN "Lease" l ON l."todoId" = t."id" AND l."status" = 'active'
      JOIN "Goal" g ON g."id" = t."goalId", tm
    WHERE t."id" = $2::text AND l."leaseKey" = $3::text AND l."ownerId" = $4::text
      AND l."expiresAt" > tm."now" AND t."state"::text = ANY($5::text[])
      AND ($6::boolean = false OR g."status" = 'active')
  ),
  upd AS (
    UPDATE "Todo" t SET
      "state" = $7::"TodoState",
      "version" = t."version" + 1,
      "updatedAt" = tm."now",
      "attempts" = t."attempts" + $8::int,
      "values" = CASE WHEN $9::jsonb IS NULL THEN t."values" ELSE t."values" || $9::jsonb END,
      "outputs" = COALESCE($10::text[], t."outputs"),
      "lastResult" = CASE WHEN $11::boolean THEN $12::text ELSE t."lastResult" END,
      "reason" = CASE WHEN $13::boolean THEN $14::text WHEN $15::boolean THEN NULL ELSE t."reason" END
    FROM cur, tm
    WHERE t."id" = cur."id" AND t."version" = cur."version"
    RETURNING t.*, cur."state" AS "from_state", cur."leaseId", cur."epoch"
  ),
  rel AS (
    UPDATE "Lease" l SET "status" = 'released', "endedAt" = tm."now", "version" = l."version" + 1
    FROM upd, tm WHERE $16::boolean AND l."id" = upd."leaseId"
    RETURNING l."id"
  ),
  ev AS (
    INSERT INTO "Event" ("goalId", "operator", "actor", "subjectId", "payload", "createdAt")
    SELECT upd."goalId", $17::text, $18::text, upd."id",
           jsonb_build_object('from', upd."from_state", 'to', $7::text, 'leaseId', upd."leaseId", 'epoch', upd."epoch") || $19::jsonb,
           tm."now"
    FROM upd, tm
    RETURNING "id"
  )
  SELECT upd.*, ev."id" AS "event_id" FROM upd, ev`;

/** A holder operator: the one-statement path when it applies, else the explicit transaction. */
export async function holderTransition(
  db: DbOrTx,
  ref: { todoId: string; agentId?: string | undefined; leaseKey?: string | undefined },
  event: TodoEvent,
  opts: { actor: string; patch?: TodoPatch; operator?: string; payload?: Record<string, unknown>; requireActiveGoal?: boolean },
  ctx?: OperatorContext,
): Promise<TransitionResult> {
  return (await tryHeldTransitionFast(db, ref, event, opts, ctx)) ?? inTx(db, (tx) => transitionAsHolder(tx, ref, event, opts, ctx));
}
