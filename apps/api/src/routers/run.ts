import type { TRPCRouterRecord } from "@trpc/server";
import {
  appendStep,
  AppendStepInput,
  finishRun,
  FinishRunInput,
  handBack,
  HandBackInput,
  recordPersonStep,
  RecordPersonStepInput,
  takeOver,
  TakeOverInput,
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
  /** A person takes over the run's phone: the agent's open ask, else a takeover gate on the todo its agent holds
   * (which stops the agent at its next write). The taker is the caller; another member's takeover is a CONFLICT. */
  takeOver: procedure(TakeOverInput.omit({ userId: true })).mutation(({ ctx, input }) => takeOver(ctx.db, { ...input, userId: ctx.actor }, { actor: ctx.actor })),
  /** One action the taker performed on the phone (device pixels), with its screenshots before and after (put first
   * with POST /blobs): a step whose actor is the caller. A secret's text is stored masked. */
  recordPersonStep: procedure(RecordPersonStepInput.omit({ userId: true })).mutation(({ ctx, input }) =>
    recordPersonStep(ctx.db, { ...input, userId: ctx.actor }, { actor: ctx.actor }),
  ),
  /** The taker (or an admin) hands the phone back: the takeover is answered with the note, the todo given back,
   * and a handoff evidence row says what the person did. */
  handBack: procedure(HandBackInput.omit({ userId: true })).mutation(({ ctx, input }) => handBack(ctx.db, { ...input, userId: ctx.actor }, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
