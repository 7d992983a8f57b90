import type { TRPCRouterRecord } from "@trpc/server";
import { setQuotaPolicy, SetQuotaPolicyInput, shouldRun, ShouldRunInput, spendQuota, SpendQuotaInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const quotaRouter = {
  setPolicy: procedure(SetQuotaPolicyInput).mutation(({ ctx, input }) => setQuotaPolicy(ctx.db, input, { actor: ctx.actor })),
  /** Asked before a turn: run, or skip with the reason. Spends nothing. */
  shouldRun: procedure(ShouldRunInput).query(({ ctx, input }) => shouldRun(ctx.db, input, { actor: ctx.actor })),
  /** After a validated turn; a repeated key spends once. */
  spend: procedure(SpendQuotaInput).mutation(({ ctx, input }) => spendQuota(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
