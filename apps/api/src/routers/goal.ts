import type { TRPCRouterRecord } from "@trpc/server";
import {
  cancelGoal,
  createGoal,
  CreateGoalInput,
  GoalDetailInput,
  goalDetail,
  GoalStatusChangeInput,
  pauseGoal,
  resumeGoal,
  updateGoal,
  UpdateGoalInput,
} from "@phoneloop/state";
import { acting, publicProcedure } from "../trpc.ts";

export const goalRouter = {
  /** One goal: objective, bounds, non-goals, status. */
  get: publicProcedure.input(GoalDetailInput).query(({ ctx, input }) => goalDetail(ctx.db, input)),
  create: publicProcedure.input(CreateGoalInput).mutation(({ ctx, input }) => createGoal(ctx.db, input, acting(ctx))),
  update: publicProcedure.input(UpdateGoalInput).mutation(({ ctx, input }) => updateGoal(ctx.db, input, acting(ctx))),
  pause: publicProcedure.input(GoalStatusChangeInput).mutation(({ ctx, input }) => pauseGoal(ctx.db, input, acting(ctx))),
  resume: publicProcedure.input(GoalStatusChangeInput).mutation(({ ctx, input }) => resumeGoal(ctx.db, input, acting(ctx))),
  cancel: publicProcedure.input(GoalStatusChangeInput).mutation(({ ctx, input }) => cancelGoal(ctx.db, input, acting(ctx))),
} satisfies TRPCRouterRecord;
