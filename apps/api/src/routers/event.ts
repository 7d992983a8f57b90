import { tracked, TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { EventId, Id } from "@phoneloop/state";
import { currentPrincipal } from "../auth/principal.ts";
import { openEventStream } from "../events.ts";
import { refusal } from "../permissions.ts";
import { procedure } from "../trpc.ts";

export const EventStreamInput = z.object({
  /** Only events of this goal; without it, every event of the workspace. */
  goalId: Id.optional(),
  /** Resume after this event id; httpSubscriptionLink sends it on reconnect. */
  lastEventId: EventId.nullish(),
});

export const eventRouter = {
  /** New events of the caller's workspace as they commit, from any API process on the same database (SSE). */
  stream: procedure(EventStreamInput).subscription(async ({ ctx, input, signal }) => {
    // Opened here, before tRPC sends "connected": an event committed after the client sees it is delivered, one
    // committed before it is not.
    // The caller is decided again on every membership or token event: a removed member, a revoked token or a token
    // whose issuer left ends the stream at once (the permissions table's row for event.stream, as for any request).
    const caller = ctx.caller;
    const recheck = async () => {
      const refused = refusal(await currentPrincipal(ctx.db, caller), "event.stream");
      return refused ? new TRPCError({ code: refused.code, message: `This stream's access ended: ${refused.message}` }) : null;
    };
    const events = await openEventStream({ hub: ctx.events, workspaceId: ctx.workspaceId, goalId: input.goalId, lastEventId: input.lastEventId, signal, recheck });
    return (async function* () {
      for await (const event of events) yield tracked(event.id, event);
    })();
  }),
} satisfies TRPCRouterRecord;
