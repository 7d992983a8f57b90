import type { TRPCRouterRecord } from "@trpc/server";
import { listMembers, ListMembersInput, PAGE_LIMIT, removeMember, RemoveMemberInput, setMemberRole, SetMemberRoleInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const memberRouter = {
  /** The workspace's members with their roles (people join through an admin's invite link). */
  list: procedure(ListMembersInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) =>
    listMembers(ctx.db, { ...input, workspaceId: ctx.workspaceId }),
  ),
  setRole: procedure(SetMemberRoleInput.omit({ workspaceId: true })).mutation(({ ctx, input }) =>
    setMemberRole(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor }),
  ),
  remove: procedure(RemoveMemberInput.omit({ workspaceId: true })).mutation(({ ctx, input }) =>
    removeMember(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor }),
  ),
} satisfies TRPCRouterRecord;
