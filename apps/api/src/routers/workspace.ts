import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { PERMISSIONS, holds } from "@phoneloop/state";
import { allow } from "../trpc.ts";

export const workspaceRouter = {
  /** Who calls, in which workspace, and what they may do (the web app shows it and hides what they may not). */
  me: allow("read", z.object({}).default({})).query(async ({ ctx }) => {
    const workspace = await ctx.db.workspace.findUniqueOrThrow({ where: { id: ctx.workspaceId }, select: { id: true, name: true } });
    const c = ctx.caller;
    const holder = c.kind === "member" ? c.role : "agent";
    const who =
      c.kind === "member" ? { kind: "member" as const, userId: c.userId, role: c.role }
      : c.kind === "agent" ? { kind: "agent" as const, agentId: c.agentId, tokenId: c.tokenId }
      : { kind: "share" as const, shareId: c.shareId };
    return { workspace, who, permissions: PERMISSIONS.filter((p) => holds(holder as Parameters<typeof holds>[0], p)) };
  }),
} satisfies TRPCRouterRecord;
