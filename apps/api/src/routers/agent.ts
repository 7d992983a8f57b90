import type { TRPCRouterRecord } from "@trpc/server";
import { heartbeatAgent, HeartbeatAgentInput, registerAgent, RegisterAgentInput } from "@phoneloop/state";
import { z } from "zod";
import { allow } from "../trpc.ts";
import { agentList } from "./agent-list.ts";

export const agentRouter = {
  /** In the caller's workspace. With an agent token, the token is bound to this agent id on its first register; an
   * id another token or workspace registered is a CONFLICT. */
  register: allow("run", RegisterAgentInput.omit({ workspaceId: true, tokenId: true })).mutation(({ ctx, input }) =>
    registerAgent(
      ctx.db,
      { ...input, workspaceId: ctx.workspaceId, ...(ctx.caller.kind === "agent" ? { tokenId: ctx.caller.tokenId } : {}) },
      { actor: ctx.caller.kind === "agent" ? input.id : ctx.actor },
    ),
  ),
  /** The workspace's agents seen in the last day: heartbeat, kind, phone, todos held (the board's workers). */
  list: allow("read", z.object({}).default({})).query(({ ctx }) => agentList(ctx.db, { workspaceId: ctx.workspaceId })),
  heartbeat: allow("run", HeartbeatAgentInput).mutation(({ ctx, input }) => heartbeatAgent(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
