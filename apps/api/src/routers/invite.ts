import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { issueInvite, RoleSchema } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const inviteRouter = {
  /** A one-time link (valid 7 days) that makes whoever opens it a member with `role`; the web app prefixes its origin. */
  create: procedure(z.object({ role: RoleSchema })).mutation(async ({ ctx, input }) => {
    const { token, expiresAt } = await issueInvite(ctx.db, { workspaceId: ctx.workspaceId, role: input.role, invitedBy: ctx.actor });
    return { path: `/invite?token=${token}`, role: input.role, expiresAt };
  }),
} satisfies TRPCRouterRecord;
