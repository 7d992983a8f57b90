import type { TRPCRouterRecord } from "@trpc/server";
import { releaseLease, ReleaseLeaseInput, renewLease, RenewLeaseInput, transferLease, TransferLeaseInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const leaseRouter = {
  renew: procedure(RenewLeaseInput).mutation(({ ctx, input }) => renewLease(ctx.db, input, { actor: ctx.actor })),
  release: procedure(ReleaseLeaseInput).mutation(({ ctx, input }) => releaseLease(ctx.db, input, { actor: ctx.actor })),
  transfer: procedure(TransferLeaseInput).mutation(({ ctx, input }) => transferLease(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
