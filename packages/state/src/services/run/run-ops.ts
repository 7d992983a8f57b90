// Runs and steps: the agent runtime starts a run, appends a step per node, checkpoints after every node, and
// may resume on another worker from the last checkpoint.
import { z } from "zod";
import type { Run, Step } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, JsonObject } from "../../domain/schemas.ts";
import { actorOf, appendEvent, atParam, inTx, randomId, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";

export const RUN_STATUSES = ["running", "completed", "partial", "blocked", "failed", "cancelled"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

async function lockRun(tx: Tx, runId: string): Promise<Run> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Run" WHERE "id" = ${runId} FOR UPDATE`;
  if (!rows[0]) throw new StateError("NOT_FOUND", `Run ${runId} does not exist.`, { runId });
  return tx.run.findUniqueOrThrow({ where: { id: runId } });
}

function requireRunning(run: Run, agentId: string | undefined, what: string): void {
  if (run.status !== "running") {
    throw new StateError("ILLEGAL_TRANSITION", `Cannot ${what} run ${run.id}: it is ${run.status}. A finished run only reads; start a new run.`, { runId: run.id, status: run.status, legal: [] });
  }
  if (agentId && run.agentId !== agentId) {
    throw new StateError("CONFLICT", `Run ${run.id} is driven by ${run.agentId}, not ${agentId}; resume it first to take it over.`, { runId: run.id, currentHolder: run.agentId });
  }
}

export const StartRunInput = z.object({ id: Id.optional(), goalId: Id, todoId: Id.optional(), agentId: Id, checkpoint: JsonObject.default({}) });
export type StartRunInput = z.input<typeof StartRunInput>;

export async function startRun(db: DbOrTx, raw: StartRunInput, ctx?: OperatorContext): Promise<Run> {
  const i = parseInput(StartRunInput, raw, "run.start");
  return inTx(db, async (tx) => {
    const [goal, agent] = await Promise.all([tx.goal.findUnique({ where: { id: i.goalId }, select: { status: true } }), tx.agent.findUnique({ where: { id: i.agentId }, select: { id: true } })]);
    if (!goal) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
    if (!agent) throw new StateError("NOT_FOUND", `Agent ${i.agentId} is not registered.`, { agentId: i.agentId });
    if (goal.status !== "active") throw new StateError("PRECONDITION_FAILED", `Goal ${i.goalId} is ${goal.status}; resume it before starting a run.`, { goalId: i.goalId, goalStatus: goal.status });
    const at = ctx?.clock?.now();
    const run = await tx.run.create({
      data: { id: i.id ?? randomId("run"), goalId: i.goalId, todoId: i.todoId ?? null, agentId: i.agentId, checkpoint: i.checkpoint as object, ...(at ? { startedAt: at } : {}) },
    });
    await appendEvent(tx, { operator: "run.start", actor: actorOf(ctx, i.agentId), subjectId: run.id, goalId: i.goalId, payload: { todoId: run.todoId } }, ctx);
    return run;
  });
}

export const AppendStepInput = z.object({
  runId: Id,
  agentId: Id.optional(),
  index: z.number().int().min(0),
  node: z.string().trim().min(1).max(100),
  action: z.unknown().optional(),
  observation: z.unknown().optional(),
  screenSha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  anomalies: z.array(z.string().max(200)).default([]),
  tokens: z.number().int().min(0).default(0),
});
export type AppendStepInput = z.input<typeof AppendStepInput>;

/** Appends step `index`; appending the same index again returns the first step (a resumed worker may repeat it). */
export async function appendStep(db: DbOrTx, raw: AppendStepInput, ctx?: OperatorContext): Promise<{ step: Step; created: boolean }> {
  const i = parseInput(AppendStepInput, raw, "run.appendStep");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    const existing = await tx.step.findUnique({ where: { runId_index: { runId: i.runId, index: i.index } } });
    if (existing) return { step: existing, created: false };
    requireRunning(run, i.agentId, "append a step to");
    const at = ctx?.clock?.now();
    const step = await tx.step.create({
      data: {
        id: randomId("step"),
        runId: i.runId,
        index: i.index,
        node: i.node,
        action: (i.action ?? undefined) as object | undefined,
        observation: (i.observation ?? undefined) as object | undefined,
        screenSha256: i.screenSha256 ?? null,
        anomalies: i.anomalies,
        tokens: i.tokens,
        ...(at ? { createdAt: at } : {}),
      },
    });
    await appendEvent(tx, { operator: "run.appendStep", actor: actorOf(ctx, i.agentId ?? run.agentId), subjectId: step.id, goalId: run.goalId, payload: { runId: run.id, index: i.index, node: i.node, anomalies: i.anomalies } }, ctx);
    return { step, created: true };
  });
}

