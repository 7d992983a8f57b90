import { z } from "zod";
import type { Gate } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, MemberRoleSchema, ShortText } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";

export const OpenGateInput = z.object({
  id: Id.optional(),
  goalId: Id,
  todoId: Id.optional(),
  runId: Id.optional(),
  /** A concrete question a person can answer — never "waiting for owner". */
  question: z.string().trim().min(8).max(2000),
  options: z.array(ShortText).max(20).default([]),
  /** The evidence that led to the question. */
  evidenceIds: z.array(Id).max(100).default([]),
  /** Which member roles may resolve it. */
  answerRoles: z.array(MemberRoleSchema).min(1).default(["owner"]),
  /** After this long the gate may be expired. */
  ttlMs: z.number().int().min(1).optional(),
  openedBy: Id.optional(),
});
export type OpenGateInput = z.input<typeof OpenGateInput>;

export async function openGate(db: DbOrTx, raw: OpenGateInput, ctx?: OperatorContext): Promise<Gate> {
  const i = parseInput(OpenGateInput, raw, "gate.open");
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
    const now = ctx?.clock?.now() ?? (await tx.$queryRaw<{ now: Date }[]>`SELECT now() AS now`)[0]!.now;
    const gate = await tx.gate.create({
      data: {
        id: i.id ?? randomId("gate"),
        goalId: i.goalId,
        todoId: i.todoId ?? null,
        runId: i.runId ?? null,
        question: i.question,
        options: i.options,
        evidenceIds: i.evidenceIds,
        answerRoles: i.answerRoles,
        expiresAt: i.ttlMs ? new Date(now.getTime() + i.ttlMs) : null,
        createdAt: now,
      },
    });
    await appendEvent(tx, { operator: "gate.open", actor: actorOf(ctx, i.openedBy), subjectId: gate.id, goalId: i.goalId, payload: { question: gate.question, options: gate.options, answerRoles: gate.answerRoles, todoId: gate.todoId } }, ctx);
    return gate;
  });
}
