// Goals, newest first, with their todo counts per state: the way into a board.
import { z } from "zod";
import { parseInput } from "../domain/input.ts";
import type { TodoState } from "../domain/todo-transitions.ts";
import type { GoalStatus } from "../domain/goal-transitions.ts";
import { pageOf, PageFields, type Page } from "../domain/page.ts";
import { Id } from "../domain/schemas.ts";
import type { DbOrTx } from "../services/operator.ts";
import { cursorOf, keysetPage, pageOrder } from "./page-query.ts";

/** A page of goals, newest first; the cursor is opaque. */
export const GoalListInput = z.object({ workspaceId: Id, ...PageFields });
export type GoalListInput = z.input<typeof GoalListInput>;

export interface GoalListItem {
  id: string;
  title: string;
  status: GoalStatus;
  createdAt: Date;
  updatedAt: Date;
  todos: Partial<Record<TodoState, number>>;
}

const GOAL_ORDER = pageOrder(["createdAt", "desc", Date], ["id", "asc", String]);

export async function goalList(db: DbOrTx, raw: GoalListInput): Promise<Page<GoalListItem>> {
  const i = parseInput(GoalListInput, raw, "goalList");
  const { items: goals, nextCursor } = pageOf(
    await db.goal.findMany({
      ...keysetPage(GOAL_ORDER, i, { workspaceId: i.workspaceId }),
      select: { id: true, title: true, status: true, createdAt: true, updatedAt: true },
    }),
    i.limit,
    cursorOf(GOAL_ORDER),
  );
  const counts = await db.todo.groupBy({
    by: ["goalId", "state"],
    where: { goalId: { in: goals.map((g) => g.id) } },
    _count: { _all: true },
  });
  const items = goals.map((g) => ({
    ...g,
    todos: Object.fromEntries(counts.filter((c) => c.goalId === g.id).map((c) => [c.state, c._count._all])),
  }));
  return { items, nextCursor };
}
