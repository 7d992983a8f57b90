// Shared by the run operators: lock a run, and require it running (and driven by the caller).
import type { Run } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { atParam, type OperatorContext, type Tx } from "../operator.ts";

/** The run's row, locked for the rest of the transaction (one statement: the lock and the read). */
export async function lockRun(tx: Tx, runId: string): Promise<Run> {
  const rows = await tx.$queryRaw<Run[]>`SELECT * FROM "Run" WHERE "id" = ${runId} FOR UPDATE`;
  if (!rows[0]) throw new StateError("NOT_FOUND", `Run ${runId} does not exist.`, { runId });
  return rows[0];
}

/**
 * lockRun for a step record, in the same statement: the operator's time (clock or now()), the run's workspace and
 * how many of the blobs the step names that workspace holds.
 */
export async function lockRunOfStep(tx: Tx, runId: string, shas: string[], ctx?: OperatorContext): Promise<{ run: Run; heldBlobs: number; now: Date; workspaceId: string }> {
  const rows = await tx.$queryRaw<(Run & { heldBlobs: number; now: Date; goalWorkspaceId: string })[]>`
    SELECT r.*, COALESCE(${atParam(ctx)}::timestamptz, now()) AS "now", g."workspaceId" AS "goalWorkspaceId",
      (SELECT count(*)::int FROM "WorkspaceBlob" wb WHERE wb."workspaceId" = g."workspaceId" AND wb."sha256" = ANY(${shas}::text[])) AS "heldBlobs"
    FROM "Run" r JOIN "Goal" g ON g."id" = r."goalId" WHERE r."id" = ${runId} FOR UPDATE OF r`;
  if (!rows[0]) throw new StateError("NOT_FOUND", `Run ${runId} does not exist.`, { runId });
  const { heldBlobs, now, goalWorkspaceId, ...run } = rows[0];
  return { run, heldBlobs, now, workspaceId: goalWorkspaceId };
}

/** `interrupted` passes too when the operator may act on a run whose worker died (resume it, or a person ends it). */
export function requireRunning(run: Run, agentId: string | undefined, what: string, opts: { interrupted?: boolean } = {}): void {
  if (run.status !== "running" && !(opts.interrupted && run.status === "interrupted")) {
    throw new StateError("ILLEGAL_TRANSITION", `Cannot ${what} run ${run.id}: it is ${run.status}. A finished run only reads; start a new run.`, { runId: run.id, status: run.status, legal: [] });
  }
  if (agentId && run.agentId !== agentId) {
    throw new StateError("CONFLICT", `Run ${run.id} is driven by ${run.agentId}, not ${agentId}; resume it first to take it over.`, { runId: run.id, currentHolder: run.agentId });
  }
}
