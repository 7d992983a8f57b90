// A run's replay for members: its header (goal, agent, grade, totals, report, timeline), its steps in pages, and a
// reviewer's grade. Merged into the `run` router (run.list, run.replay, run.steps, run.grade).
import type { TRPCRouterRecord } from "@trpc/server";
import { gradeRun, GradeRunInput, PAGE_LIMIT, runList, RunListInput, runReplay, RunReplayInput, runSteps, RunStepsInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const runReplayProcedures = {
  /** A page of the workspace's runs, newest first (or one goal's). */
  list: procedure(RunListInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) =>
    runList(ctx.db, { ...input, workspaceId: ctx.workspaceId }),
  ),
  /** The run as its replay opens: goal, agent, status, grade, totals, the summary report and the planner's timeline. */
  replay: procedure(RunReplayInput).query(({ ctx, input }) => runReplay(ctx.db, input)),
  /** A page of the run's steps, each with its screenshot (a blob id), action, model words, anomalies, gates, timings and cost. */
  steps: procedure(RunStepsInput).query(({ ctx, input }) => runSteps(ctx.db, input)),
  /** A reviewer's grade A–D with a note; who graded is the caller. */
  grade: procedure(GradeRunInput).mutation(({ ctx, input }) => gradeRun(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
