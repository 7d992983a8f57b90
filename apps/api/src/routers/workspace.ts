import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { PERMISSIONS } from "@phoneloop/state";
import { heldPermissions } from "../permissions.ts";
import { procedure } from "../trpc.ts";

export const workspaceRouter = {
  /** Who calls, in which workspace, and what they may do (the web app shows it and hides what they may not). */
  me: procedure(z.object({}).default({})).query(async ({ ctx }) => {
    const workspace = await ctx.db.workspace.findUniqueOrThrow({ where: { id: ctx.workspaceId }, select: { id: true, name: true } });
    const c = ctx.caller;
    const who =
      c.kind === "member" ? { kind: "member" as const, userId: c.userId, role: c.role }
      : c.kind === "agent" ? { kind: "agent" as const, agentId: c.agentId, tokenId: c.tokenId }
      : { kind: "share" as const, shareId: c.shareId };
    return { workspace, who, permissions: heldPermissions(c, PERMISSIONS) };
  }),
} satisfies TRPCRouterRecord;
