import { z } from "zod";
import { Prisma } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { BigCount, Count, Id } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";

// The partial unique indexes of the second migration are the conflict targets.
const rawGoalTarget = Prisma.sql`("goalId") WHERE "scope" = 'goal'`;
const rawAgentTarget = Prisma.sql`("agentId") WHERE "scope" = 'agent'`;

export const SetQuotaPolicyInput = z
  .object({
    scope: z.enum(["goal", "agent"]),
    goalId: Id.optional(),
    agentId: Id.optional(),
    windowMs: z.number().int().min(1).max(366 * 24 * 3600 * 1000),
    maxSteps: Count.nullish(),
    maxTokens: Count.nullish(),
    /** Money in micro-dollars (1 USD = 1,000,000). */
    maxMicroUsd: BigCount.nullish(),
  })
  .refine((p) => (p.scope === "goal" ? !!p.goalId && !p.agentId : !!p.agentId && !p.goalId), {
    message: "a goal policy names goalId only; an agent policy names agentId only",
    path: ["scope"],
  });
export type SetQuotaPolicyInput = z.input<typeof SetQuotaPolicyInput>;

export interface QuotaPolicyView {
  id: string;
  scope: "goal" | "agent";
  goalId: string | null;
  agentId: string | null;
  windowMs: number;
  maxSteps: number | null;
  maxTokens: number | null;
  maxMicroUsd: number | null;
}

/** Creates or replaces the one policy of a goal or an agent. */
export async function setQuotaPolicy(db: DbOrTx, raw: SetQuotaPolicyInput, ctx?: OperatorContext): Promise<QuotaPolicyView> {
  const i = parseInput(SetQuotaPolicyInput, raw, "quota.setPolicy");
  return inTx(db, async (tx) => {
    if (i.goalId && !(await tx.goal.findUnique({ where: { id: i.goalId }, select: { id: true } }))) {
      throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
    }
    const limits = { windowMs: i.windowMs, maxSteps: i.maxSteps ?? null, maxTokens: i.maxTokens ?? null, maxMicroUsd: i.maxMicroUsd == null ? null : BigInt(i.maxMicroUsd) };
    const rows = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO "QuotaPolicy" ("id", "scope", "goalId", "agentId", "windowMs", "maxSteps", "maxTokens", "maxMicroUsd")
      VALUES (${randomId("qp")}, ${i.scope}::"QuotaScope", ${i.goalId ?? null}, ${i.agentId ?? null}, ${limits.windowMs}, ${limits.maxSteps}, ${limits.maxTokens}, ${limits.maxMicroUsd})
      ON CONFLICT ${i.scope === "goal" ? rawGoalTarget : rawAgentTarget} DO UPDATE SET
        "windowMs" = EXCLUDED."windowMs", "maxSteps" = EXCLUDED."maxSteps", "maxTokens" = EXCLUDED."maxTokens", "maxMicroUsd" = EXCLUDED."maxMicroUsd"
      RETURNING "id"`;
    const p = await tx.quotaPolicy.findUniqueOrThrow({ where: { id: rows[0]!.id } });
    const view: QuotaPolicyView = { ...p, windowMs: Number(p.windowMs), maxMicroUsd: p.maxMicroUsd === null ? null : Number(p.maxMicroUsd) };
    await appendEvent(tx, { operator: "quota.setPolicy", actor: actorOf(ctx, undefined), subjectId: p.id, goalId: p.goalId, payload: { ...view } }, ctx);
    return view;
  });
}
