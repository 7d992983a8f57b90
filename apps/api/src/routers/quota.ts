import type { TRPCRouterRecord } from "@trpc/server";
import { setQuotaPolicy, SetQuotaPolicyInput, shouldRun, ShouldRunInput, spendQuota, SpendQuotaInput } from "@phoneloop/state";
import { acting, publicProcedure } from "../trpc.ts";

export const quotaRouter = {
  setPolicy: publicProcedure.input(SetQuotaPolicyInput).mutation(({ ctx, input }) => setQuotaPolicy(ctx.db, input, acting(ctx))),
  /** Asked before a turn: run, or skip with the reason. Spends nothing. */
  shouldRun: publicProcedure.input(ShouldRunInput).query(({ ctx, input }) => shouldRun(ctx.db, input, acting(ctx))),
  /** After a validated turn; a repeated key spends once. */
  spend: publicProcedure.input(SpendQuotaInput).mutation(({ ctx, input }) => spendQuota(ctx.db, input, acting(ctx))),
} satisfies TRPCRouterRecord;
