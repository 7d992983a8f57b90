import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { ModelSettingsInput } from "../model-settings.ts";
import { allow } from "../trpc.ts";

export const modelSettingsRouter = {
  /** The workspace's model endpoint, models and prices; the key only as "set or not". */
  get: allow("admin", z.object({}).default({})).query(({ ctx }) => ctx.modelSettings.view(ctx.workspaceId)),
  /** Leave apiKey out to keep the stored one. */
  set: allow("admin", ModelSettingsInput).mutation(({ ctx, input }) => ctx.modelSettings.set(ctx.workspaceId, input, ctx.actor)),
} satisfies TRPCRouterRecord;
