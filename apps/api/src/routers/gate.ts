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
import { procedure } from "../trpc.ts";

export const gateRouter = {
  /** One gate with its status: open (question, options, who may answer) or its decision. */
  get: procedure(GateDetailInput).query(({ ctx, input }) => gateDetail(ctx.db, input)),
  /** Who may answer is the workspace's rule, not the opener's choice. A repeated idempotencyKey returns the first
   * gate (created: false); reused for another question, CONFLICT. */
  open: procedure(OpenGateInput).mutation(({ ctx, input }) => openGate(ctx.db, input, { actor: ctx.actor })),
  /** The answering member is the caller. */
  resolve: procedure(ResolveGateInput.omit({ userId: true })).mutation(({ ctx, input }) =>
    resolveGate(ctx.db, { ...input, userId: ctx.actor }, { actor: ctx.actor }),
  ),
  expire: procedure(ExpireGateInput).mutation(({ ctx, input }) => expireGate(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
