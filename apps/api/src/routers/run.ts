import type { TRPCRouterRecord } from "@trpc/server";
import {
  appendStep,
  AppendStepInput,
  finishRun,
  FinishRunInput,
  resumeRun,
  runDetail,
  RunDetailInput,
  ResumeRunInput,
  saveCheckpoint,
  SaveCheckpointInput,
  startRun,
  StartRunInput,
} from "@phoneloop/state";
import { acting, publicProcedure } from "../trpc.ts";

export const runRouter = {
  /** One run with its last checkpoint and its steps. */
  get: publicProcedure.input(RunDetailInput).query(({ ctx, input }) => runDetail(ctx.db, input)),
  start: publicProcedure.input(StartRunInput).mutation(({ ctx, input }) => startRun(ctx.db, input, acting(ctx))),
  appendStep: publicProcedure.input(AppendStepInput).mutation(({ ctx, input }) => appendStep(ctx.db, input, acting(ctx))),
  checkpoint: publicProcedure.input(SaveCheckpointInput).mutation(({ ctx, input }) => saveCheckpoint(ctx.db, input, acting(ctx))),
  resume: publicProcedure.input(ResumeRunInput).mutation(({ ctx, input }) => resumeRun(ctx.db, input, acting(ctx))),
  finish: publicProcedure.input(FinishRunInput).mutation(({ ctx, input }) => finishRun(ctx.db, input, acting(ctx))),
} satisfies TRPCRouterRecord;
