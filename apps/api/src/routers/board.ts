import type { TRPCRouterRecord } from "@trpc/server";
import {
  attentionQueue,
  AttentionQueueInput,
  board,
  BoardInput,
  goalHistory,
  GoalHistoryInput,
  goalList,
  GoalListInput,
} from "@phoneloop/state";
import { publicProcedure } from "../trpc.ts";

export const boardRouter = {
  /** A goal's board: lanes by todo state, one card per todo. */
  get: publicProcedure.input(BoardInput).query(({ ctx, input }) => board(ctx.db, input)),
  /** Who must act next, across goals or for one. */
  attention: publicProcedure.input(AttentionQueueInput).query(({ ctx, input }) => attentionQueue(ctx.db, input)),
  /** A goal's events after an id, paged. */
  history: publicProcedure.input(GoalHistoryInput).query(({ ctx, input }) => goalHistory(ctx.db, input)),
  /** Goals, newest first, with their todo counts per state: the way into a board. */
  goals: publicProcedure.input(GoalListInput).query(({ ctx, input }) => goalList(ctx.db, input)),
} satisfies TRPCRouterRecord;
