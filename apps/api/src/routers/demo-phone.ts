import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { allowPendingKeys } from "../demo-phone.ts";
import { allow } from "../trpc.ts";

export const demoPhoneRouter = {
  /** "Allow USB debugging?" on the demo phone, answered Allow for the browser waiting on it (an operator's click). */
  allowBrowser: allow("operate", z.object({}).default({})).mutation(({ ctx }) => allowPendingKeys(ctx.demoPhone)),
} satisfies TRPCRouterRecord;
