import type { TRPCRouterRecord } from "@trpc/server";
import { listMembers, ListMembersInput, PAGE_LIMIT, removeMember, RemoveMemberInput, setMemberRole, SetMemberRoleInput } from "@phoneloop/state";
import { allow } from "../trpc.ts";

export const memberRouter = {
  /** The workspace's members with their roles (people join through an admin's invite link). */
  list: allow("read", ListMembersInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) =>
    listMembers(ctx.db, { ...input, workspaceId: ctx.workspaceId }),
  ),
  setRole: allow("admin", SetMemberRoleInput.omit({ workspaceId: true })).mutation(({ ctx, input }) =>
    setMemberRole(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor }),
  ),
  remove: allow("admin", RemoveMemberInput.omit({ workspaceId: true })).mutation(({ ctx, input }) =>
    removeMember(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor }),
  ),
} satisfies TRPCRouterRecord;
