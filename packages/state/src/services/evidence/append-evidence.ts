// Evidence is append-only and idempotent on its key: a repeat returns the first row and appends no Event.
import { z } from "zod";
import type { Evidence } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { HELD_STATES } from "../../domain/todo-transitions.ts";
import { Count, Id, IdempotencyKey, JsonObject, Text } from "../../domain/schemas.ts";
import { EVIDENCE_KINDS } from "../../domain/vocabulary.ts";
import { parseEvidenceData, refineEvidenceData } from "../../domain/evidence.ts";
import { actorOf, appendEvents, atParam, inTx, randomId, type DbOrTx, type EventInput, type OperatorContext, type Tx } from "../operator.ts";
import { lockTodo, requireHolder } from "../todo/held.ts";
import { workspaceOfGoal } from "../idempotency-keys.ts";
import { spendRuntimeModelCalls } from "../quota/spend-model-calls.ts";


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
})
  // The data is its kind's (domain/evidence.ts): a malformed row is refused naming the field.
  .superRefine(refineEvidenceData);
export type AppendEvidenceInput = z.input<typeof AppendEvidenceInput>;

export interface AppendEvidenceResult {
  evidence: Evidence;
  /** false when the key was seen before and the first row is returned. */
  created: boolean;
}

export async function appendEvidence(db: DbOrTx, raw: AppendEvidenceInput, ctx?: OperatorContext): Promise<AppendEvidenceResult> {
  const i = parseInput(AppendEvidenceInput, raw, "evidence.append");
  const workspaceId = await workspaceOfGoal(db, i.goalId);
  const first = workspaceId ? await db.evidence.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId, idempotencyKey: i.idempotencyKey } } }) : null;
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
    return (await insertEvidence(tx, [{ values: i, at: atParam(ctx) }], ctx))[0]!;
  }).catch(async (e: unknown) => {
    // A foreign-key failure names what the caller must fix.
    const msg = String((e as Error)?.message ?? "");
    if (/Evidence_goalId_fkey/.test(msg)) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
    if (/Evidence_blobSha256_fkey/.test(msg)) throw new StateError("NOT_FOUND", `Blob ${i.blobSha256} was never put; put the blob first.`, { sha256: i.blobSha256 });
    throw e;
  });
}

/** Parsed evidence, and the instant it is stamped with (null: the transaction's now()). */
export interface EvidenceRowInput {
  values: z.output<typeof AppendEvidenceInput>;
  at: Date | null;
}

/**
 * Inserts evidence rows whose fence the caller checked, in one statement, and their Events in one more (in the
 * rows' order). A key recorded before keeps its first row, answered with `created: false` (only to a writer of the
 * same goal). The one place evidence rows are written: appendEvidence and a step record (run.recordStep) use it.
 * A model call the runtime metered (model_call `via: "runtime"`) is spent here, with its row (spend-model-calls.ts).
 */
export async function insertEvidence(tx: Tx, rows: EvidenceRowInput[], ctx?: OperatorContext, events?: EventInput[]): Promise<AppendEvidenceResult[]> {
  if (!rows.length) return [];
  // Every row is its kind's, whoever inserts it (the operators' inputs checked it already; the core's own writers,
  // such as run.resume's row, are checked here).
  rows.forEach(({ values: i }, k) => {
    const r = parseEvidenceData(i.kind, i.data);
    if (r.success) {
      if (r.data && i.kind === "model_call" && (r.data as { via?: string }).via === "runtime" && !i.agentId) {
        const path = `evidence.${k}.agentId`;
        throw new StateError("INVALID_INPUT", `evidence.insert: ${path}: a model call the runtime metered is spent against its agent's quota: name the agent.`, { issues: [{ path }] });
      }
      return;
    }
    const path = [`evidence.${k}.data`, ...r.error.issues[0]!.path.map(String)].join(".");
    throw new StateError("INVALID_INPUT", `evidence.insert: ${path}: ${r.error.issues[0]!.message}`, { issues: [{ path, message: r.error.issues[0]!.message }] });
  });
  const ids = rows.map(() => randomId("ev"));
  const params: unknown[] = [];
  const values = rows.map(({ values: i, at }, k) => {
    const n = params.push(ids[k], i.goalId, i.todoId ?? null, i.runId ?? null, i.stepIndex ?? null, i.kind, i.summary, JSON.stringify(i.data), i.blobSha256 ?? null, i.agentId ?? null, i.idempotencyKey, at) - 12;
    const $ = (o: number) => `$${n + o}`;
    return `(${$(1)}, ${$(2)}, ${$(3)}, ${$(4)}, ${$(5)}::int, ${$(6)}::"EvidenceKind", ${$(7)}, ${$(8)}::jsonb, ${$(9)}, ${$(10)}, ${$(11)}, COALESCE(${$(12)}::timestamptz, now()))`;
  });
  const inserted = await tx.$queryRawUnsafe<Evidence[]>(
    `INSERT INTO "Evidence" ("id", "goalId", "todoId", "runId", "stepIndex", "kind", "summary", "data", "blobSha256", "agentId", "idempotencyKey", "createdAt")
     VALUES ${values.join(", ")} ON CONFLICT ("workspaceId", "idempotencyKey") DO NOTHING RETURNING *`,
    ...params,
  );
  const byId = new Map(inserted.map((e) => [e.id, e]));
  const missing = rows.filter((_, k) => !byId.has(ids[k]!)).map((r) => r.values.idempotencyKey);
  // Keys are the workspace's: a row recorded before is looked up in the workspace of the goal written to.
  const workspaces = missing.length ? (await tx.goal.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.values.goalId))] } }, select: { workspaceId: true } })).map((g) => g.workspaceId) : [];
  const earlier = missing.length
    ? new Map((await tx.evidence.findMany({ where: { workspaceId: { in: workspaces }, idempotencyKey: { in: missing } } })).map((e) => [e.idempotencyKey, e]))
    : new Map<string, Evidence>();
  const out = rows.map(({ values: i }, k): AppendEvidenceResult => {
    const mine = byId.get(ids[k]!);
    if (mine) return { evidence: mine, created: true };
    const first = earlier.get(i.idempotencyKey) ?? inserted.find((e) => e.idempotencyKey === i.idempotencyKey);
    if (!first) throw new Error(`evidence ${i.idempotencyKey} was neither inserted nor found`);
    return { evidence: sameGoal(first, i.goalId, i.idempotencyKey), created: false };
  });
  const appended = out.flatMap(({ evidence: e, created }): EventInput[] =>
    created ? [{ operator: "evidence.append", actor: actorOf(ctx, e.agentId ?? undefined), subjectId: e.id, goalId: e.goalId, payload: { kind: e.kind, summary: e.summary, todoId: e.todoId, runId: e.runId } }] : [],
  );
  await spendRuntimeModelCalls(tx, out.flatMap((r) => (r.created ? [r.evidence] : [])), appended, ctx);
  if (events) events.push(...appended);
  else await appendEvents(tx, appended, ctx);
  return out;
}

/** A repeat returns the first row only to a writer of the same goal; another goal's row is never shown. */
function sameGoal<T extends { goalId: string }>(row: T, goalId: string, key: string): T {
  if (row.goalId !== goalId) throw new StateError("CONFLICT", `Idempotency key ${key} was used for other evidence; use a fresh key for each evidence row.`, { idempotencyKey: key });
  return row;
}
