// A goal's events after an id, paged (the event stream's catch-up read).
import { z } from "zod";
import { parseInput } from "../domain/input.ts";
import { EventId, Id } from "../domain/schemas.ts";
import type { DbOrTx } from "../services/operator.ts";

export const GoalHistoryInput = z.object({
  goalId: Id,
  /** Return events with an id greater than this (as a decimal string); omit for the first page. */
  afterId: EventId.optional(),
  limit: z.number().int().min(1).max(1000).default(100),
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

export interface GoalHistoryPage {
  events: EventView[];
  /** Pass as afterId for the next page; null when this page is the last one. */
  nextAfterId: string | null;
}

export async function goalHistory(db: DbOrTx, raw: GoalHistoryInput): Promise<GoalHistoryPage> {
  const i = parseInput(GoalHistoryInput, raw, "goalHistory");
  const rows = await db.event.findMany({
    where: { goalId: i.goalId, ...(i.afterId ? { id: { gt: BigInt(i.afterId) } } : {}) },
    orderBy: { id: "asc" },
    take: i.limit + 1,
  });
  const page = rows.slice(0, i.limit).map((e) => ({ ...e, id: String(e.id) }));
  return { events: page, nextAfterId: rows.length > i.limit ? page[page.length - 1]!.id : null };
}
