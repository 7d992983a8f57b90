import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { attentionQueue, AttentionQueueInput, board, BoardInput, goalHistory, GoalHistoryInput } from "@phoneloop/state";
import { publicProcedure } from "../trpc.ts";

export const boardRouter = {
  /** A goal's board: lanes by todo state, one card per todo. */
  get: publicProcedure.input(BoardInput).query(({ ctx, input }) => board(ctx.db, input)),
  /** Who must act next, across goals or for one. */
  attention: publicProcedure.input(AttentionQueueInput).query(({ ctx, input }) => attentionQueue(ctx.db, input)),
  /** A goal's events after an id, paged. */
  history: publicProcedure.input(GoalHistoryInput).query(({ ctx, input }) => goalHistory(ctx.db, input)),
  /** Goals, newest first, with their todo counts per state: the way into a board. */
  goals: publicProcedure
    .input(z.object({ limit: z.number().int().min(1).max(500).default(100) }).default({ limit: 100 }))
    .query(async ({ ctx, input }) => {
      const goals = await ctx.db.goal.findMany({
        orderBy: [{ createdAt: "desc" }, { id: "asc" }],
        take: input.limit,
        select: { id: true, title: true, status: true, createdAt: true, updatedAt: true },
      });
      const counts = await ctx.db.todo.groupBy({
        by: ["goalId", "state"],
        where: { goalId: { in: goals.map((g) => g.id) } },
        _count: { _all: true },
      });
      return goals.map((g) => ({
        ...g,
        todos: Object.fromEntries(counts.filter((c) => c.goalId === g.id).map((c) => [c.state, c._count._all])) as Record<string, number>,
      }));
    }),
} satisfies TRPCRouterRecord;
