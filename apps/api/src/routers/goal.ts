import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  BigCount,
  cancelGoal,
  completeGoal,
  Count,
  createGoal,
  CreateGoalInput,
  GoalDetailInput,
  goalDetail,
  goalRuns,
  GoalRunsInput,
  GoalStatusChangeInput,
  pauseGoal,
  resumeGoal,
  setQuotaPolicy,
  updateGoal,
  UpdateGoalInput,
} from "@phoneloop/state";
import { procedure } from "../trpc.ts";

/** The limits a goal may be created with: a window and at least one cap (money in micro-dollars). */
const GoalQuotaInput = z
  .object({ windowMs: z.number().int().min(1).max(366 * 24 * 3600 * 1000), maxSteps: Count.nullish(), maxTokens: Count.nullish(), maxMicroUsd: BigCount.nullish() })
  .refine((q) => q.maxSteps != null || q.maxTokens != null || q.maxMicroUsd != null, { message: "a quota caps steps, tokens or money", path: ["maxSteps"] });

export const goalRouter = {
  /** One goal: objective, bounds, non-goals, status. */
  get: procedure(GoalDetailInput).query(({ ctx, input }) => goalDetail(ctx.db, input)),
  /** A page of the goal's runs, newest first, with the lease a running run's agent holds: what a tab may resume. */
  runs: procedure(GoalRunsInput).query(({ ctx, input }) => goalRuns(ctx.db, input)),
  /**
   * In the caller's workspace; the caller is its creator. A `quota` caps the new goal from its first step (one
   * transaction with the goal): a cap on one's own new goal only restricts, so it needs no admin; changing it later does.
   */
  create: procedure(CreateGoalInput.omit({ workspaceId: true }).extend({ quota: GoalQuotaInput.optional() })).mutation(({ ctx, input }) => {
    const { quota, ...goal } = input;
    if (!quota) return createGoal(ctx.db, { ...goal, workspaceId: ctx.workspaceId }, { actor: ctx.actor });
    return ctx.db.$transaction(async (tx) => {
      const created = await createGoal(tx, { ...goal, workspaceId: ctx.workspaceId }, { actor: ctx.actor });
      await setQuotaPolicy(tx, { scope: "goal", goalId: created.id, ...quota }, { actor: ctx.actor });
      return created;
    });
  }),
  update: procedure(UpdateGoalInput).mutation(({ ctx, input }) => updateGoal(ctx.db, input, { actor: ctx.actor })),
  pause: procedure(GoalStatusChangeInput).mutation(({ ctx, input }) => pauseGoal(ctx.db, input, { actor: ctx.actor })),
  resume: procedure(GoalStatusChangeInput).mutation(({ ctx, input }) => resumeGoal(ctx.db, input, { actor: ctx.actor })),
  cancel: procedure(GoalStatusChangeInput).mutation(({ ctx, input }) => cancelGoal(ctx.db, input, { actor: ctx.actor })),
  /** A person completes a goal whose todos are all done (the attention queue proposes it); refused while work is open. */
  complete: procedure(GoalStatusChangeInput).mutation(({ ctx, input }) => completeGoal(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
