// claimNext: the next eligible todo for an agent, decided and claimed in ONE SQL statement, so there is no gap
// between "which todo" and "take it" for a crash or a rival to fall into. Todos of a goal run in order: only a
// goal's first todo that is not done or superseded can be claimed, when it is pending or its holder's lease
// expired (a reclaim, with a new epoch) or, when the call names the goal, the holder is this same agent (a
// restarted worker takes its own lease over at once, with a new epoch, so its previous life's writes are fenced), the agent has every capability it requires, the goal is active and no
// gate is open on it (on the goal as a whole or on that todo; the turn router counts the same gates). Without
// goalId the oldest active goal with such a todo wins. Only goals of the agent's workspace are seen.
import { z } from "zod";
import type { Lease, Todo } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, IdempotencyKey, TtlMs } from "../../domain/schemas.ts";
import { actorOf, atParam, currentTime, inTx, isUniqueViolation, randomId, rawStatement, timeCte, type DbOrTx, type OperatorContext } from "../operator.ts";
import { anyWipLimitSql, claimLimitsOf, wipCounts, wipRefusalOf, type ClaimLimits } from "../wip-limit/wip-limits.ts";
import { DEFAULT_LEASE_TTL_MS, replayClaim, requireAgent, type ClaimRefusal, type ClaimResult } from "./claim-result.ts";
import { normalizeTodo } from "./held.ts";

export const ClaimNextInput = z.object({
  agentId: Id,
  /** Only this goal's todos; omit to take from any active goal, oldest goal first. */
  goalId: Id.optional(),
  ttlMs: TtlMs.default(DEFAULT_LEASE_TTL_MS),
  /** Becomes the lease key; a retried call with the same key returns the same lease instead of taking another. */
  idempotencyKey: IdempotencyKey.optional(),
});
export type ClaimNextInput = z.input<typeof ClaimNextInput>;

