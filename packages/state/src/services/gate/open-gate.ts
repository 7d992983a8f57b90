// Opening a gate is idempotent on its key: the same key returns the first gate (created: false), never a second
// gate; the key reused for a different goal, todo or question is a CONFLICT.
import { z } from "zod";
import type { Gate } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { GATE_ANSWER_ROLES } from "../../domain/roles.ts";
import { Id, IdempotencyKey, ShortText, Text } from "../../domain/schemas.ts";
import { actorOf, clockDate, appendEvent, inTx, isUniqueViolation, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { workspaceOfGoal } from "../idempotency-keys.ts";

export const OpenGateInput = z.object({
  id: Id.optional(),
  goalId: Id,
  todoId: Id.optional(),
  runId: Id.optional(),
  /** A concrete question a person can answer — never "waiting for owner". */
  question: Text.trim().min(8).max(2000),
  options: z.array(ShortText).max(20).default([]),
  /** The evidence that led to the question. */
  evidenceIds: z.array(Id).max(100).default([]),
  /** After this long the gate may be expired. */
  ttlMs: z.number().int().min(1).max(366 * 24 * 60 * 60 * 1000).optional(),
  /** A repeat with this key returns the gate the first call opened. */
  idempotencyKey: IdempotencyKey.optional(),
});
export type OpenGateInput = z.input<typeof OpenGateInput>;

export interface OpenGateResult {
  gate: Gate;
  /** false when the idempotency key was used before and the first gate is returned. */
  created: boolean;
}

export async function openGate(db: DbOrTx, raw: OpenGateInput, ctx?: OperatorContext): Promise<OpenGateResult> {
  const i = parseInput(OpenGateInput, raw, "gate.open");
  const replay = async (): Promise<OpenGateResult | null> => {
    if (!i.idempotencyKey) return null;
    const workspaceId = await workspaceOfGoal(db, i.goalId);
    const first = workspaceId ? await db.gate.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId, idempotencyKey: i.idempotencyKey } } }) : null;
    if (!first) return null;
    if (first.goalId !== i.goalId || first.todoId !== (i.todoId ?? null) || first.question !== i.question) {
      throw new StateError(
        "CONFLICT",
        `Idempotency key ${i.idempotencyKey} already opened gate ${first.id} (goal ${first.goalId}${first.todoId ? `, todo ${first.todoId}` : ""}) with another question; use a fresh key for a new gate.`,
        { gateId: first.id, goalId: first.goalId, todoId: first.todoId },
      );
    }
    return { gate: first, created: false };
  };
  const before = await replay();
  if (before) return before;
  try {
    return await open(db, i, ctx);
  } catch (e) {
    // Lost a race on the same key: the other call opened the gate.
    const after = isUniqueViolation(e) ? await replay() : null;
    if (after) return after;
    throw e;
  }
}

async function open(db: DbOrTx, i: z.output<typeof OpenGateInput>, ctx?: OperatorContext): Promise<OpenGateResult> {
  return inTx(db, async (tx) => {
    const goal = await tx.goal.findUnique({ where: { id: i.goalId }, select: { id: true } });
    if (!goal) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
    if (i.todoId) {
      const todo = await tx.todo.findUnique({ where: { id: i.todoId }, select: { goalId: true } });
      if (!todo || todo.goalId !== i.goalId) throw new StateError("NOT_FOUND", `Todo ${i.todoId} is not in goal ${i.goalId}.`, { todoId: i.todoId });
    }
    if (i.evidenceIds.length) {
      const found = await tx.evidence.count({ where: { id: { in: i.evidenceIds }, goalId: i.goalId } });
      if (found !== new Set(i.evidenceIds).size) {
        throw new StateError("INVALID_INPUT", `gate.open: evidenceIds: some evidence ids are not in goal ${i.goalId}.`, { issues: [{ path: "evidenceIds" }] });
      }
    }
    const now = clockDate(ctx) ?? (await tx.$queryRaw<{ now: Date }[]>`SELECT now() AS now`)[0]!.now;
    const gate = await tx.gate.create({
      data: {
        id: i.id ?? randomId("gate"),
        goalId: i.goalId,
        todoId: i.todoId ?? null,
        runId: i.runId ?? null,
        question: i.question,
        options: i.options,
        evidenceIds: i.evidenceIds,
        answerRoles: [...GATE_ANSWER_ROLES],
        expiresAt: i.ttlMs ? new Date(now.getTime() + i.ttlMs) : null,
        idempotencyKey: i.idempotencyKey ?? null,
        createdAt: now,
      },
    });
    await appendEvent(tx, { operator: "gate.open", actor: actorOf(ctx, undefined), subjectId: gate.id, goalId: i.goalId, payload: { question: gate.question, options: gate.options, answerRoles: gate.answerRoles, todoId: gate.todoId } }, ctx);
    return { gate, created: true };
  });
}
