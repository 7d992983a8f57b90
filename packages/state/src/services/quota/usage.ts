// How much of each policy's rolling window is used. Shared by spend (under the policy lock), should-run and
// the projections.
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
  used: Amounts;
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
      COALESCE(sum(s."steps"), 0)::bigint AS "steps", COALESCE(sum(s."tokens"), 0)::bigint AS "tokens",
      COALESCE(sum(s."microUsd"), 0)::bigint AS "microUsd", min(s."createdAt") AS "oldest"
    FROM "QuotaPolicy" p CROSS JOIN tm
    LEFT JOIN "QuotaSpend" s ON
      ((p."scope" = 'goal' AND s."goalId" = p."goalId") OR (p."scope" = 'agent' AND s."agentId" = p."agentId"))
      -- No upper bound: a spend committed by a transaction that started after ours is stamped later than our now(),
      -- and it still counts.
      AND s."createdAt" > tm."now" - p."windowMs" * interval '1 millisecond'
    WHERE (p."scope" = 'goal' AND p."goalId" = ${goalId}) OR (p."scope" = 'agent' AND p."agentId" = ${agentId})
    GROUP BY p."id", tm."now"
    ORDER BY p."id"`;
  return rows.map(toUsage);
}

function toUsage(r: Row): PolicyUsage {
  const used = { steps: Number(r.steps), tokens: Number(r.tokens), microUsd: Number(r.microUsd) };
  const limits = { steps: r.maxSteps, tokens: r.maxTokens, microUsd: r.maxMicroUsd === null ? null : Number(r.maxMicroUsd) };
  const rem = (limit: number | null, u: number) => (limit === null ? null : Math.max(0, limit - u));
  const remaining = { steps: rem(limits.steps, used.steps), tokens: rem(limits.tokens, used.tokens), microUsd: rem(limits.microUsd, used.microUsd) };
  const exhausted = Object.values(remaining).some((v) => v === 0);
  const resets = r.oldest ? Math.max(0, r.oldest.getTime() + r.windowMs - r.now.getTime()) : null;
  return {
    policyId: r.id,
    scope: r.scope,
    subjectId: (r.scope === "goal" ? r.goalId : r.agentId) ?? "",
    windowMs: r.windowMs,
    limits,
    used,
    remaining,
    exhausted,
    oldestSpendAt: r.oldest,
    windowResetsInMs: resets,
  };
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
  return `${parts.join(", ")} left in the ${u.scope} ${u.subjectId} window of ${Math.round(u.windowMs / 1000)}s`;
}
