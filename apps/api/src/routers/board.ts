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
  PAGE_LIMIT,
} from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const boardRouter = {
  /** A goal's board: lanes by todo state, one card per todo. */
  get: procedure(BoardInput).query(({ ctx, input }) => board(ctx.db, input)),
  /** Who must act next, across the workspace's goals or for one. */
  attention: procedure(AttentionQueueInput.omit({ workspaceId: true })).query(({ ctx, input }) =>
    attentionQueue(ctx.db, { ...input, workspaceId: ctx.workspaceId }),
  ),
  /** A goal's events in id order, paged (the cursor is an event id). */
  history: procedure(GoalHistoryInput).query(({ ctx, input }) => goalHistory(ctx.db, input)),
  /** The workspace's goals, newest first, with their todo counts per state: the way into a board. */
  goals: procedure(GoalListInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) =>
    goalList(ctx.db, { ...input, workspaceId: ctx.workspaceId }),
  ),
} satisfies TRPCRouterRecord;