export const SaveCheckpointInput = z.object({ runId: Id, agentId: Id.optional(), checkpoint: JsonObject });
export type SaveCheckpointInput = z.input<typeof SaveCheckpointInput>;

export async function saveCheckpoint(db: DbOrTx, raw: SaveCheckpointInput, ctx?: OperatorContext): Promise<Run> {
  const i = parseInput(SaveCheckpointInput, raw, "run.saveCheckpoint");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    requireRunning(run, i.agentId, "checkpoint");
    const saved = await tx.run.update({ where: { id: run.id }, data: { checkpoint: i.checkpoint as object } });
    await appendEvent(tx, { operator: "run.saveCheckpoint", actor: actorOf(ctx, i.agentId ?? run.agentId), subjectId: run.id, goalId: run.goalId, payload: { keys: Object.keys(i.checkpoint) } }, ctx);
    return saved;
  });
}

export const ResumeRunInput = z.object({ runId: Id, agentId: Id });
export type ResumeRunInput = z.input<typeof ResumeRunInput>;

/** Another worker takes a running run over and continues from its last checkpoint (returned on the run). */
export async function resumeRun(db: DbOrTx, raw: ResumeRunInput, ctx?: OperatorContext): Promise<Run & { lastStepIndex: number | null }> {
  const i = parseInput(ResumeRunInput, raw, "run.resume");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    requireRunning(run, undefined, "resume");
    if (!(await tx.agent.findUnique({ where: { id: i.agentId }, select: { id: true } }))) throw new StateError("NOT_FOUND", `Agent ${i.agentId} is not registered.`, { agentId: i.agentId });
    const resumed = await tx.run.update({ where: { id: run.id }, data: { agentId: i.agentId } });
    const last = await tx.step.aggregate({ where: { runId: run.id }, _max: { index: true } });
    await appendEvent(tx, { operator: "run.resume", actor: actorOf(ctx, i.agentId), subjectId: run.id, goalId: run.goalId, payload: { from: run.agentId, to: i.agentId } }, ctx);
    return { ...resumed, lastStepIndex: last._max.index ?? null };
  });
}

export const FinishRunInput = z.object({ runId: Id, agentId: Id.optional(), status: z.enum(["completed", "partial", "blocked", "failed", "cancelled"]), summary: z.string().max(5000).optional() });
export type FinishRunInput = z.input<typeof FinishRunInput>;

export async function finishRun(db: DbOrTx, raw: FinishRunInput, ctx?: OperatorContext): Promise<Run> {
  const i = parseInput(FinishRunInput, raw, "run.finish");
  return inTx(db, async (tx) => {
    const run = await lockRun(tx, i.runId);
    requireRunning(run, i.agentId, "finish");
    const at = atParam(ctx);
    const rows = await tx.$queryRaw<{ endedAt: Date }[]>`SELECT COALESCE(${at}::timestamptz, now()) AS "endedAt"`;
    const done = await tx.run.update({ where: { id: run.id }, data: { status: i.status, summary: i.summary ?? null, endedAt: rows[0]!.endedAt } });
    await appendEvent(tx, { operator: "run.finish", actor: actorOf(ctx, i.agentId ?? run.agentId), subjectId: run.id, goalId: run.goalId, payload: { status: i.status, summary: i.summary ?? null } }, ctx);
    return done;
  });
}
