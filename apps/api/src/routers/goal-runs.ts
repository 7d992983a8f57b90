// A goal's runs, newest first, for the tab's runner: which run is going, which one a closed tab left (its lease on
// the goal's todo and until when), which one is interrupted and may be resumed.
import type { Db } from "@phoneloop/state";

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
}

export async function goalRuns(db: Db, input: { goalId: string }): Promise<GoalRunItem[]> {
  const runs = await db.run.findMany({
    where: { goalId: input.goalId },
    orderBy: [{ startedAt: "desc" }, { id: "asc" }],
    take: 20,
    select: { id: true, status: true, agentId: true, endReason: true, summary: true, startedAt: true, endedAt: true, _count: { select: { steps: true } } },
  });
  const running = [...new Set(runs.filter((r) => r.status === "running").map((r) => r.agentId))];
  const leases = running.length
    ? await db.lease.findMany({ where: { status: "active", ownerId: { in: running }, todo: { goalId: input.goalId } }, select: { ownerId: true, expiresAt: true } })
    : [];
  return runs.map(({ _count, ...r }) => {
    const until = r.status === "running" ? leases.filter((l) => l.ownerId === r.agentId).map((l) => l.expiresAt).sort((a, b) => b.getTime() - a.getTime())[0] : undefined;
    return { ...r, steps: _count.steps, leaseUntil: until ?? null };
  });
}
