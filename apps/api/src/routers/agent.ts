import type { TRPCRouterRecord } from "@trpc/server";
import { heartbeatAgent, HeartbeatAgentInput, registerAgent, RegisterAgentInput } from "@phoneloop/state";
import { acting, publicProcedure } from "../trpc.ts";

export const agentRouter = {
  register: publicProcedure.input(RegisterAgentInput).mutation(({ ctx, input }) => registerAgent(ctx.db, input, acting(ctx))),
  heartbeat: publicProcedure.input(HeartbeatAgentInput).mutation(({ ctx, input }) => heartbeatAgent(ctx.db, input, acting(ctx))),
} satisfies TRPCRouterRecord;
