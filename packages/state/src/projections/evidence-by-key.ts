// One evidence row by its idempotency key, or null: lets a writer check whether its write already landed.
import { z } from "zod";
import { parseInput } from "../domain/input.ts";
import { Id, IdempotencyKey } from "../domain/schemas.ts";
import type { DbOrTx } from "../services/operator.ts";
import type { EvidenceView } from "./evidence-list.ts";

export const EvidenceByKeyInput = z.object({ idempotencyKey: IdempotencyKey, /** Only evidence of this workspace's goals. */ workspaceId: Id });
export type EvidenceByKeyInput = z.input<typeof EvidenceByKeyInput>;

export async function evidenceByKey(db: DbOrTx, raw: EvidenceByKeyInput): Promise<EvidenceView | null> {
  const i = parseInput(EvidenceByKeyInput, raw, "evidenceByKey");
  const row = await db.evidence.findUnique({ where: { workspaceId_idempotencyKey: { workspaceId: i.workspaceId, idempotencyKey: i.idempotencyKey } }, include: { blob: { select: { mime: true } } } });
  if (!row) return null;
  const { blob, ...e } = row;
  return { ...e, blobMime: blob?.mime ?? null };
}
