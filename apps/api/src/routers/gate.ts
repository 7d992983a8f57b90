import type { TRPCRouterRecord } from "@trpc/server";
import {
  expireGate,
  ExpireGateInput,
  gateDetail,
  GateDetailInput,
  openGate,
  OpenGateInput,
  resolveGate,
  ResolveGateInput,
} from "@phoneloop/state";
import { acting, memberProcedure, publicProcedure } from "../trpc.ts";

/** The resolving member is the caller (x-phoneloop-member), never a field the caller fills in. */
const ResolveAsCallerInput = ResolveGateInput.omit({ memberId: true });

export const gateRouter = {
  /** One gate with its status: open (question, options, who may answer) or its decision. */
  get: publicProcedure.input(GateDetailInput).query(({ ctx, input }) => gateDetail(ctx.db, input)),
  /** A repeated idempotencyKey returns the first gate (created: false); reused for another question, CONFLICT. */
  open: publicProcedure.input(OpenGateInput).mutation(({ ctx, input }) => openGate(ctx.db, input, acting(ctx))),
  resolve: memberProcedure
    .input(ResolveAsCallerInput)
    .mutation(({ ctx, input }) => resolveGate(ctx.db, { ...input, memberId: ctx.member.id }, { actor: ctx.member.id })),
  expire: publicProcedure.input(ExpireGateInput).mutation(({ ctx, input }) => expireGate(ctx.db, input, acting(ctx))),
} satisfies TRPCRouterRecord;
