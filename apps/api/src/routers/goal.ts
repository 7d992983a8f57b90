import type { TRPCRouterRecord } from "@trpc/server";
import {
  cancelGoal,
  completeGoal,
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
import { allow } from "../trpc.ts";

export const goalRouter = {
  /** One goal: objective, bounds, non-goals, status. */
  get: allow("read", GoalDetailInput).query(({ ctx, input }) => goalDetail(ctx.db, input)),
  /** In the caller's workspace; the caller is its creator. */
  create: allow("run", CreateGoalInput.omit({ workspaceId: true })).mutation(({ ctx, input }) =>
    createGoal(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor }),
  ),
  update: allow("run", UpdateGoalInput).mutation(({ ctx, input }) => updateGoal(ctx.db, input, { actor: ctx.actor })),
  pause: allow("run", GoalStatusChangeInput).mutation(({ ctx, input }) => pauseGoal(ctx.db, input, { actor: ctx.actor })),
  resume: allow("run", GoalStatusChangeInput).mutation(({ ctx, input }) => resumeGoal(ctx.db, input, { actor: ctx.actor })),
  cancel: allow("run", GoalStatusChangeInput).mutation(({ ctx, input }) => cancelGoal(ctx.db, input, { actor: ctx.actor })),
  /** A person completes a goal whose todos are all done (the attention queue proposes it); refused while work is open. */
  complete: allow("run", GoalStatusChangeInput).mutation(({ ctx, input }) => completeGoal(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
