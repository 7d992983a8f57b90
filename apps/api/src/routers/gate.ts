import type { TRPCRouterRecord } from "@trpc/server";
import {
  decideBatch,
  DecideBatchInput,
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
  /** The answering member is the caller. The gate resolves when its approval rule is met (its approvals, or the
   * first deny); until then it stays open and says who approved. */
  resolve: procedure(ResolveGateInput.omit({ userId: true })).mutation(({ ctx, input }) =>
    resolveGate(ctx.db, { ...input, userId: ctx.actor }, { actor: ctx.actor }),
  ),
  /** A batch decision: the caller approves or denies the open approvals of one category on one target that they
   * were shown (gate.get's approvals.batchGateIds), each as its own decision; the result says per gate. */
  decideBatch: procedure(DecideBatchInput.omit({ userId: true })).mutation(({ ctx, input }) =>
    decideBatch(ctx.db, { ...input, userId: ctx.actor }, { actor: ctx.actor }),
  ),
  expire: procedure(ExpireGateInput).mutation(({ ctx, input }) => expireGate(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