// $1 at (null: now()), $2 goalId (null: any active goal), $3 agentId, $4 leaseId, $5 ttlMs, $6 lease key,
// $7 actor.
// The workspace's goals that have a live todo are walked oldest first (ClaimOrder's partial index, kept by triggers:
// a finished goal is not in it, so it costs a claim nothing), the inactive ones dropped, each goal's first live todo
// read from a partial index of live todos; the walk stops at the first eligible head it can lock. A head locked by a rival claim is skipped, never
// its successor (a goal has one head). A replan that commits meanwhile and puts another todo first renumbers
// this one, so the position re-check under the row lock drops it. The lease insert reads `prev` so the expired lease leaves the
// one-active-lease index before the new one enters.
// Under WIP limits ($8 claimed, $9 running, $10 validating, $11 per agent; null: none) the statement also counts the
// workspace's held todos by lane (`wip`, the held lanes' few rows by the Todo state index) and the agent's held
// todos, the candidate's own place and lease left out. A workspace without limits runs the statement without them,
// which claims nothing where a limit is set (so the limits need no read of their own before a claim).
const claimNextSql = (wip: boolean, byGoal: boolean) => `
  WITH ${timeCte("$1")},${
    wip
      ? `
  wip AS (
    SELECT count(*) FILTER (WHERE w."state" = 'claimed') AS "claimed", count(*) FILTER (WHERE w."state" = 'running') AS "running",
           count(*) FILTER (WHERE w."state" = 'validating') AS "validating"
    FROM "Todo" w JOIN "Goal" wg ON wg."id" = w."goalId"
    WHERE w."state" IN ('claimed', 'running', 'validating') AND wg."workspaceId" = (SELECT a."workspaceId" FROM "Agent" a WHERE a."id" = $3::text)
  ),`
      : ""
  }
  cand AS (
    SELECT t."id", t."goalId", t."state"::text AS "fromState", l."id" AS "prevLeaseId", l."ownerId" AS "prevOwner"
    FROM (
      SELECT c."goalId", c."goalCreatedAt" FROM "ClaimOrder" c
      WHERE c."liveTodos" > 0 AND ${byGoal ? `c."goalId" = $2::text` : `$2::text IS NULL`}
        AND c."workspaceId" = (SELECT a."workspaceId" FROM "Agent" a WHERE a."id" = $3::text)${wip ? "" : `
        AND NOT ${anyWipLimitSql(`(SELECT a."workspaceId" FROM "Agent" a WHERE a."id" = $3::text)`)}`}
      ORDER BY c."goalCreatedAt", c."goalId"
    ) c
      CROSS JOIN LATERAL (SELECT g."status" FROM "Goal" g WHERE g."id" = c."goalId" LIMIT 1) g
      CROSS JOIN LATERAL (
        SELECT h."id", h."position" FROM "Todo" h
        WHERE h."goalId" = c."goalId" AND h."state" NOT IN ('done', 'superseded')
        ORDER BY h."position", h."createdAt", h."id"
        LIMIT 1
      ) head
      JOIN "Todo" t ON t."id" = head."id"
      LEFT JOIN "Lease" l ON l."todoId" = t."id" AND l."status" = 'active', tm
    WHERE g."status" = 'active'
      AND t."position" = head."position"
      AND (t."state" = 'pending' OR (t."state" IN ('claimed', 'running', 'validating') AND (l."expiresAt" <= tm."now" OR (l."ownerId" = $3::text AND $2::text IS NOT NULL))))
      AND COALESCE(t."requiredCapabilities", '{}') <@ (SELECT COALESCE(a."capabilities", '{}') FROM "Agent" a WHERE a."id" = $3::text)
      AND NOT EXISTS (SELECT 1 FROM "Gate" gt WHERE gt."goalId" = t."goalId" AND gt."status" = 'open' AND (gt."todoId" IS NULL OR gt."todoId" = t."id"))${
        wip
          ? `
      AND ($8::int IS NULL OR (SELECT wip."claimed" FROM wip) - (t."state" = 'claimed')::int < $8::int)
      AND ($9::int IS NULL OR (SELECT wip."running" FROM wip) - (t."state" = 'running')::int < $9::int)
      AND ($10::int IS NULL OR (SELECT wip."validating" FROM wip) - (t."state" = 'validating')::int < $10::int)
      AND ($11::int IS NULL OR (SELECT count(*) FROM "Lease" ml WHERE ml."ownerId" = $3::text AND ml."status" = 'active' AND ml."expiresAt" > tm."now" AND ml."todoId" <> t."id") < $11::int)`
          : ""
      }
    ORDER BY c."goalCreatedAt", c."goalId"
    LIMIT 1
    FOR UPDATE OF t SKIP LOCKED
  ),
  prev AS (
    UPDATE "Lease" l SET "status" = 'expired', "endedAt" = tm."now", "version" = l."version" + 1
    FROM cand, tm WHERE l."id" = cand."prevLeaseId"
    RETURNING l."id"
  ),
  lease AS (
    INSERT INTO "Lease" ("id", "todoId", "ownerId", "status", "ttlMs", "expiresAt", "version", "epoch", "leaseKey", "createdAt")
    SELECT $4::text, cand."id", $3::text, 'active', $5::int, tm."now" + $5::int * interval '1 millisecond', 1,
           COALESCE((SELECT max(l."epoch") FROM "Lease" l WHERE l."todoId" = cand."id"), 0) + 1, $6::text, tm."now"
    FROM cand, tm
    WHERE (SELECT count(*) FROM prev) >= 0
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
           jsonb_build_object('from', cand."fromState", 'to', 'claimed', 'leaseId', $4::text, 'agentId', $3::text,
                              'epoch', lease."epoch", 'reclaimedFrom', cand."prevOwner"), tm."now"
    FROM cand, tm, lease
    RETURNING "id"
  )
  SELECT upd.*, ev."id" AS "event_id", cand."prevOwner" AS "reclaimed_from", lease."id" AS "lease_id",
         lease."expiresAt" AS "lease_expiresAt", lease."createdAt" AS "lease_createdAt", lease."epoch" AS "lease_epoch"
  FROM upd, lease, ev, cand`;
