import type { TRPCRouterRecord } from "@trpc/server";
import {
  appendStep,
  AppendStepInput,
  finishRun,
  FinishRunInput,
  recordStep,
  RecordStepInput,
  resumeRun,
  runDetail,
  RunDetailInput,
  ResumeRunInput,
  saveCheckpoint,
  SaveCheckpointInput,
  startRun,
  StartRunInput,
} from "@phoneloop/state";
import { procedure } from "../trpc.ts";
import { runReplayProcedures } from "./run-replay.ts";

export const runRouter = {
  ...runReplayProcedures,
  /** One run with its last checkpoint and its steps. */
  get: procedure(RunDetailInput).query(({ ctx, input }) => runDetail(ctx.db, input)),
  start: procedure(StartRunInput).mutation(({ ctx, input }) => startRun(ctx.db, input, { actor: ctx.actor })),
  appendStep: procedure(AppendStepInput).mutation(({ ctx, input }) => appendStep(ctx.db, input, { actor: ctx.actor })),
  /** One executor step's writes in one transaction (evidence, step row, turn result and spend, checkpoint), and
   * the route of the agent's next turn when asked: one round trip and one commit per step. */
  recordStep: procedure(RecordStepInput).mutation(({ ctx, input }) => recordStep(ctx.db, input, { actor: ctx.actor })),
  checkpoint: procedure(SaveCheckpointInput).mutation(({ ctx, input }) => saveCheckpoint(ctx.db, input, { actor: ctx.actor })),
  resume: procedure(ResumeRunInput).mutation(({ ctx, input }) => resumeRun(ctx.db, input, { actor: ctx.actor })),
  finish: procedure(FinishRunInput).mutation(({ ctx, input }) => finishRun(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
