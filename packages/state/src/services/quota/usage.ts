// How much of each policy's rolling window is used, and held by model calls in flight (reservations). Shared by
// spend and reserve (under the policy lock), should-run and the projections.
import type { QuotaScope } from "../../generated/prisma/client.ts";
import type { DbOrTx } from "../operator.ts";

export interface Amounts {
  steps: number;
  tokens: number;
  microUsd: number;
}

export interface PolicyUsage {
  policyId: string;
  scope: QuotaScope;
  subjectId: string;
  windowMs: number;
  limits: { steps: number | null; tokens: number | null; microUsd: number | null };
  /** Spent in the window (settled spends). */
  used: Amounts;
  /** Held by model calls in flight (live reservations); what is left counts them as used. */
  reserved: { tokens: number; microUsd: number };
  /** null where the dimension has no limit. */
  remaining: { steps: number | null; tokens: number | null; microUsd: number | null };
  exhausted: boolean;
  /** When the oldest spend in the window leaves it, freeing room. */
  oldestSpendAt: Date | null;
  windowResetsInMs: number | null;
}

interface Row {
  id: string;
  scope: QuotaScope;
  goalId: string | null;
  agentId: string | null;
  windowMs: number;
  maxSteps: number | null;
  maxTokens: number | null;
  maxMicroUsd: bigint | null;
  steps: bigint;
  tokens: bigint;
  microUsd: bigint | string;
  oldest: Date | null;
  reservedTokens: bigint;
  reservedMicroUsd: bigint;
  now: Date;
}

/** Usage of the goal's and the agent's policies. `lock` takes the policy rows FOR UPDATE (spend's serialisation point). */
export async function policyUsage(
  db: DbOrTx,
  q: { goalId?: string | null; agentId?: string | null; at: Date | null; lock?: boolean },
): Promise<PolicyUsage[]> {
  const goalId = q.goalId ?? null;
  const agentId = q.agentId ?? null;
  if (q.lock) {
    await db.$queryRaw`
      SELECT "id" FROM "QuotaPolicy"
      WHERE ("scope" = 'goal' AND "goalId" = ${goalId}) OR ("scope" = 'agent' AND "agentId" = ${agentId})
      ORDER BY "id" FOR UPDATE`;
  }
  const rows = await db.$queryRaw<Row[]>`
    WITH tm AS (SELECT COALESCE(${q.at}::timestamptz, now()) AS "now")
    SELECT p."id", p."scope", p."goalId", p."agentId", p."windowMs"::float8 AS "windowMs", p."maxSteps", p."maxTokens", p."maxMicroUsd", tm."now",
      s."steps", s."tokens", s."microUsd", s."oldest", r."tokens" AS "reservedTokens", r."microUsd" AS "reservedMicroUsd"
    FROM "QuotaPolicy" p CROSS JOIN tm
    CROSS JOIN LATERAL (
      SELECT COALESCE(sum(x."steps"), 0)::bigint AS "steps", COALESCE(sum(x."tokens"), 0)::bigint AS "tokens",
        COALESCE(sum(x."microUsd"), 0)::bigint AS "microUsd", min(x."createdAt") AS "oldest"
      FROM "QuotaSpend" x
      WHERE ((p."scope" = 'goal' AND x."goalId" = p."goalId") OR (p."scope" = 'agent' AND x."agentId" = p."agentId"))
        -- No upper bound: a spend committed by a transaction that started after ours is stamped later than our now(),
        -- and it still counts.
        AND x."createdAt" > tm."now" - p."windowMs" * interval '1 millisecond'
    ) s
    -- Calls in flight hold their worst case until they are settled or their reservation expires.
    CROSS JOIN LATERAL (
      SELECT COALESCE(sum(x."tokens"), 0)::bigint AS "tokens", COALESCE(sum(x."microUsd"), 0)::bigint AS "microUsd"
      FROM "QuotaReservation" x
      WHERE ((p."scope" = 'goal' AND x."goalId" = p."goalId") OR (p."scope" = 'agent' AND x."agentId" = p."agentId"))
        AND x."expiresAt" > tm."now"
    ) r
    WHERE (p."scope" = 'goal' AND p."goalId" = ${goalId}) OR (p."scope" = 'agent' AND p."agentId" = ${agentId})
    ORDER BY p."id"`;
  return rows.map(toUsage);
}

