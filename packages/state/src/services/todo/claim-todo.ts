// claim: a given todo, or the next eligible one for the agent's capabilities. The common case (a pending todo)
// is one SQL statement — SELECT … FOR UPDATE SKIP LOCKED LIMIT 1, insert lease, update todo, insert event —
// so it is one short transaction. Reclaiming an expired lease takes the slower, explicit path.
import { z } from "zod";
import type { Lease, Todo } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { HELD_STATES, nextTodoState } from "../../domain/todo-transitions.ts";
import { Id, IdempotencyKey, TtlMs } from "../../domain/schemas.ts";
import { actorOf, atParam, inTx, isUniqueViolation, randomId, rawStatement, timeCte, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";
import { applyTodoTransition, lockActiveLease, lockTodo, normalizeTodo, type LockedTodo } from "./held.ts";

export const DEFAULT_LEASE_TTL_MS = 60_000;

export const ClaimTodoInput = z.object({
  agentId: Id,
  /** Claim this todo; omit to claim the next eligible one. */
  todoId: Id.optional(),
  /** Restrict "next eligible" to one goal. */
  goalId: Id.optional(),
  ttlMs: TtlMs.default(DEFAULT_LEASE_TTL_MS),
  /** A retried claim with the same key returns the same lease instead of taking a second todo. */
  idempotencyKey: IdempotencyKey.optional(),
});
export type ClaimTodoInput = z.input<typeof ClaimTodoInput>;

export type ClaimTodoResult =
  | { claimed: true; todo: Todo; lease: Lease; replay: boolean; reclaimedFrom: string | null }
  | { claimed: false; reason: string };

export async function claimTodo(db: DbOrTx, raw: ClaimTodoInput, ctx?: OperatorContext): Promise<ClaimTodoResult> {
  const input = parseInput(ClaimTodoInput, raw, "todo.claim");
  const actor = actorOf(ctx, input.agentId);
  const key = input.idempotencyKey ?? randomId("lk");
  if (input.idempotencyKey) {
    const replay = await replayClaim(db, input.agentId, input.idempotencyKey);
    if (replay) return replay;
  }
  try {
    if (!input.todoId) {
      const fast = await claimNextPending(db, { ...input, key, actor }, ctx);
      if (fast) return fast;
    }
    return await inTx(db, async (tx) => {
      const todo = input.todoId ? await lockTodo(tx, input.todoId, ctx) : await lockNextExpired(tx, input, ctx);
      if (!todo) {
        await requireAgent(tx, input.agentId);
        return { claimed: false as const, reason: input.goalId ? `No eligible todo in goal ${input.goalId} for ${input.agentId}.` : `No eligible todo for ${input.agentId}.` };
      }
      return claimLocked(tx, todo, { ...input, key, actor }, ctx);
    });
  } catch (e) {
    // Lost a race on the same idempotency key: the other claim won, so this is a replay.
    if (isUniqueViolation(e) && input.idempotencyKey) {
      const replay = await replayClaim(db, input.agentId, input.idempotencyKey);
      if (replay) return replay;
    }
    throw e;
  }
}

async function replayClaim(db: DbOrTx, agentId: string, key: string): Promise<ClaimTodoResult | null> {
  const lease = await db.lease.findUnique({ where: { idempotencyKey: key }, include: { todo: true } });
  if (!lease) return null;
  if (lease.ownerId !== agentId) {
    throw new StateError("CONFLICT", `Idempotency key ${key} belongs to a lease of ${lease.ownerId}; use a fresh key.`, { currentHolder: lease.ownerId });
  }
  const { todo, ...rest } = lease;
  return { claimed: true, todo: normalizeTodo(todo), lease: rest, replay: true, reclaimedFrom: null };
}

async function requireAgent(tx: DbOrTx, agentId: string): Promise<{ capabilities: string[] }> {
  const agent = await tx.agent.findUnique({ where: { id: agentId }, select: { capabilities: true } });
  if (!agent) throw new StateError("NOT_FOUND", `Agent ${agentId} is not registered; register it before claiming.`, { agentId });
  return { capabilities: agent.capabilities ?? [] };
}

// $1 at (null: now()), $2 goalId (null: any), $3 agentId, $4 leaseId, $5 ttlMs, $6 lease key, $7 actor,
// $8 announce the event after commit (added by rawStatement).
const CLAIM_NEXT_PENDING_SQL = `
  WITH ${timeCte("$1", "$8")},
  cand AS (
    SELECT t."id", t."goalId" FROM "Todo" t JOIN "Goal" g ON g."id" = t."goalId"
    WHERE t."state" = 'pending' AND g."status" = 'active'
      AND ($2::text IS NULL OR t."goalId" = $2::text)
      AND COALESCE(t."requiredCapabilities", '{}') <@ (SELECT COALESCE(a."capabilities", '{}') FROM "Agent" a WHERE a."id" = $3::text)
    ORDER BY t."position", t."createdAt", t."id"
    LIMIT 1
    FOR UPDATE OF t SKIP LOCKED
  ),
  lease AS (
    INSERT INTO "Lease" ("id", "todoId", "ownerId", "status", "ttlMs", "expiresAt", "version", "epoch", "idempotencyKey", "createdAt")
    SELECT $4::text, cand."id", $3::text, 'active', $5::int, tm."now" + $5::int * interval '1 millisecond', 1,
           COALESCE((SELECT max(l."epoch") FROM "Lease" l WHERE l."todoId" = cand."id"), 0) + 1, $6::text, tm."now"
    FROM cand, tm
    RETURNING "id", "expiresAt", "createdAt", "epoch"
  ),
  upd AS (
    UPDATE "Todo" t SET "state" = 'claimed', "version" = t."version" + 1, "updatedAt" = tm."now"
    FROM cand, tm WHERE t."id" = cand."id"
    RETURNING t.*
  ),
  ev AS (
    INSERT INTO "Event" ("goalId", "operator", "actor", "subjectId", "payload", "createdAt")
    SELECT cand."goalId", 'todo.claim', $7::text, cand."id",
           jsonb_build_object('from', 'pending', 'to', 'claimed', 'leaseId', $4::text, 'agentId', $3::text, 'epoch', lease."epoch"), tm."now"
    FROM cand, tm, lease
    RETURNING "id"
  )
  SELECT upd.*, ev."id" AS "event_id", lease."id" AS "lease_id", lease."expiresAt" AS "lease_expiresAt", lease."createdAt" AS "lease_createdAt", lease."epoch" AS "lease_epoch"
  FROM upd, lease, ev`;

type ClaimRow = Todo & {
  event_id: unknown;
  lease_id: string;
  lease_expiresAt: Date;
  lease_createdAt: Date;
  lease_epoch: number;
};

async function claimNextPending(
  db: DbOrTx,
  input: { agentId: string; goalId?: string | undefined; ttlMs: number; key: string; actor: string },
  ctx?: OperatorContext,
): Promise<ClaimTodoResult | null> {
  const leaseId = randomId("lease");
  const at = atParam(ctx);
  const rows = await rawStatement<ClaimRow>(db, CLAIM_NEXT_PENDING_SQL, [at, input.goalId ?? null, input.agentId, leaseId, input.ttlMs, input.key, input.actor]);
  const row = rows[0];
  if (!row) return null;
  const { event_id: _event, lease_id, lease_expiresAt, lease_createdAt, lease_epoch, ...todo } = row;
  const lease: Lease = {
    id: lease_id,
    todoId: todo.id,
    ownerId: input.agentId,
    status: "active",
    ttlMs: input.ttlMs,
    expiresAt: lease_expiresAt,
    version: 1,
    epoch: lease_epoch,
    idempotencyKey: input.key,
    createdAt: lease_createdAt,
    endedAt: null,
  };
  return { claimed: true, todo: normalizeTodo(todo as Todo), lease, replay: false, reclaimedFrom: null };
}

async function lockNextExpired(tx: Tx, input: { agentId: string; goalId?: string | undefined }, ctx?: OperatorContext): Promise<LockedTodo | null> {
  const at = atParam(ctx);
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT t."id" FROM "Todo" t
      JOIN "Goal" g ON g."id" = t."goalId"
      JOIN "Lease" l ON l."todoId" = t."id" AND l."status" = 'active'
    WHERE t."state" IN ('claimed', 'running', 'validating') AND g."status" = 'active'
      AND l."expiresAt" <= COALESCE(${at}::timestamptz, now())
      AND (${input.goalId ?? null}::text IS NULL OR t."goalId" = ${input.goalId ?? null})
      AND COALESCE(t."requiredCapabilities", '{}') <@ (SELECT COALESCE(a."capabilities", '{}') FROM "Agent" a WHERE a."id" = ${input.agentId})
    ORDER BY l."expiresAt", t."position"
    LIMIT 1
    FOR UPDATE OF t SKIP LOCKED`;
  const id = rows[0]?.id;
  return id ? lockTodo(tx, id, ctx) : null;
}

async function claimLocked(
  tx: Tx,
  todo: LockedTodo,
  input: { agentId: string; ttlMs: number; key: string; actor: string },
  ctx?: OperatorContext,
): Promise<ClaimTodoResult> {
  const agent = await requireAgent(tx, input.agentId);
  const missing = todo.requiredCapabilities.filter((c) => !agent.capabilities.includes(c));
  const previous = HELD_STATES.includes(todo.state) ? await lockActiveLease(tx, todo.id) : null;
  if (previous && previous.expiresAt > todo.now) {
    throw new StateError(
      "CONFLICT",
      `Todo ${todo.id} is held by ${previous.ownerId} until ${previous.expiresAt.toISOString()}; wait for it to be released or to expire.`,
      { todoId: todo.id, currentHolder: previous.ownerId, currentEpoch: previous.epoch },
    );
  }
  const event = previous ? "reclaim" : "claim";
  nextTodoState(todo.state, event, todo.id);
  if (missing.length) {
    throw new StateError("FORBIDDEN", `Agent ${input.agentId} lacks the capabilities todo ${todo.id} requires: ${missing.join(", ")}.`, { missing });
  }
  if (todo.goalStatus !== "active") {
    throw new StateError("PRECONDITION_FAILED", `Goal ${todo.goalId} is ${todo.goalStatus}; its todos cannot be claimed until it is active.`, {
      goalId: todo.goalId,
      goalStatus: todo.goalStatus,
    });
  }
  if (previous) {
    await tx.lease.update({ where: { id: previous.id }, data: { status: "expired", endedAt: todo.now, version: { increment: 1 } } });
  }
  const maxEpoch = await tx.lease.aggregate({ where: { todoId: todo.id }, _max: { epoch: true } });
  const lease = await tx.lease.create({
    data: {
      id: randomId("lease"),
      todoId: todo.id,
      ownerId: input.agentId,
      ttlMs: input.ttlMs,
      expiresAt: new Date(todo.now.getTime() + input.ttlMs),
      epoch: (maxEpoch._max.epoch ?? 0) + 1,
      idempotencyKey: input.key,
      createdAt: todo.now,
    },
  });
  const result = await applyTodoTransition(
    tx,
    todo,
    event,
    { actor: input.actor, operator: "todo.claim", payload: { leaseId: lease.id, agentId: input.agentId, epoch: lease.epoch, reclaimedFrom: previous?.ownerId ?? null } },
    ctx,
  );
  return { claimed: true, todo: result.todo, lease, replay: false, reclaimedFrom: previous?.ownerId ?? null };
}
