// reserve(key, a model call's worst case): before a call is made, hold what it can cost at most against the goal's
// and the agent's quota, so calls in flight cannot overspend together. Under the policy rows' lock (the one spend
// takes): sum the window's spends and the live reservations, cap the call's output by what is left, refuse when not
// even its prompt and one reply token fit, insert the reservation. settleQuota turns it into the call's spend; a
// reservation nobody settles (its API process died mid-call) stops counting when it expires.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Count, Id, IdempotencyKey } from "../../domain/schemas.ts";
import { actorOf, appendEvent, atParam, inTx, isUniqueViolation, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { describeRemaining, policyUsage, type PolicyUsage } from "./usage.ts";

/** µ$ per token, as the model settings price a role (fractions allowed). */
const Price = z.number().min(0).max(1_000_000_000);

export const ReserveQuotaInput = z.object({
  /** The spend key the call is settled under: one reservation per call. */
  key: IdempotencyKey,
  goalId: Id,
  agentId: Id,
  todoId: Id.optional(),
  runId: Id.optional(),
  /** The prompt's tokens, counted before the call (text and images). */
  inputTokens: Count,
  /** The reply's budget the call asks for (`max_tokens`); none: as much as the quota leaves. */
  maxOutputTokens: Count.min(1).optional(),
  microUsdPerInputToken: Price.default(0),
  microUsdPerOutputToken: Price.default(0),
  /** How long the reservation holds if nobody settles it: longer than the call may take. */
  ttlMs: z.number().int().min(1000).max(24 * 3600 * 1000),
});
export type ReserveQuotaInput = z.input<typeof ReserveQuotaInput>;

export interface QuotaReservationView {
  id: string;
  key: string;
  goalId: string;
  agentId: string;
  /** The worst case held: the prompt plus the output budget, at the role's prices. */
  tokens: number;
  microUsd: number;
  /** The reply budget the call must be sent with (≤ what it asked); null: no limit binds and it asked for none. */
  maxOutputTokens: number | null;
  expiresAt: Date;
}

export interface ReserveQuotaResult {
  reservation: QuotaReservationView;
  /** Usage before this reservation. */
  usage: PolicyUsage[];
}

/** A reservation older than its expiry by this much is deleted by the next reservation on its goal. */
const KEEP_EXPIRED_MS = 3600_000;

export async function reserveQuota(db: DbOrTx, raw: ReserveQuotaInput, ctx?: OperatorContext): Promise<ReserveQuotaResult> {
  const i = parseInput(ReserveQuotaInput, raw, "quota.reserve");
  const at = atParam(ctx);
  try {
    return await inTx(db, async (tx) => {
      const usage = await policyUsage(tx, { goalId: i.goalId, agentId: i.agentId, at, lock: true });
      if (i.runId) {
        const run = await tx.run.findUnique({ where: { id: i.runId }, select: { goalId: true } });
        if (!run || run.goalId !== i.goalId) throw new StateError("NOT_FOUND", `Run ${i.runId} is not a run of goal ${i.goalId}; reserve in the run that makes the call.`, { runId: i.runId, goalId: i.goalId });
      }
      const inputMicroUsd = i.inputTokens * i.microUsdPerInputToken;
      let output = i.maxOutputTokens ?? Infinity;
      for (const u of usage) {
        // A window with no step left is exhausted: its goal runs no more turns, so no more model calls either.
        if (u.remaining.steps === 0) throw refusal(u, i, "steps");
        const tokensLeft = u.remaining.tokens;
        const microLeft = u.remaining.microUsd;
        const fitsTokens = tokensLeft === null ? Infinity : tokensLeft - i.inputTokens;
        // worst = ceil(input × in + output × out) ≤ left, left an integer: output ≤ (left − input × in) / out.
        const fitsMicro = microLeft === null ? Infinity : i.microUsdPerOutputToken > 0 ? Math.floor((microLeft - inputMicroUsd) / i.microUsdPerOutputToken + 1e-9) : inputMicroUsd <= microLeft ? Infinity : -1;
        const fits = Math.min(fitsTokens, fitsMicro);
        if (fits < 1) throw refusal(u, i, fitsTokens < 1 ? "tokens" : "microUsd");
        output = Math.min(output, fits);
      }
      const maxOutputTokens = Number.isFinite(output) ? output : null;
      const tokens = i.inputTokens + (maxOutputTokens ?? 0);
      const microUsd = Math.ceil(inputMicroUsd + (maxOutputTokens ?? 0) * i.microUsdPerOutputToken - 1e-9);
      await tx.$executeRaw`
        DELETE FROM "QuotaReservation" WHERE "goalId" = ${i.goalId} AND "expiresAt" < COALESCE(${at}::timestamptz, now()) - ${KEEP_EXPIRED_MS} * interval '1 millisecond'`;
      const id = randomId("qr");
      const [row] = await tx.$queryRaw<{ expiresAt: Date }[]>`
        INSERT INTO "QuotaReservation" ("id", "key", "goalId", "agentId", "todoId", "runId", "tokens", "microUsd", "createdAt", "expiresAt")
        VALUES (${id}, ${i.key}, ${i.goalId}, ${i.agentId}, ${i.todoId ?? null}, ${i.runId ?? null}, ${tokens}, ${BigInt(Math.max(0, microUsd))},
                COALESCE(${at}::timestamptz, now()), COALESCE(${at}::timestamptz, now()) + ${i.ttlMs} * interval '1 millisecond')
        RETURNING "expiresAt"`;
      const reservation: QuotaReservationView = { id, key: i.key, goalId: i.goalId, agentId: i.agentId, tokens, microUsd: Math.max(0, microUsd), maxOutputTokens, expiresAt: row!.expiresAt };
      await appendEvent(
        tx,
        { operator: "quota.reserve", actor: actorOf(ctx, i.agentId), subjectId: id, goalId: i.goalId, payload: { key: i.key, tokens, microUsd: reservation.microUsd, maxOutputTokens, expiresAt: reservation.expiresAt.toISOString(), todoId: i.todoId ?? null, runId: i.runId ?? null } },
        ctx,
      );
      return { reservation, usage };
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new StateError("CONFLICT", `Reservation key ${i.key} is taken; reserve each call under a fresh key.`, { key: i.key });
    if (/QuotaReservation_goalId_fkey/.test(String((e as Error)?.message))) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
    throw e;
  }
}

/** QUOTA_EXCEEDED naming the quota: which limit, what is left (and held by calls in flight), what to do. */
function refusal(u: PolicyUsage, i: z.output<typeof ReserveQuotaInput>, over: "steps" | "tokens" | "microUsd"): StateError {
  const least =
    over === "steps"
      ? "a step left in the window"
      : over === "tokens"
        ? `${i.inputTokens + 1} tokens (its prompt of ${i.inputTokens} and one reply token)`
        : `${Math.ceil(i.inputTokens * i.microUsdPerInputToken + i.microUsdPerOutputToken)} micro-dollars (its prompt of ${i.inputTokens} tokens and one reply token)`;
  const when = u.windowResetsInMs !== null ? ` Room frees up in ${Math.ceil(u.windowResetsInMs / 1000)}s;` : "";
  return new StateError(
    "QUOTA_EXCEEDED",
    `This model call needs at least ${least}, more than the ${u.scope} quota of ${u.subjectId} has: ${describeRemaining(u)}.${when} an admin can raise the quota (quota.setPolicy), or send a shorter prompt.`,
    { policyId: u.policyId, scope: u.scope, subjectId: u.subjectId, over: [over], remaining: u.remaining, reserved: u.reserved, asked: { inputTokens: i.inputTokens, maxOutputTokens: i.maxOutputTokens ?? null }, retryAfterMs: u.windowResetsInMs },
  );
}
