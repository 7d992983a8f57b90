import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { allowPendingKeys, DEMO_KEY_NAME } from "../demo-phone.ts";
import { procedure } from "../trpc.ts";

export const demoPhoneRouter = {
  /**
   * "Allow USB debugging?" on the demo phone, answered Allow for the browser waiting on it (an operator's click):
   * only for the key named `keyName`, the name the asking tab gave its key (with its own random tag).
   */
  allowBrowser: procedure(
    z.object({
      keyName: z.string().regex(DEMO_KEY_NAME, "keyName is the name this tab gave its ADB key: a name, a space and a random tag of at least 22 base64url characters (the web app's demo connection makes it)"),
    }),
  ).mutation(({ ctx, input }) => allowPendingKeys(ctx.demoPhone, input.keyName)),
} satisfies TRPCRouterRecord;
