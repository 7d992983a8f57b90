import type { TRPCRouterRecord } from "@trpc/server";
import { releaseLease, ReleaseLeaseInput, renewLease, RenewLeaseInput, transferLease, TransferLeaseInput } from "@phoneloop/state";
import { allow } from "../trpc.ts";

export const leaseRouter = {
  renew: allow("run", RenewLeaseInput).mutation(({ ctx, input }) => renewLease(ctx.db, input, { actor: ctx.actor })),
  release: allow("run", ReleaseLeaseInput).mutation(({ ctx, input }) => releaseLease(ctx.db, input, { actor: ctx.actor })),
  transfer: allow("run", TransferLeaseInput).mutation(({ ctx, input }) => transferLease(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
