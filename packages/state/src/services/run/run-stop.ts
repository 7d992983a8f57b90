// A resumable stop (domain/run.ts: resumableStop) is taken up again only once its cause is gone; this checks what
// the core can see of each cause — the quota's room, the goal's status, the gate's answer, the phone's serial —
// and refuses with what is still in the way and what removes it. Causes the core cannot see (a model endpoint, a
// blocked todo's replan, the API being back) are left to the resumed run, which stops again if they remain.
import type { Run } from "../../generated/prisma/client.ts";
import type { RunStop } from "../../domain/run.ts";
import { StateError } from "../../domain/errors.ts";
import { atParam, type OperatorContext, type Tx } from "../operator.ts";
import { quotaSkip } from "../quota/should-run.ts";
import { policyUsage } from "../quota/usage.ts";

/** The serial of the phone an agent registered with (meta.device.serial), or null when it named none. */
export function phoneSerialOf(meta: unknown): string | null {
  const device = (meta as { device?: { serial?: unknown } } | null)?.device;
  return typeof device?.serial === "string" && device.serial ? device.serial : null;
}

/** The phone the run was driving when it stopped, as its finish recorded it (run.finish's payload). */
async function stoppedPhone(tx: Tx, run: Run): Promise<string | null> {
  const rows = await tx.$queryRaw<{ serial: string | null }[]>`
    SELECT "payload"->>'deviceSerial' AS "serial" FROM "Event"
    WHERE "goalId" = ${run.goalId} AND "operator" = 'run.finish' AND "subjectId" = ${run.id}
    ORDER BY "id" DESC LIMIT 1`;
  return rows[0]?.serial ?? null;
}

/** Throws PRECONDITION_FAILED naming what still stands in the way of resuming `run`, stopped for `stop`, by `agentId`. */
export async function requireStopCleared(tx: Tx, run: Run, stop: RunStop, agentId: string, ctx?: OperatorContext): Promise<{ deviceSerial: string | null }> {
  const refuse = (what: string, details: Record<string, unknown> = {}, remedy = stop.remedy) =>
    new StateError("PRECONDITION_FAILED", `Run ${run.id} stopped because ${stop.cause}, and ${what}; ${remedy}.`, { runId: run.id, endReason: stop.reason, remedy, ...details });
  const goal = await tx.goal.findUnique({ where: { id: run.goalId }, select: { status: true } });
  if (goal && goal.status !== "active") {
    if (goal.status === "paused") throw refuse("its goal is still paused", { goalStatus: goal.status }, "resume the goal, then resume the run");
    throw new StateError("ILLEGAL_TRANSITION", `Cannot resume run ${run.id}: its goal is ${goal.status}, so the run is final; a finished run only reads.`, { runId: run.id, goalStatus: goal.status, legal: [] });
  }
  const usage = await policyUsage(tx, { goalId: run.goalId, agentId, at: atParam(ctx) });
  const quota = quotaSkip(usage);
  if (quota) throw refuse(`the quota is still exhausted (${quota.message})`, { retryAfterMs: quota.retryAfterMs }, "an admin raises the quota (or its window resets), then resume the run");
  if (stop.reason === "gate_waiting") {
    const gate = await tx.gate.findFirst({ where: { goalId: run.goalId, status: "open" }, orderBy: { createdAt: "asc" }, select: { id: true, question: true } });
    if (gate) throw refuse(`gate ${gate.id} still waits for an answer ("${gate.question}")`, { gateId: gate.id });
  }
  const lost = stop.reason === "device_lost" ? await stoppedPhone(tx, run) : null;
  if (lost) {
    const agent = await tx.agent.findUnique({ where: { id: agentId }, select: { meta: true } });
    const now = phoneSerialOf(agent?.meta);
    if (now && now !== lost) throw refuse(`the worker resuming it drives another phone (serial ${now}, not ${lost})`, { deviceSerial: lost, agentDeviceSerial: now });
  }
  return { deviceSerial: lost };
}
