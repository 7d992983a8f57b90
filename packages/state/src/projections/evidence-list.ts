// A goal's evidence, oldest first, filtered by run, todo or kind: what a replay or a resuming worker reads.
import { z } from "zod";
import { parseInput } from "../domain/input.ts";
import { Id } from "../domain/schemas.ts";
import { EVIDENCE_KINDS } from "../domain/vocabulary.ts";
import type { DbOrTx } from "../services/operator.ts";

export const EvidenceListInput = z.object({
  goalId: Id,
  runId: Id.optional(),
  todoId: Id.optional(),
  kind: z.enum(EVIDENCE_KINDS).optional(),
  limit: z.number().int().min(1).max(5000).default(1000),
});
export type EvidenceListInput = z.input<typeof EvidenceListInput>;

export interface EvidenceView {
  id: string;
  goalId: string;
  todoId: string | null;
  runId: string | null;
  stepIndex: number | null;
  kind: string;
  summary: string;
  data: unknown;
  blobSha256: string | null;
  blobMime: string | null;
  agentId: string | null;
  idempotencyKey: string;
  createdAt: Date;
}

export async function evidenceList(db: DbOrTx, raw: EvidenceListInput): Promise<EvidenceView[]> {
  const i = parseInput(EvidenceListInput, raw, "evidenceList");
  const rows = await db.evidence.findMany({
    where: { goalId: i.goalId, runId: i.runId, todoId: i.todoId, kind: i.kind },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: i.limit,
    include: { blob: { select: { mime: true } } },
  });
  return rows.map(({ blob, ...e }) => ({ ...e, blobMime: blob?.mime ?? null }));
}
