import { tracked, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { EventId, Id } from "@phoneloop/state";
import { openEventStream } from "../events.ts";
import { allow } from "../trpc.ts";

export const EventStreamInput = z.object({
  /** Only events of this goal; without it, every event of the workspace. */
  goalId: Id.optional(),
  /** Resume after this event id; httpSubscriptionLink sends it on reconnect. */
  lastEventId: EventId.nullish(),
});

export const eventRouter = {
  /** New events of the caller's workspace as they commit, from any API process on the same database (SSE). */
  stream: allow("read", EventStreamInput).subscription(async ({ ctx, input, signal }) => {
    // Opened here, before tRPC sends "connected": an event committed after the client sees it is delivered, one
    // committed before it is not.
    const events = await openEventStream({ hub: ctx.events, workspaceId: ctx.workspaceId, goalId: input.goalId, lastEventId: input.lastEventId, signal });
    return (async function* () {
      for await (const event of events) yield tracked(event.id, event);
    })();
  }),
} satisfies TRPCRouterRecord;
