import type { TRPCRouterRecord } from "@trpc/server";
import { releaseLease, ReleaseLeaseInput, renewLease, RenewLeaseInput, transferLease, TransferLeaseInput } from "@phoneloop/state";
import { acting, publicProcedure } from "../trpc.ts";

export const leaseRouter = {
  renew: publicProcedure.input(RenewLeaseInput).mutation(({ ctx, input }) => renewLease(ctx.db, input, acting(ctx))),
  release: publicProcedure.input(ReleaseLeaseInput).mutation(({ ctx, input }) => releaseLease(ctx.db, input, acting(ctx))),
  transfer: publicProcedure.input(TransferLeaseInput).mutation(({ ctx, input }) => transferLease(ctx.db, input, acting(ctx))),
} satisfies TRPCRouterRecord;
