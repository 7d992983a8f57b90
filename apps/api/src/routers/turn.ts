import type { TRPCRouterRecord } from "@trpc/server";
import { recordTurnResult, RecordTurnResultInput, routeTurn, RouteTurnInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const turnRouter = {
  /** Before a turn: where it goes (ready_for_host, wait, blocked, …). */
  route: procedure(RouteTurnInput).mutation(({ ctx, input }) => routeTurn(ctx.db, input, { actor: ctx.actor })),
  /** After a turn: its classified result, applied as one transition (and its spend, if validated). A repeated
   * idempotencyKey returns the first outcome with duplicate: true. */
  result: procedure(RecordTurnResultInput).mutation(({ ctx, input }) => recordTurnResult(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
