// settle(key, what the call spent): after a reserved model call, its reservation becomes its spend — the real
// usage, so the difference to the worst case is free again — or, for a call that failed (nothing spent), is
// released. One transaction deletes the reservation and inserts the spend, so a reader (a concurrent reserve under
// the policy lock) sees either the one or the other, never both or neither: settling needs no policy lock. The
// spend is never refused: the call was made and is paid for (the reservation was its permission). Idempotent on
// the key: a repeat answers the spend the first settle made. The call's model_call evidence is recorded in the same
// transaction as its spend (one fact, one write): the quota spent is the sum of the calls' evidence.
import { z } from "zod";
import type { QuotaSpend } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { BigCount, Count, IdempotencyKey, JsonObject, Text } from "../../domain/schemas.ts";
import { refineEvidenceData } from "../../domain/evidence.ts";
import { actorOf, appendEvent, atParam, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { insertEvidence } from "../evidence/append-evidence.ts";
import { spendView, type QuotaSpendView } from "./spend-quota.ts";

export const SettleQuotaInput = z.object({
  /** The reservation's key (reserveQuota's), which the spend is recorded under. */
  key: IdempotencyKey,
  /** What the call spent, as the endpoint reported it; omitted: the call failed and spent nothing (a release). */
  spent: z.object({ tokens: Count.default(0), microUsd: BigCount.default(0) }).optional(),
  /**
   * The made call's model_call evidence (`via: "api"`, its usage the spent amounts), recorded with the spend; its
   * goal, run, todo and agent are the reservation's. Only with `spent`.
   */
  evidence: z
    .object({ idempotencyKey: IdempotencyKey, stepIndex: Count.optional(), summary: Text.trim().min(1).max(2000), data: JsonObject })
    .superRefine((e, ctx) => refineEvidenceData({ kind: "model_call", data: e.data }, ctx))
    .refine((e) => (e.data as { via?: unknown }).via === "api", { message: 'a settled call was metered by the API: via "api"', path: ["data", "via"] })
    .optional(),
}).refine((i) => !i.evidence || i.spent, { message: "a released call made no model call to record: give what it spent", path: ["evidence"] });
export type SettleQuotaInput = z.input<typeof SettleQuotaInput>;

export interface SettleQuotaResult {
  /** The spend recorded (null for a release). */
  spend: QuotaSpendView | null;
  /** What the reservation held beyond the spend, free again (negative where the call spent more than its worst case). */
  released: { tokens: number; microUsd: number };
  /** true when the key was settled before: nothing changed. */
  duplicate: boolean;
}

interface ReservationRow {
  id: string;
  goalId: string;
  agentId: string;
  todoId: string | null;
  runId: string | null;
  tokens: number;
  microUsd: bigint;
}

export async function settleQuota(db: DbOrTx, raw: SettleQuotaInput, ctx?: OperatorContext): Promise<SettleQuotaResult> {
  const i = parseInput(SettleQuotaInput, raw, "quota.settle");
  const at = atParam(ctx);
  return inTx(db, async (tx) => {
    // The delete is the lock: of two settles of one key, the second finds nothing to delete and answers the first's.
    const [r] = await tx.$queryRaw<ReservationRow[]>`
      DELETE FROM "QuotaReservation" WHERE "key" = ${i.key}
      RETURNING "id", "goalId", "agentId", "todoId", "runId", "tokens", "microUsd"`;
    if (!r) {
      // A call's key is its own (the proxy's random call id): its spend is found by the key alone.
      const previous = await tx.quotaSpend.findFirst({ where: { key: i.key } });
      // Settled before without a spend (a release, or a call that spent nothing): its Event says so.
      const settled = previous ?? (await tx.event.findFirst({ where: { operator: "quota.settle", payload: { path: ["key"], equals: i.key } }, select: { id: true } }));
      if (settled) return { spend: previous ? spendView(previous) : null, released: { tokens: 0, microUsd: 0 }, duplicate: true };
      throw new StateError("NOT_FOUND", `No reservation ${i.key} to settle: reserve a call (quota.reserve) before settling it.`, { key: i.key });
    }
    const held = { tokens: r.tokens, microUsd: Number(r.microUsd) };
    let spend: QuotaSpendView | null = null;
    if (i.spent && (i.spent.tokens > 0 || i.spent.microUsd > 0)) {
      const [row] = await tx.$queryRaw<QuotaSpend[]>`
        INSERT INTO "QuotaSpend" ("id", "key", "goalId", "agentId", "todoId", "runId", "steps", "tokens", "microUsd", "createdAt")
        VALUES (${randomId("qs")}, ${i.key}, ${r.goalId}, ${r.agentId}, ${r.todoId}, ${r.runId}, 0, ${i.spent.tokens}, ${BigInt(i.spent.microUsd)}, COALESCE(${at}::timestamptz, now()))
        RETURNING *`;
      spend = spendView(row!);
    }
    const spent = { tokens: spend?.tokens ?? 0, microUsd: spend?.microUsd ?? 0 };
    if (i.evidence) {
      const values = { ...i.evidence, kind: "model_call" as const, goalId: r.goalId, agentId: r.agentId, ...(r.todoId ? { todoId: r.todoId } : {}), ...(r.runId ? { runId: r.runId } : {}) };
      await insertEvidence(tx, [{ values, at }], ctx);
    }
    const released = { tokens: held.tokens - spent.tokens, microUsd: held.microUsd - spent.microUsd };
    await appendEvent(
      tx,
      {
        operator: "quota.settle",
        actor: actorOf(ctx, r.agentId),
        subjectId: r.id,
        goalId: r.goalId,
        payload: { key: i.key, reserved: held, spent: i.spent ? spent : null, released, overReservation: released.tokens < 0 || released.microUsd < 0, todoId: r.todoId, runId: r.runId },
      },
      ctx,
    );
    return { spend, released, duplicate: false };
  });
}
