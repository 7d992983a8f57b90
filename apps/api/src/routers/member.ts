import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { listMembers, removeMember, RemoveMemberInput, setMemberRole, SetMemberRoleInput } from "@phoneloop/state";
import { allow } from "../trpc.ts";

export const memberRouter = {
  /** The workspace's members with their roles (people join through an admin's invite link). */
  list: allow("read", z.object({}).default({})).query(({ ctx }) => listMembers(ctx.db, { workspaceId: ctx.workspaceId })),
  setRole: allow("admin", SetMemberRoleInput.omit({ workspaceId: true })).mutation(({ ctx, input }) =>
    setMemberRole(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor }),
  ),
  remove: allow("admin", RemoveMemberInput.omit({ workspaceId: true })).mutation(({ ctx, input }) =>
    removeMember(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor }),
  ),
} satisfies TRPCRouterRecord;
