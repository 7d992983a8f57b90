import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { setWipLimits, wipLimits } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

// The shape is checked here, the values (whole numbers from 1 to MAX_WIP_LIMIT) by the core: INVALID_INPUT naming the field.
const Limit = z.number().nullable();

export const wipLimitsRouter = {
  /** The workspace's WIP limits per held lane and per phone (null: none); every member reads them, as the board shows them. */
  get: procedure(z.object({}).default({})).query(({ ctx }) => wipLimits(ctx.db, { workspaceId: ctx.workspaceId })),
  /** Saves them for claims from now on (a lowered limit moves no card): admins only. */
  set: procedure(z.object({ claimed: Limit, running: Limit, validating: Limit, perAgent: Limit })).mutation(({ ctx, input }) =>
    setWipLimits(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor }),
  ),
} satisfies TRPCRouterRecord;
