import { tracked, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { streamEvents } from "../events.ts";
import { publicProcedure } from "../trpc.ts";

export const EventStreamInput = z.object({
  /** Only events of this goal; without it, every event. */
  goalId: z.string().min(1).optional(),
  /** Resume after this event id; httpSubscriptionLink sends it on reconnect. */
  lastEventId: z.string().regex(/^\d+$/, "must be an event id (digits)").nullish(),
});

export const eventRouter = {
  /** New events as they commit, from any API process on the same database (SSE). */
  stream: publicProcedure.input(EventStreamInput).subscription(async function* ({ ctx, input, signal }) {
    for await (const event of streamEvents({
      db: ctx.db,
      hub: ctx.events,
      goalId: input.goalId,
      lastEventId: input.lastEventId,
      signal,
    })) {
      yield tracked(event.id, event);
    }
  }),
} satisfies TRPCRouterRecord;
