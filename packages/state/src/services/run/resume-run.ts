import { z } from "zod";
import type { Run } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { resumableStop, whyFinal } from "../../domain/run.ts";
import { Id } from "../../domain/schemas.ts";
import type { EvidenceDataInput } from "../../domain/evidence.ts";
import { insertEvidence } from "../evidence/append-evidence.ts";
import { actorOf, appendEvent, atParam, currentTime, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { lockRun } from "./run-guards.ts";
import { requireStopCleared } from "./run-stop.ts";

export const ResumeRunInput = z.object({ runId: Id, agentId: Id });
export type ResumeRunInput = z.input<typeof ResumeRunInput>;

/**
 * A worker takes a run over and continues from its last checkpoint (returned on the run): a running or interrupted
 * run, or a resumable stop (domain/run.ts: blocked by its quota, a pause, a gate, the model, a lost phone …) once
 * its cause is gone — the same run goes on, its stop and its resume an evidence row of its replay. A truly finished
 * run is refused, saying why. The same agent resuming is a restarted worker: it takes over at once. Another agent
 * waits while the run's worker still holds a lease on one of the goal's todos: a CONFLICT naming the holder and
 * until when (the run itself is untouched, so resuming early never ends it).
 */
export async function resumeRun(db: DbOrTx, raw: ResumeRunInput, ctx?: OperatorContext): Promise<Run & { lastStepIndex: number | null }> {
  const i = parseInput(ResumeRunInput, raw, "run.resume");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    const stop = resumableStop(run);
    if (run.status !== "running" && run.status !== "interrupted" && !stop) {
      throw new StateError("ILLEGAL_TRANSITION", `Cannot resume run ${run.id}: ${whyFinal(run)}. A finished run only reads; start a new run on its goal (--goal-id ${run.goalId}).`, {
        runId: run.id,
        status: run.status,
        endReason: run.endReason,
        legal: [],
      });
    }
    if (!(await tx.agent.findUnique({ where: { id: i.agentId }, select: { id: true } }))) throw new StateError("NOT_FOUND", `Agent ${i.agentId} is not registered.`, { agentId: i.agentId });
    if (run.agentId !== i.agentId) {
      const now = await currentTime(tx, ctx);
      const held = await tx.lease.findFirst({
        where: { status: "active", ownerId: run.agentId, expiresAt: { gt: now }, todo: { goalId: run.goalId } },
        orderBy: { expiresAt: "desc" },
      });
      if (held) {
        throw new StateError(
          "CONFLICT",
          `Run ${run.id} is driven by ${run.agentId}, which holds todo ${held.todoId} until ${held.expiresAt.toISOString()}; wait until then (or until it stops) and resume again.`,
          { runId: run.id, currentHolder: run.agentId, todoId: held.todoId, expiresAt: held.expiresAt.toISOString(), currentEpoch: held.epoch },
        );
      }
    }
    const cleared = stop ? await requireStopCleared(tx, run, stop, i.agentId, ctx) : null;
    // A stop taken up again is no longer ended: its end (reason, summary, time) stays in its evidence and Events.
    const resumed = await tx.run.update({ where: { id: run.id }, data: { agentId: i.agentId, status: "running", ...(stop ? { endReason: null, endedAt: null, summary: null } : {}) } });
    const last = await tx.step.aggregate({ where: { runId: run.id }, _max: { index: true } });
    if (stop) {
      // The replay's timeline shows the stop and the resume within the one run.
      const stoppedAt = run.endedAt?.toISOString() ?? null;
      await insertEvidence(tx, [{
        values: {
          goalId: run.goalId,
          runId: run.id,
          kind: "anomaly",
          agentId: i.agentId,
          summary: `Resumed: the run had stopped ${run.status} (${stop.reason}) because ${stop.cause}${stoppedAt ? ` at ${stoppedAt}` : ""}; ${i.agentId} took it up again from its last checkpoint${last._max.index == null ? "" : ` after step ${last._max.index + 1}`}.`,
          data: { fault: "resumed", status: run.status, endReason: stop.reason, cause: stop.cause, remedy: stop.remedy, stoppedAt, stoppedSummary: run.summary, from: run.agentId, to: i.agentId, lastStepIndex: last._max.index ?? null, deviceSerial: cleared?.deviceSerial ?? null } satisfies EvidenceDataInput<"anomaly">,
          idempotencyKey: `${run.id}:resumed:${stoppedAt ?? "unknown"}`,
        },
        at: atParam(ctx),
      }], ctx);
    }
    await appendEvent(tx, { operator: "run.resume", actor: actorOf(ctx, i.agentId), subjectId: run.id, goalId: run.goalId, payload: { from: run.agentId, to: i.agentId, fromStatus: run.status, ...(stop ? { endReason: stop.reason } : {}) } }, ctx);
    return { ...resumed, lastStepIndex: last._max.index ?? null };
  });
}