// One text each for a claim from any goal and from a named goal, so each is prepared with its own plan.
const CLAIM_NEXT_SQL = { any: claimNextSql(false, false), byGoal: claimNextSql(false, true) };
const CLAIM_NEXT_WIP_SQL = { any: claimNextSql(true, false), byGoal: claimNextSql(true, true) };

type ClaimRow = Todo & {
  event_id: unknown;
  reclaimed_from: string | null;
  lease_id: string;
  lease_expiresAt: Date;
  lease_createdAt: Date;
  lease_epoch: number;
};

export async function claimNext(db: DbOrTx, raw: ClaimNextInput, ctx?: OperatorContext): Promise<ClaimResult> {
  const input = parseInput(ClaimNextInput, raw, "todo.claimNext");
  if (input.idempotencyKey) {
    const replay = await replayClaim(db, input.agentId, input.idempotencyKey);
    if (replay) return replay;
  }
  const key = input.idempotencyKey ?? randomId("lk");
  const params = [atParam(ctx), input.goalId ?? null, input.agentId, randomId("lease"), input.ttlMs, key, actorOf(ctx, input.agentId)];
  const shape = input.goalId ? "byGoal" : "any";
  let limits: ClaimLimits | null = null;
  let rows: ClaimRow[] = [];
  try {
    if (!input.idempotencyKey) {
      // The claim is one statement. It claims nothing in a workspace with a WIP limit; only then are the limits read,
      // and the claim takes its turn on them below.
      rows = await rawStatement<ClaimRow>(db, CLAIM_NEXT_SQL[shape], params, `phoneloop.claimNext.${shape}`);
      if (!rows.length) limits = await claimLimitsOf(db, input.agentId, false);
    }
    if (input.idempotencyKey || limits) {
      // With a key, the statement runs behind a lock on that key: a retry racing its original waits for it and
      // then returns the original's lease (the decision and the claim are still the one statement). Under a WIP
      // limit it runs behind the lock on the workspace's limits, read there, so claims at a limit take turns
      // and each counts what the one before it claimed.
      const out = await inTx(db, async (tx) => {
        if (input.idempotencyKey) {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`phoneloop.lease:${key}`}, 0))`;
          const replay = await replayClaim(tx, input.agentId, key);
          if (replay) return replay;
        }
        const locked = await claimLimitsOf(tx, input.agentId, true);
        if (!locked) return { locked, rows: await rawStatement<ClaimRow>(tx, CLAIM_NEXT_SQL[shape], params) };
        return { locked, rows: await rawStatement<ClaimRow>(tx, CLAIM_NEXT_WIP_SQL[shape], [...params, locked.claimed, locked.running, locked.validating, locked.perAgent]) };
      });
      if (!("rows" in out)) return out;
      ({ locked: limits, rows } = out);
    }
  } catch (e) {
    // Lost a race on the same idempotency key: the other call won, so this is a replay.
    if (isUniqueViolation(e) && input.idempotencyKey) {
      const replay = await replayClaim(db, input.agentId, input.idempotencyKey);
      if (replay) return replay;
    }
    throw e;
  }
  const row = rows[0];
  if (!row) return { claimed: false, ...(await whyNothing(db, input, limits, ctx)) };
  const { event_id: _event, reclaimed_from, lease_id, lease_expiresAt, lease_createdAt, lease_epoch, ...todo } = row;
  const lease: Lease = {
    id: lease_id,
    todoId: todo.id,
    ownerId: input.agentId,
    status: "active",
    ttlMs: input.ttlMs,
    expiresAt: lease_expiresAt,
    version: 1,
    epoch: lease_epoch,
    leaseKey: key,
    createdAt: lease_createdAt,
    endedAt: null,
  };
  return { claimed: true, todo: normalizeTodo(todo as Todo), lease, reclaimedFrom: reclaimed_from, duplicate: false };
}

/**
 * Why nothing was claimed, in words a person can act on (read after the statement; an unknown agent or goal is
 * NOT_FOUND), and `refusal: "wip_limit"` when a WIP limit stood in the way.
 */
async function whyNothing(
  db: DbOrTx,
  input: { agentId: string; goalId?: string | undefined },
  limits: ClaimLimits | null,
  ctx?: OperatorContext,
): Promise<{ reason: string; refusal?: ClaimRefusal }> {
  const r = await whyNothingIn(db, input, limits, ctx);
  return typeof r === "string" ? { reason: r } : r;
}

async function whyNothingIn(
  db: DbOrTx,
  input: { agentId: string; goalId?: string | undefined },
  limits: ClaimLimits | null,
  ctx?: OperatorContext,
): Promise<string | { reason: string; refusal: ClaimRefusal }> {
  const agent = await requireAgent(db, input.agentId);
  const overLimit = async (todo?: { state: string; heldBy: string | null }) => {
    if (!limits) return null;
    const at = await currentTime(db, ctx);
    const why = wipRefusalOf(limits, await wipCounts(db, agent.workspaceId, at), input.agentId, todo);
    return why ? { reason: why, refusal: "wip_limit" as const } : null;
  };
  if (!input.goalId) return (await overLimit()) ?? `No active goal has a todo ${input.agentId} can claim now (each goal runs its todos in order; a held, blocked or gated first todo waits).`;
  const goal = await db.goal.findUnique({ where: { id: input.goalId }, select: { status: true } });
  if (!goal) throw new StateError("NOT_FOUND", `Goal ${input.goalId} does not exist.`, { goalId: input.goalId });
  if (goal.status !== "active") return `Goal ${input.goalId} is ${goal.status}; its todos are claimed again once it is active.`;
  const head = await db.todo.findFirst({
    where: { goalId: input.goalId, state: { notIn: ["done", "superseded"] } },
    orderBy: [{ position: "asc" }, { createdAt: "asc" }, { id: "asc" }],
    include: { leases: { where: { status: "active" } } },
  });
  if (!head) return `Every todo of goal ${input.goalId} is done or superseded; nothing is left to claim.`;
  const gate = await db.gate.findFirst({
    where: { goalId: input.goalId, status: "open", OR: [{ todoId: null }, { todoId: head.id }] },
    orderBy: { createdAt: "asc" },
    select: { id: true, question: true },
  });
  if (gate) return `Gate ${gate.id} is open on the next todo, ${head.id}, and waits for an answer: ${gate.question}`;
  const missing = (head.requiredCapabilities ?? []).filter((c) => !agent.capabilities.includes(c));
  if (missing.length) return `The next todo, ${head.id}, needs capabilities ${input.agentId} lacks: ${missing.join(", ")}.`;
  if (head.state === "blocked" || head.state === "failed") {
    return `The next todo, ${head.id}, is ${head.state}${head.reason ? `: ${head.reason}` : ""}; replan or reopen it before later todos can run.`;
  }
  const lease = head.leases[0];
  const live = lease && lease.expiresAt > (await currentTime(db, ctx)) ? lease : undefined;
  // Held by another agent: that is the reason, whatever the limits say.
  const wip = live && live.ownerId !== input.agentId ? null : await overLimit({ state: head.state, heldBy: live?.ownerId ?? null });
  if (wip) return wip;
  if (lease) {
    const at = ctx?.clock ? ` (it is ${new Date(ctx.clock.now()).toISOString()})` : "";
    return `The next todo, ${head.id}, is held by ${lease.ownerId} until ${lease.expiresAt.toISOString()}${at}; todos run in order, so wait for it.`;
  }
  return `The next todo, ${head.id}, was taken by another claim at the same moment; call claimNext again.`;
}
