// Evidence is append-only and idempotent on its key: a repeat returns the first row and appends no Event.
import { z } from "zod";
import type { Evidence } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { HELD_STATES } from "../../domain/todo-transitions.ts";
import { Count, Id, IdempotencyKey, JsonObject, Text } from "../../domain/schemas.ts";
import { EVIDENCE_KINDS } from "../../domain/vocabulary.ts";
import { actorOf, appendEvent, atParam, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { lockTodo, requireHolder } from "../todo/held.ts";


export const AppendEvidenceInput = z.object({
  goalId: Id,
  todoId: Id.optional(),
  runId: Id.optional(),
  stepIndex: Count.optional(),
  kind: z.enum(EVIDENCE_KINDS),
  summary: Text.trim().min(1).max(2000),
  data: JsonObject.default({}),
  blobSha256: Text.regex(/^[0-9a-f]{64}$/, "a lowercase hex sha256").optional(),
  agentId: Id.optional(),
  /** When given, the write is fenced: rejected unless this is the todo's current lease. */
  leaseKey: IdempotencyKey.optional(),
  idempotencyKey: IdempotencyKey,
});
export type AppendEvidenceInput = z.input<typeof AppendEvidenceInput>;

export interface AppendEvidenceResult {
  evidence: Evidence;
  /** false when the key was seen before and the first row is returned. */
  created: boolean;
}

export async function appendEvidence(db: DbOrTx, raw: AppendEvidenceInput, ctx?: OperatorContext): Promise<AppendEvidenceResult> {
  const i = parseInput(AppendEvidenceInput, raw, "evidence.append");
  const first = await db.evidence.findUnique({ where: { idempotencyKey: i.idempotencyKey } });
  if (first) return { evidence: sameGoal(first, i.goalId, i.idempotencyKey), created: false };
  return inTx(db, async (tx) => {
    if (i.leaseKey) {
      if (!i.todoId) throw new StateError("INVALID_INPUT", "evidence.append: todoId: a fenced write (leaseKey) must name its todo.", { issues: [{ path: "todoId" }] });
      const todo = await lockTodo(tx, i.todoId, ctx);
      if (!HELD_STATES.includes(todo.state)) {
        throw new StateError("CONFLICT", `Todo ${todo.id} is ${todo.state}; nobody holds it, so a lease-fenced write is rejected.`, { todoId: todo.id, currentHolder: null });
      }
      await requireHolder(tx, todo, { agentId: i.agentId, leaseKey: i.leaseKey });
    }
    const id = randomId("ev");
    const at = atParam(ctx);
    const inserted = await tx.$executeRaw`
      INSERT INTO "Evidence" ("id", "goalId", "todoId", "runId", "stepIndex", "kind", "summary", "data", "blobSha256", "agentId", "idempotencyKey", "createdAt")
      VALUES (${id}, ${i.goalId}, ${i.todoId ?? null}, ${i.runId ?? null}, ${i.stepIndex ?? null}, ${i.kind}::"EvidenceKind", ${i.summary},
              ${JSON.stringify(i.data)}::jsonb, ${i.blobSha256 ?? null}, ${i.agentId ?? null}, ${i.idempotencyKey}, COALESCE(${at}::timestamptz, now()))
      ON CONFLICT ("idempotencyKey") DO NOTHING`;
    const evidence = await tx.evidence.findUniqueOrThrow({ where: { idempotencyKey: i.idempotencyKey } });
    if (inserted === 0) return { evidence: sameGoal(evidence, i.goalId, i.idempotencyKey), created: false };
    await appendEvent(tx, { operator: "evidence.append", actor: actorOf(ctx, i.agentId), subjectId: id, goalId: i.goalId, payload: { kind: i.kind, summary: i.summary, todoId: i.todoId ?? null, runId: i.runId ?? null } }, ctx);
    return { evidence, created: true };
  }).catch(async (e: unknown) => {
    // A foreign-key failure names what the caller must fix.
    const msg = String((e as Error)?.message ?? "");
    if (/Evidence_goalId_fkey/.test(msg)) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
    if (/Evidence_blobSha256_fkey/.test(msg)) throw new StateError("NOT_FOUND", `Blob ${i.blobSha256} was never put; put the blob first.`, { sha256: i.blobSha256 });
    throw e;
  });
}

/** A repeat returns the first row only to a writer of the same goal; another goal's row is never shown. */
function sameGoal<T extends { goalId: string }>(row: T, goalId: string, key: string): T {
  if (row.goalId !== goalId) throw new StateError("CONFLICT", `Idempotency key ${key} was used for other evidence; use a fresh key for each evidence row.`, { idempotencyKey: key });
  return row;
}
