import type { TRPCRouterRecord } from "@trpc/server";
import {
  finishSuiteRun,
  FinishSuiteRunInput,
  recordSuiteAttempt,
  RecordSuiteAttemptInput,
  startSuiteRun,
  StartSuiteRunInput,
  suiteRunDetail,
  SuiteRunDetailInput,
  suiteRunList,
  SuiteRunListInput,
  PAGE_LIMIT,
} from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const suiteRouter = {
  /** Suite runs, newest first, each with its figures (success rate and its Wilson interval, means, cost). */
  list: procedure(SuiteRunListInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) => suiteRunList(ctx.db, { ...input, workspaceId: ctx.workspaceId })),
  /** One suite run with its settings and every attempt (task, seed, trial, score, steps, tokens, cost, the run to replay). */
  get: procedure(SuiteRunDetailInput).query(({ ctx, input }) => suiteRunDetail(ctx.db, input)),
  /** The suite runner (an agent token, or an operator) begins a suite run in the caller's workspace. */
  start: procedure(StartSuiteRunInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => startSuiteRun(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  /** One attempt's outcome; recording the same task, seed and trial again returns the first. */
  recordAttempt: procedure(RecordSuiteAttemptInput).mutation(({ ctx, input }) => recordSuiteAttempt(ctx.db, input, { actor: ctx.actor })),
  finish: procedure(FinishSuiteRunInput).mutation(({ ctx, input }) => finishSuiteRun(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
