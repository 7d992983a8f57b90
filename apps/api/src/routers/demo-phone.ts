import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { allowPendingKeys } from "../demo-phone.ts";
import { procedure } from "../trpc.ts";

export const demoPhoneRouter = {
  /** "Allow USB debugging?" on the demo phone, answered Allow for the browser waiting on it (an operator's click). */
  allowBrowser: procedure(z.object({}).default({})).mutation(({ ctx }) => allowPendingKeys(ctx.demoPhone)),
} satisfies TRPCRouterRecord;
