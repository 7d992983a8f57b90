// A goal's evidence, oldest first, filtered by run, todo or kind: what a replay or a resuming worker reads.
import { z } from "zod";
import { parseInput } from "../domain/input.ts";
import { pageOf, PageFields, type Page } from "../domain/page.ts";
import { Id } from "../domain/schemas.ts";
import { EVIDENCE_KINDS } from "../domain/vocabulary.ts";
import type { DbOrTx } from "../services/operator.ts";
import { cursorOf, keysetPage, pageOrder } from "./page-query.ts";

/** A page of evidence, oldest first; the cursor is opaque. */
export const EvidenceListInput = z.object({
  goalId: Id,
  runId: Id.optional(),
  todoId: Id.optional(),
  kind: z.enum(EVIDENCE_KINDS).optional(),
  ...PageFields,
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

const EVIDENCE_ORDER = pageOrder(["createdAt", "asc", Date], ["id", "asc", String]);

export async function evidenceList(db: DbOrTx, raw: EvidenceListInput): Promise<Page<EvidenceView>> {
  const i = parseInput(EvidenceListInput, raw, "evidenceList");
  const rows = await db.evidence.findMany({
    ...keysetPage(EVIDENCE_ORDER, i, { goalId: i.goalId, runId: i.runId, todoId: i.todoId, kind: i.kind }),
    include: { blob: { select: { mime: true } } },
  });
  return pageOf(rows.map(({ blob, ...e }) => ({ ...e, blobMime: blob?.mime ?? null })), i.limit, cursorOf(EVIDENCE_ORDER));
}
