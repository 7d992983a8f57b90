// reapRuns: a run whose worker died stays `running` forever unless something notices. A run is reaped when its
// agent's heartbeat is older than `agentStaleMs` and that agent holds no unexpired lease on the goal's todos: it
// becomes `interrupted` (not finished; any eligible worker or tab resumes it with resumeRun). Each run is one
// transaction with one Event, re-checked under the run's row lock, so a worker that comes back meanwhile wins.
import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { actorOf, appendEvent, currentTime, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";

/** A worker heartbeats before every node; two lease lifetimes (120 s each) of silence means it is gone. */
export const DEFAULT_AGENT_STALE_MS = 240_000;

export const ReapRunsInput = z.object({
  agentStaleMs: z.number().int().min(1_000).max(7 * 24 * 60 * 60 * 1000).default(DEFAULT_AGENT_STALE_MS),
  limit: z.number().int().min(1).max(500).default(100),
});
export type ReapRunsInput = z.input<typeof ReapRunsInput>;

export interface ReapedRun {
  runId: string;
  goalId: string;
  agentId: string;
  heartbeatAt: Date;
}

// $1 now, $2 the oldest live heartbeat, $3 limit.
const DEAD_RUNS_SQL = `
  SELECT r."id" AS "runId", r."goalId", r."agentId", a."heartbeatAt"
  FROM "Run" r JOIN "Agent" a ON a."id" = r."agentId"
  WHERE r."status" = 'running' AND a."heartbeatAt" <= $2::timestamptz
    AND NOT EXISTS (SELECT 1 FROM "Lease" l JOIN "Todo" t ON t."id" = l."todoId"
                    WHERE l."ownerId" = r."agentId" AND l."status" = 'active' AND l."expiresAt" > $1::timestamptz AND t."goalId" = r."goalId")
  ORDER BY r."startedAt", r."id"
  LIMIT $3::int`;

export async function reapRuns(db: DbOrTx, raw: ReapRunsInput = {}, ctx?: OperatorContext): Promise<ReapedRun[]> {
  const i = parseInput(ReapRunsInput, raw, "run.reap");
  const now = await currentTime(db, ctx);
  const staleBefore = new Date(now.getTime() - i.agentStaleMs);
  const candidates = await db.$queryRawUnsafe<ReapedRun[]>(DEAD_RUNS_SQL, now, staleBefore, i.limit);
  const reaped: ReapedRun[] = [];
  for (const c of candidates) {
    const done = await inTx(db, async (tx) => {
      // Re-checked under the row lock: the worker may have heartbeated, resumed or finished since the scan.
      const still = await tx.$queryRawUnsafe<ReapedRun[]>(`${DEAD_RUNS_SQL.replace("ORDER BY", `AND r."id" = $4::text ORDER BY`)} FOR UPDATE OF r`, now, staleBefore, 1, c.runId);
      if (!still[0]) return false;
      const summary = `Interrupted: worker ${c.agentId} stopped (last heartbeat ${c.heartbeatAt.toISOString()}) and holds no lease. Resume it with --run-id ${c.runId}.`;
      await tx.run.update({ where: { id: c.runId }, data: { status: "interrupted", summary } });
      await appendEvent(tx, { operator: "run.interrupt", actor: actorOf(ctx, "reaper"), subjectId: c.runId, goalId: c.goalId, payload: { agentId: c.agentId, heartbeatAt: c.heartbeatAt.toISOString() } }, ctx);
      return true;
    });
    if (done) reaped.push(c);
  }
  return reaped;
}
