// One executor step's writes in one transaction: its evidence rows, its step row, its turn result (with the spend
// a validated result makes) and the run's checkpoint — and, when asked, the core's route for the agent's next turn
// on the todo, read after those writes. Each part keeps its own rule and its own idempotency (evidence by key, the
// step by index, the turn result by key; the checkpoint is the last one saved), so a retried record changes nothing
// that was written and answers the same. One commit per step instead of one per row: every commit that appends an
// Event takes the commit-time lock that gives event ids (migration event_ids_at_commit).
import { z } from "zod";
import { isStateError, StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { BigCount, Count, Id, IdempotencyKey, JsonObject, JSON_CAPS, Text, jsonObject, jsonValue } from "../../domain/schemas.ts";
import { HELD_STATES } from "../../domain/todo-transitions.ts";
import { TURN_RESULT_KINDS, type TurnRouteDecision } from "../../domain/turn.ts";
import { EVIDENCE_KINDS } from "../../domain/vocabulary.ts";
import { refineEvidenceData, StepAction, StepOutcome } from "../../domain/evidence.ts";
import { insertEvidence } from "../evidence/append-evidence.ts";
import { appendEvents, atParam, inTx, type DbOrTx, type EventInput, type OperatorContext } from "../operator.ts";
import { lockTodo, requireHolder } from "../todo/held.ts";
import { recordTurnResultIn, type HeldTodo, type RecordTurnResultResult } from "../turn/record-turn-result.ts";
import { routeTurn } from "../turn/route-turn.ts";
import { appendStepTo } from "./append-step.ts";
import { lockRunOfStep } from "./run-guards.ts";
import { saveCheckpointOf } from "./save-checkpoint.ts";

const Sha256 = Text.regex(/^[0-9a-f]{64}$/, "a lowercase hex sha256");

/** An evidence row of the step: its goal, run, todo and lease are the record's. */
const StepEvidence = z.object({
  idempotencyKey: IdempotencyKey,
  kind: z.enum(EVIDENCE_KINDS),
  stepIndex: Count.optional(),
  summary: Text.trim().min(1).max(2000),
  data: JsonObject.default({}),
  /** A blob put before (blob.put); the workspace must hold it. */
  blobSha256: Sha256.optional(),
}).superRefine(refineEvidenceData);

export const RecordStepInput = z.object({
  runId: Id,
  agentId: Id,
  /** The todo the step works on: its evidence's todo, the turn result's and the route's. */
  todoId: Id.optional(),
  /** The lease the holder's writes carry: with it the evidence is fenced, and a turn result needs it. */
  leaseKey: IdempotencyKey.optional(),
  evidence: z.array(StepEvidence).max(64).default([]),
  step: z
    .object({
      index: Count,
      node: Text.trim().min(1).max(100),
      action: jsonValue().pipe(StepAction).optional(),
      /** The step's outcome (domain/evidence.ts StepOutcome). Its screenshot is its observation evidence's blob. */
      outcome: jsonValue().pipe(StepOutcome).optional(),
      anomalies: z.array(Text.max(200)).default([]),
      tokens: Count.default(0),
    })
    .optional(),
  turnResult: z
    .object({
      idempotencyKey: IdempotencyKey,
      kind: z.enum(TURN_RESULT_KINDS),
      summary: Text.trim().min(1).max(2000),
      values: JsonObject.optional(),
      spend: z.object({ key: IdempotencyKey, steps: Count.default(0), tokens: Count.default(0), microUsd: BigCount.default(0) }).optional(),
    })
    .optional(),
  checkpoint: jsonObject(JSON_CAPS.checkpoint).optional(),
  /** After the writes, answer the core's route for this agent's next turn on the todo (turn.route). */
  route: z.boolean().default(false),
});
export type RecordStepInput = z.input<typeof RecordStepInput>;

export interface RecordStepResult {
  /** In the input's order; `created: false` for a key recorded before (the first row stands). */
  evidence: { id: string; created: boolean }[];
  step: { id: string; created: boolean } | null;
  turnResult: RecordTurnResultResult | null;
  route: TurnRouteDecision | null;
}

export async function recordStep(db: DbOrTx, raw: RecordStepInput, ctx?: OperatorContext): Promise<RecordStepResult> {
  const i = parseInput(RecordStepInput, raw, "run.recordStep");
  const invalid = (path: string, message: string) => new StateError("INVALID_INPUT", `run.recordStep: ${path}: ${message}`, { issues: [{ path }] });
  if (i.leaseKey && !i.todoId) throw invalid("todoId", "a fenced record (leaseKey) must name its todo.");
  if (i.turnResult && !i.leaseKey) throw invalid("leaseKey", "a turn result is the holder's: give the lease key of the claim.");
  if (i.route && !i.todoId) throw invalid("todoId", "a route is asked for a todo.");
  const shas = [...new Set(i.evidence.flatMap((e) => (e.blobSha256 ? [e.blobSha256] : [])))];
  return inTx(db, async (tx) => {
    // The run first, then the todo (the order every operator that takes both follows).
    const { run, heldBlobs, now, workspaceId } = await lockRunOfStep(tx, i.runId, shas, ctx);
    if (heldBlobs < shas.length) {
      throw new StateError("NOT_FOUND", `A blob this step refers to was never put in this workspace; put it first (blob.put).`, { sha256: shas });
    }
    // The fence is checked once, under the todo's lock, which this transaction keeps: no other writer can take the
    // lease before its evidence is written, and the turn result takes the todo, the lease and the workspace as read
    // here (each fact once per record). Evidence recorded before (a retried record) is answered as it was, even
    // after the lease ended; a turn result then checks for itself (a repeat of its key is answered as recorded).
    const keys = i.evidence.map((e) => e.idempotencyKey);
    let held: HeldTodo | undefined;
    if (i.leaseKey && (keys.length || i.turnResult)) {
      const todo = await lockTodo(tx, i.todoId!, ctx);
      try {
        if (!HELD_STATES.includes(todo.state)) {
          throw new StateError("CONFLICT", `Todo ${todo.id} is ${todo.state}; nobody holds it, so a lease-fenced write is rejected.`, { todoId: todo.id, currentHolder: null });
        }
        const lease = await requireHolder(tx, todo, { agentId: i.agentId, leaseKey: i.leaseKey });
        // (A todo of another goal than the run's keeps its own reads: the run's workspace need not be its.)
        if (todo.goalId === run.goalId) held = { todo, lease, workspaceId, runGoalId: run.goalId };
      } catch (e) {
        if (!isStateError(e) || e.code !== "CONFLICT") throw e;
        if (keys.length && (await tx.evidence.count({ where: { workspaceId, idempotencyKey: { in: keys } } })) < new Set(keys).size) throw e;
      }
    }
    // The rows of one transaction share its now(): each evidence row is stamped a millisecond after the one before,
    // so lists ordered by time show them in the order the step recorded them. (Every row gets an explicit
    // millisecond, the first too: now() has microseconds, which the column rounds.)
    const base = now.getTime();
    const stamped = i.evidence.map((e, k) => ({
      values: { ...e, goalId: run.goalId, runId: run.id, ...(i.todoId ? { todoId: i.todoId } : {}), agentId: i.agentId },
      at: i.evidence.length > 1 ? new Date(base + k) : atParam(ctx),
    }));
    // The parts' Events go out together, in the parts' order (the turn result appends its own in between).
    const events: EventInput[] = [];
    const evidence: RecordStepResult["evidence"] = (await insertEvidence(tx, stamped, ctx, events)).map((r) => ({ id: r.evidence.id, created: r.created }));
    const step = i.step ? await appendStepTo(tx, run, { ...i.step, runId: run.id, agentId: i.agentId }, ctx, events) : null;
    if (i.turnResult) await appendEvents(tx, events.splice(0), ctx);
    const turn = i.turnResult ? await recordTurnResultIn(tx, { ...i.turnResult, todoId: i.todoId!, agentId: i.agentId, leaseKey: i.leaseKey!, runId: run.id }, ctx, held) : null;
    const turnResult = turn?.result ?? null;
    if (i.checkpoint) await saveCheckpointOf(tx, run, { runId: run.id, agentId: i.agentId, checkpoint: i.checkpoint }, ctx, events);
    await appendEvents(tx, events, ctx);
    // The route reads the todo as the record left it; the quota, as its spend left it (when it spent).
    const route = i.route ? await routeTurn(tx, { todoId: i.todoId!, agentId: i.agentId }, ctx, turn?.usage ? { usage: turn.usage } : undefined) : null;
    return { evidence, step: step ? { id: step.step.id, created: step.created } : null, turnResult, route };
  });
}
