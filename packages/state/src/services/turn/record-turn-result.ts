// The result after a turn: one transition from TURN_RESULT_TRANSITION, fenced by the lease, recorded as a Turn
// row in the same transaction. The Turn's idempotency key makes a repeat return the first outcome and change
// nothing, even after the lease ended. Quota is spent only after a validated result is written back (a separate,
// later transaction); if that spend fails the turn's result becomes quota_spend_failed, whose own transition is
// then applied.
import { z } from "zod";
import type { Lease, Prisma, Todo } from "../../generated/prisma/client.ts";
import { isStateError, StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { canTransitionTodo } from "../../domain/todo-transitions.ts";
import { BigCount, Count, Id, IdempotencyKey, JsonObject, Text } from "../../domain/schemas.ts";
import { SPENDING_RESULTS, TURN_RESULT_KINDS, TURN_RESULT_TRANSITION, type TurnResultKind } from "../../domain/turn.ts";
import { actorOf, appendEvent, clockDate, inTx, inTxJoining, isOpenTx, isUniqueViolation, randomId, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";
import { spendQuota, type QuotaSpendView } from "../quota/spend-quota.ts";
import type { PolicyUsage } from "../quota/usage.ts";
import { lockTodo, normalizeTodo, transitionAsHolder, transitionLockedAsHolder, type LockedTodo } from "../todo/held.ts";
import { workspaceOfTodo } from "../idempotency-keys.ts";

export const RecordTurnResultInput = z.object({
  /** One key per turn: a repeat returns the first outcome (duplicate: true) and changes nothing. */
  idempotencyKey: IdempotencyKey,
  todoId: Id,
  agentId: Id,
  leaseKey: IdempotencyKey,
  runId: Id.optional(),
  kind: z.enum(TURN_RESULT_KINDS),
  summary: Text.trim().min(1).max(2000),
  /** Written back with a validated result (merged into the todo's values). */
  values: JsonObject.optional(),
  outputs: z.array(Text.max(200)).optional(),
  /** Spent after a validated writeback; ignored for other results (they spend nothing). */
  spend: z.object({ key: IdempotencyKey, steps: Count.default(0), tokens: Count.default(0), microUsd: BigCount.default(0) }).optional(),
});
export type RecordTurnResultInput = z.input<typeof RecordTurnResultInput>;

export type TurnTransition = { kind: TurnResultKind; from: Todo["state"]; to: Todo["state"] };

export interface RecordTurnResultResult {
  /** The result as recorded: the input kind, or quota_spend_failed when the spend after writeback failed. */
  kind: TurnResultKind;
  todo: Todo;
  transitions: TurnTransition[];
  /** The spend this call made (null on a duplicate: the first call's spend stands). */
  spend: QuotaSpendView | null;
  spendError: { code: string; message: string; details: Record<string, unknown> } | null;
  /** true when the key was recorded before: the first outcome, nothing changed. */
  duplicate: boolean;
}

/**
 * What a step record's transaction has read already, so that the turn result reads none of it again: the todo it
 * locked, the lease requireHolder answered for this holder under that lock, the goal's workspace and the goal of
 * the run.
 */
export interface HeldTodo {
  todo: LockedTodo;
  lease: Lease;
  workspaceId: string;
  runGoalId: string;
}

export async function recordTurnResult(db: DbOrTx, raw: RecordTurnResultInput, ctx?: OperatorContext): Promise<RecordTurnResultResult> {
  return (await recordTurnResultIn(db, raw, ctx)).result;
}

/**
 * recordTurnResult inside a step record: given what the record read (`held`), and answering the quota usage after
 * its spend too (null when it made none), which the record's route then reads instead of the quota again.
 */
export async function recordTurnResultIn(db: DbOrTx, raw: RecordTurnResultInput, ctx?: OperatorContext, held?: HeldTodo): Promise<{ result: RecordTurnResultResult; usage: PolicyUsage[] | null }> {
  const i = parseInput(RecordTurnResultInput, raw, "turn.result");
  if (held && held.todo.id !== i.todoId) throw new Error(`turn.result: the held todo ${held.todo.id} is not ${i.todoId}`);
  const actor = actorOf(ctx, i.agentId);
  const validated = SPENDING_RESULTS.includes(i.kind);
  const event = TURN_RESULT_TRANSITION[i.kind];
  let written: { todo: Todo; transition: TurnTransition } | RecordTurnResultResult;
  try {
    written = await inTxJoining(db, async (tx) => {
      const locked = held?.todo ?? (await lockTodo(tx, i.todoId, ctx)); // serialises repeats of one key with each other
      const first = await duplicateOf(tx, i, held?.workspaceId);
      if (first) return first;
      const moved = await transitionLockedAsHolder(
        tx,
        locked,
        i,
        event,
        {
          actor,
          operator: "turn.result",
          patch: {
            lastResult: i.kind,
            ...(validated ? { values: i.values, outputs: i.outputs } : {}),
            ...(event === "block" ? { reason: i.summary } : {}),
          },
          payload: { kind: i.kind, summary: i.summary, idempotencyKey: i.idempotencyKey },
          ...(held ? { heldLease: held.lease } : {}),
        },
        ctx,
      );
      const transition = { kind: i.kind, from: moved.from, to: moved.to };
      // The client's clock as the row's time, as Prisma's default would stamp it. A key another todo's call recorded
      // meanwhile is no SQL error here (that would end a step record's whole transaction): it is answered below.
      const inserted = await tx.$executeRaw`
        INSERT INTO "Turn" ("id", "goalId", "todoId", "runId", "agentId", "idempotencyKey", "kind", "summary", "values", "transitions", "createdAt")
        VALUES (${randomId("turn")}, ${moved.todo.goalId}, ${i.todoId}, ${i.runId ?? null}, ${i.agentId}, ${i.idempotencyKey}, ${i.kind}::"TurnResultKind", ${i.summary},
                ${JSON.stringify(validated ? (i.values ?? {}) : {})}::jsonb, ${JSON.stringify([transition])}::jsonb, ${clockDate(ctx) ?? new Date()}::timestamptz)
        ON CONFLICT ("workspaceId", "idempotencyKey") DO NOTHING`;
      if (inserted === 0) throw new TurnKeyTaken();
      return { todo: moved.todo, transition };
    });
  } catch (e) {
    // The same key recorded by a concurrent call on another todo's lock: its outcome stands. Inside a step record
    // this call's transition is already written in the caller's transaction, which must then fail as a whole.
    const taken = e instanceof TurnKeyTaken || isUniqueViolation(e);
    if (taken && isOpenTx(db)) throw new StateError("CONFLICT", `Turn key ${i.idempotencyKey} was recorded by another call meanwhile; send the record again to read its outcome.`, { idempotencyKey: i.idempotencyKey });
    const first = taken ? await duplicateOf(db, i) : null;
    if (!first) throw e;
    written = first;
  }
  if ("duplicate" in written) return { result: written, usage: null };
  const transitions = [written.transition];
  if (!validated || !i.spend) return { result: { kind: i.kind, todo: written.todo, transitions, spend: null, spendError: null, duplicate: false }, usage: null };
  try {
    const spendInput = { ...i.spend, goalId: written.todo.goalId, agentId: i.agentId, todoId: i.todoId, ...(i.runId ? { runId: i.runId } : {}) };
    const spent = await spendQuota(db, spendInput, ctx, held ? { workspaceId: held.workspaceId, runGoalId: held.runGoalId } : undefined);
    return { result: { kind: i.kind, todo: written.todo, transitions, spend: spent.spend, spendError: null, duplicate: false }, usage: spent.usage };
  } catch (e) {
    if (!isStateError(e)) throw e;
    const spendError = { code: e.code, message: e.message, details: e.details };
    const failed = await inTx(db, async (tx) => {
      const todo = await lockTodo(tx, i.todoId, ctx);
      const next = TURN_RESULT_TRANSITION.quota_spend_failed;
      const payload = { kind: "quota_spend_failed", summary: e.message, after: i.kind, idempotencyKey: i.idempotencyKey };
      let moved: { todo: Todo; from: Todo["state"]; to: Todo["state"] };
      if (canTransitionTodo(todo.state, next)) {
        moved = await transitionAsHolder(tx, i, next, { actor, operator: "turn.result", patch: { lastResult: "quota_spend_failed", reason: e.message }, payload }, ctx);
      } else {
        // A completed todo stays done: its validated work stands; the failed spend is recorded, not undone.
        await appendEvent(tx, { operator: "turn.result", actor, subjectId: todo.id, goalId: todo.goalId, payload: { ...payload, from: todo.state, to: todo.state } }, ctx);
        const { goalStatus: _g, now: _n, ...row } = todo;
        moved = { todo: row, from: todo.state, to: todo.state };
      }
      transitions.push({ kind: "quota_spend_failed", from: moved.from, to: moved.to });
      await tx.turn.updateMany({ where: { todoId: i.todoId, idempotencyKey: i.idempotencyKey }, data: { kind: "quota_spend_failed", transitions: transitions as Prisma.InputJsonArray } });
      return moved;
    });
    return { result: { kind: "quota_spend_failed", todo: failed.todo, transitions, spend: null, spendError, duplicate: false }, usage: null };
  }
}

/** The turn's key was recorded by another call between the check and the insert (its transaction rolls back). */
class TurnKeyTaken extends Error {
  constructor() {
    super("turn key taken meanwhile");
  }
}

/**
 * The first outcome recorded under this key, or null; CONFLICT when the key was used for another todo, or by
 * another agent outside this run. Within one run the key is the run's, whichever agent drives it: a run resumed by
 * another worker or tab re-sends the record of the step its predecessor wrote last (the post-step checkpoint is
 * folded into the next write-ahead one), and is answered as it was recorded.
 */
async function duplicateOf(db: DbOrTx | Tx, i: z.output<typeof RecordTurnResultInput>, knownWorkspaceId?: string): Promise<RecordTurnResultResult | null> {
  const workspaceId = knownWorkspaceId ?? (await workspaceOfTodo(db, i.todoId));
  const turn = workspaceId ? await db.turn.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId, idempotencyKey: i.idempotencyKey } }, include: { todo: true } }) : null;
  if (!turn) return null;
  const sameRun = i.runId !== undefined && turn.runId === i.runId;
  if (turn.todoId !== i.todoId || (turn.agentId !== i.agentId && !sameRun)) {
    throw new StateError(
      "CONFLICT",
      `Idempotency key ${i.idempotencyKey} already recorded a turn of ${turn.agentId} on todo ${turn.todoId}; use a fresh key for each turn.`,
      { todoId: turn.todoId, agentId: turn.agentId },
    );
  }
  return {
    kind: turn.kind,
    todo: normalizeTodo(turn.todo),
    transitions: turn.transitions as TurnTransition[],
    spend: null,
    spendError: null,
    duplicate: true,
  };
}
