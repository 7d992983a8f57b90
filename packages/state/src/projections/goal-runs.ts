// A goal's runs, newest first, for the tab's runner: which run is going, which one a closed tab left (its lease on
// the goal's todo and until when), which one is interrupted, and which one stopped for a cause that can go away —
// each may be resumed.
import { z } from "zod";
import { parseInput } from "../domain/input.ts";
import { resumableStop, type RunStop } from "../domain/run.ts";
import { pageOf, PageFields, type Page } from "../domain/page.ts";
import { Id } from "../domain/schemas.ts";
import type { DbOrTx } from "../services/operator.ts";
import { cursorOf, keysetPage, pageOrder } from "./page-query.ts";

/** A page of a goal's runs, newest first; the cursor is opaque. */
export const GoalRunsInput = z.object({ goalId: Id, ...PageFields });
export type GoalRunsInput = z.input<typeof GoalRunsInput>;

export interface GoalRunItem {
  id: string;
  status: string;
  agentId: string;
  endReason: string | null;
  summary: string | null;
  startedAt: Date;
  endedAt: Date | null;
  /** Steps recorded so far. */
  steps: number;
  /** For a running run: until when its agent holds a lease on one of the goal's todos (null: none held). */
  leaseUntil: Date | null;
  /** A resumable stop: why the run stopped and what removes the cause (null: running, interrupted or final). */
  stop: RunStop | null;
}

const RUN_ORDER = pageOrder(["startedAt", "desc", Date], ["id", "asc", String]);

export async function goalRuns(db: DbOrTx, raw: GoalRunsInput): Promise<Page<GoalRunItem>> {
  const i = parseInput(GoalRunsInput, raw, "goal.runs");
  const { items: runs, nextCursor } = pageOf(
    await db.run.findMany({
      ...keysetPage(RUN_ORDER, i, { goalId: i.goalId }),
      select: { id: true, status: true, agentId: true, endReason: true, summary: true, startedAt: true, endedAt: true, _count: { select: { steps: true } } },
    }),
    i.limit,
    cursorOf(RUN_ORDER),
  );
  const running = [...new Set(runs.filter((r) => r.status === "running").map((r) => r.agentId))];
  const leases = running.length
    ? await db.lease.findMany({ where: { status: "active", ownerId: { in: running }, todo: { goalId: i.goalId } }, select: { ownerId: true, expiresAt: true } })
    : [];
  const items = runs.map(({ _count, ...r }) => {
    const until = r.status === "running" ? leases.filter((l) => l.ownerId === r.agentId).map((l) => l.expiresAt).sort((a, b) => b.getTime() - a.getTime())[0] : undefined;
    return { ...r, steps: _count.steps, leaseUntil: until ?? null, stop: resumableStop(r) };
  });
  return { items, nextCursor };
}
