-- A run whose worker died (its lease expired, its agent's heartbeat went stale) is `interrupted` by the API's
-- reaper: not finished, resumable by any eligible worker or tab.
ALTER TYPE "RunStatus" ADD VALUE 'interrupted';

-- The reaper looks for running runs often; this keeps its scan to them. (Hand-written: Prisma's schema cannot
-- express a partial index.)
CREATE INDEX "Run_status_running" ON "Run"("agentId") WHERE "status" = 'running';
