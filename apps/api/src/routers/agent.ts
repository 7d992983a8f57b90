import type { TRPCRouterRecord } from "@trpc/server";
import { agentList, AgentListInput, heartbeatAgent, HeartbeatAgentInput, PAGE_LIMIT, registerAgent, RegisterAgentInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const agentRouter = {
  /** In the caller's workspace. With an agent token, the token is bound to this agent id on its first register; an
   * id another token or workspace registered is a CONFLICT. */
  register: procedure(RegisterAgentInput.omit({ workspaceId: true, tokenId: true })).mutation(({ ctx, input }) =>
    registerAgent(
      ctx.db,
      { ...input, workspaceId: ctx.workspaceId, ...(ctx.caller.kind === "agent" ? { tokenId: ctx.caller.tokenId } : {}) },
      { actor: ctx.caller.kind === "agent" ? input.id : ctx.actor },
    ),
  ),
  /** A page of the workspace's agents seen in the last day: heartbeat, kind, phone, todos held (the board's workers). */
  list: procedure(AgentListInput.omit({ workspaceId: true, withinMs: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) =>
    agentList(ctx.db, { ...input, workspaceId: ctx.workspaceId }),
  ),
  heartbeat: procedure(HeartbeatAgentInput).mutation(({ ctx, input }) => heartbeatAgent(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
