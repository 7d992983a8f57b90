// A goal's events after an id, paged (the event stream's catch-up read).
import { z } from "zod";
import { parseInput } from "../domain/input.ts";
import { pageOf, PAGE_LIMIT, type Page } from "../domain/page.ts";
import { EventId, Id } from "../domain/schemas.ts";
import type { DbOrTx } from "../services/operator.ts";

export const GoalHistoryInput = z.object({
  goalId: Id,
  /** The previous page's nextCursor: events with an id greater than this (an event id); omit for the first page. */
  cursor: EventId.optional(),
  limit: z.number().int().min(1).max(PAGE_LIMIT.max).default(PAGE_LIMIT.default),
});
export type GoalHistoryInput = z.input<typeof GoalHistoryInput>;

export interface EventView {
  /** bigint as a decimal string, so it survives JSON. */
  id: string;
  workspaceId: string | null;
  goalId: string | null;
  operator: string;
  actor: string;
  subjectId: string;
  payload: unknown;
  createdAt: Date;
}

export type GoalHistoryPage = Page<EventView>;

export async function goalHistory(db: DbOrTx, raw: GoalHistoryInput): Promise<GoalHistoryPage> {
  const i = parseInput(GoalHistoryInput, raw, "goalHistory");
  const rows = await db.event.findMany({
    where: { goalId: i.goalId, ...(i.cursor ? { id: { gt: BigInt(i.cursor) } } : {}) },
    orderBy: { id: "asc" },
    take: i.limit + 1,
  });
  return pageOf(rows.map((e) => ({ ...e, id: String(e.id) })), i.limit, (e) => e.id);
}
