// spend(key, amounts): idempotent on the key, never over the limit. The policy rows are locked FOR UPDATE, so
// concurrent spends against one policy run one at a time: sum the window, check, insert.
import { z } from "zod";
import type { QuotaSpend } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { BigCount, Count, Id, IdempotencyKey } from "../../domain/schemas.ts";
import { actorOf, appendEvent, atParam, inTxJoining, isUniqueViolation, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { describeRemaining, overLimit, policyUsage, usageWithSpend, type PolicyUsage } from "./usage.ts";
import { workspaceOfGoal } from "../idempotency-keys.ts";

export const SpendQuotaInput = z.object({
  key: IdempotencyKey,
  goalId: Id,
  agentId: Id,
  todoId: Id.optional(),
  /** The run it was spent in (a run of goalId): the run view and the board show spend per run. */
  runId: Id.optional(),
  steps: Count.default(0),
  tokens: Count.default(0),
  microUsd: BigCount.default(0),
});
export type SpendQuotaInput = z.input<typeof SpendQuotaInput>;

export interface QuotaSpendView {
  id: string;
  key: string;
  goalId: string;
  agentId: string;
  todoId: string | null;
  runId: string | null;
  steps: number;
  tokens: number;
  microUsd: number;
  createdAt: Date;
}

export interface SpendQuotaResult {
  spend: QuotaSpendView;
  /** true when the key was spent before: nothing new was spent. */
  duplicate: boolean;
  usage: PolicyUsage[];
}

/**
 * What the caller's transaction has read already (a step record): the goal's workspace, and the goal of the run
 * it spends in. Each is then not read again.
 */
export interface SpendKnown {
  workspaceId: string;
  runGoalId?: string;
}

export async function spendQuota(db: DbOrTx, raw: SpendQuotaInput, ctx?: OperatorContext, known?: SpendKnown): Promise<SpendQuotaResult> {
  const i = parseInput(SpendQuotaInput, raw, "quota.spend");
  const at = atParam(ctx);
  try {
    return await inTxJoining(db, async (tx) => {
      const usage = await policyUsage(tx, { goalId: i.goalId, agentId: i.agentId, at, lock: true });
      // Checked after taking the lock: a concurrent spend of the same key has committed by now.
      const previous = await spendOfKey(tx, i.goalId, i.key, known?.workspaceId);
      if (previous && previous.goalId !== i.goalId) {
        throw new StateError("CONFLICT", `Spend key ${i.key} was used for another goal; use a fresh key for each spend.`, { key: i.key });
      }
      if (previous) return { spend: spendView(previous), duplicate: true, usage };
      if (i.runId) {
        const run = known?.runGoalId !== undefined ? { goalId: known.runGoalId } : await tx.run.findUnique({ where: { id: i.runId }, select: { goalId: true } });
        if (!run || run.goalId !== i.goalId) throw new StateError("NOT_FOUND", `Run ${i.runId} is not a run of goal ${i.goalId}; spend in the run that did the work.`, { runId: i.runId, goalId: i.goalId });
      }
      for (const u of usage) {
        const over = overLimit(u, i);
        if (over.length) {
          throw new StateError(
            "QUOTA_EXCEEDED",
            `Spending ${over.map((k) => `${i[k]} ${k}`).join(", ")} would exceed the ${u.scope} quota of ${u.subjectId}: ${describeRemaining(u)}.` +
              (u.windowResetsInMs !== null ? ` Room frees up in ${Math.ceil(u.windowResetsInMs / 1000)}s.` : ""),
            { policyId: u.policyId, scope: u.scope, subjectId: u.subjectId, over, remaining: u.remaining, asked: { steps: i.steps, tokens: i.tokens, microUsd: i.microUsd }, retryAfterMs: u.windowResetsInMs },
          );
        }
      }
      const id = randomId("qs");
      const [spend] = await tx.$queryRaw<QuotaSpend[]>`
        INSERT INTO "QuotaSpend" ("id", "key", "goalId", "agentId", "todoId", "runId", "steps", "tokens", "microUsd", "createdAt")
        VALUES (${id}, ${i.key}, ${i.goalId}, ${i.agentId}, ${i.todoId ?? null}, ${i.runId ?? null}, ${i.steps}, ${i.tokens}, ${BigInt(i.microUsd)}, COALESCE(${at}::timestamptz, now()))
        ON CONFLICT ("workspaceId", "key") DO NOTHING RETURNING *`;
      if (!spend) {
        // Spent meanwhile by a call that held no policy lock (no policy applies): that spend stands.
        const previous = (await spendOfKey(tx, i.goalId, i.key, known?.workspaceId))!;
        if (previous.goalId !== i.goalId) throw new StateError("CONFLICT", `Spend key ${i.key} was used for another goal; use a fresh key for each spend.`, { key: i.key });
        return { spend: spendView(previous), duplicate: true, usage };
      }
      await appendEvent(tx, { operator: "quota.spend", actor: actorOf(ctx, i.agentId), subjectId: id, goalId: i.goalId, payload: { key: i.key, steps: i.steps, tokens: i.tokens, microUsd: i.microUsd, todoId: i.todoId ?? null, runId: i.runId ?? null } }, ctx);
      return { spend: spendView(spend), duplicate: false, usage: usage.map((u) => usageWithSpend(u, i, spend.createdAt)) };
    });
  } catch (e) {
    // No policy to lock, and a concurrent spend of the same key won: that one stands.
    if (isUniqueViolation(e)) {
      const previous = await spendOfKey(db, i.goalId, i.key);
      if (previous && previous.goalId !== i.goalId) {
        throw new StateError("CONFLICT", `Spend key ${i.key} was used for another goal; use a fresh key for each spend.`, { key: i.key });
      }
      if (previous) return { spend: spendView(previous), duplicate: true, usage: await policyUsage(db, { goalId: i.goalId, agentId: i.agentId, at }) };
    }
    if (/QuotaSpend_goalId_fkey/.test(String((e as Error)?.message))) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
    throw e;
  }
}

/** A spend row as operators answer it (money as a number). */
export function spendView(s: { id: string; key: string; goalId: string; agentId: string; todoId: string | null; runId: string | null; steps: number; tokens: number; microUsd: bigint; createdAt: Date }): QuotaSpendView {
  return { ...s, microUsd: Number(s.microUsd) };
}

/** The spend recorded under `key` in the workspace of goal `goalId` (spend keys are the workspace's), or null. */
async function spendOfKey(db: DbOrTx, goalId: string, key: string, knownWorkspaceId?: string): Promise<QuotaSpend | null> {
  const workspaceId = knownWorkspaceId ?? (await workspaceOfGoal(db, goalId));
  return workspaceId ? db.quotaSpend.findUnique({ where: { workspaceId_key: { workspaceId, key } } }) : null;
}