function toUsage(r: Row): PolicyUsage {
  const used = { steps: Number(r.steps), tokens: Number(r.tokens), microUsd: Number(r.microUsd) };
  const limits = { steps: r.maxSteps, tokens: r.maxTokens, microUsd: r.maxMicroUsd === null ? null : Number(r.maxMicroUsd) };
  const reserved = { tokens: Number(r.reservedTokens), microUsd: Number(r.reservedMicroUsd) };
  const resets = r.oldest ? Math.max(0, r.oldest.getTime() + r.windowMs - r.now.getTime()) : null;
  return {
    policyId: r.id,
    scope: r.scope,
    subjectId: (r.scope === "goal" ? r.goalId : r.agentId) ?? "",
    windowMs: r.windowMs,
    limits,
    used,
    reserved,
    ...room(limits, used, reserved),
    oldestSpendAt: r.oldest,
    windowResetsInMs: resets,
  };
}

function room(limits: PolicyUsage["limits"], used: Amounts, reserved: PolicyUsage["reserved"]): Pick<PolicyUsage, "remaining" | "exhausted"> {
  const rem = (limit: number | null, u: number) => (limit === null ? null : Math.max(0, limit - u));
  const remaining = { steps: rem(limits.steps, used.steps), tokens: rem(limits.tokens, used.tokens + reserved.tokens), microUsd: rem(limits.microUsd, used.microUsd + reserved.microUsd) };
  return { remaining, exhausted: Object.values(remaining).some((v) => v === 0) };
}

/**
 * The usage `u` read under the policy lock with a spend of `spent` made at `at` added: what reading it again in the
 * same transaction would answer — other spends and reservations of the policy wait for the lock until commit; a
 * call settled meanwhile (settling takes no lock) moves its reservation, counted here at its worst case, into a
 * spend of at most that much, so this never shows more room than there is.
 */
export function usageWithSpend(u: PolicyUsage, spent: Amounts, at: Date): PolicyUsage {
  const used = { steps: u.used.steps + spent.steps, tokens: u.used.tokens + spent.tokens, microUsd: u.used.microUsd + spent.microUsd };
  return u.oldestSpendAt ? { ...u, used, ...room(u.limits, used, u.reserved) } : { ...u, used, ...room(u.limits, used, u.reserved), oldestSpendAt: at, windowResetsInMs: u.windowMs };
}

/** The dimensions in which `ask` does not fit in `u`'s remaining room. */
export function overLimit(u: PolicyUsage, ask: Amounts): (keyof Amounts)[] {
  return (["steps", "tokens", "microUsd"] as const).filter((k) => {
    const left = u.remaining[k];
    return left !== null && ask[k] > left;
  });
}

export function describeRemaining(u: PolicyUsage): string {
  const parts = (["steps", "tokens", "microUsd"] as const)
    .filter((k) => u.limits[k] !== null)
    .map((k) => `${u.remaining[k]} of ${u.limits[k]} ${k === "microUsd" ? "micro-dollars" : k}`);
  const held = (["tokens", "microUsd"] as const).filter((k) => u.limits[k] !== null && u.reserved[k] > 0).map((k) => `${u.reserved[k]} ${k === "microUsd" ? "micro-dollars" : k}`);
  return `${parts.join(", ")} left in the ${u.scope} ${u.subjectId} window of ${Math.round(u.windowMs / 1000)}s${held.length ? ` (${held.join(", ")} held by model calls in flight)` : ""}`;
}
