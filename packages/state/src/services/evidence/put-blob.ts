// Blobs (screenshots, dumps) are content-addressed: the sha256 is the id, so putting the same bytes twice is a no-op.
// The bytes are stored once; each workspace that put them holds them (WorkspaceBlob) and only those can read them.
import { createHash } from "node:crypto";
import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { StateError } from "../../domain/errors.ts";
import { actorOf, appendEvent, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { shareHasBlob, type OpenedShare } from "../workspace/shares.ts";
import { Text } from "../../domain/schemas.ts";

export const MAX_BLOB_BYTES = 16 * 1024 * 1024;

export const PutBlobInput = z.object({
  /** Raw bytes, or base64 text (over JSON). */
  bytes: z.union([z.instanceof(Uint8Array), z.base64()]),
  mime: Text.trim().min(1).max(200),
  /** The workspace that holds the blob (the API sets the caller's). */
  workspaceId: Text.trim().min(1).max(200),
});
export type PutBlobInput = z.input<typeof PutBlobInput>;

export interface PutBlobResult {
  sha256: string;
  size: number;
  created: boolean;
}

export async function putBlob(db: DbOrTx, raw: PutBlobInput, ctx?: OperatorContext): Promise<PutBlobResult> {
  const i = parseInput(PutBlobInput, raw, "blob.put");
  const bytes = typeof i.bytes === "string" ? Buffer.from(i.bytes, "base64") : Buffer.from(i.bytes);
  if (bytes.length > MAX_BLOB_BYTES) {
    throw new StateError("INVALID_INPUT", `blob.put: bytes: ${bytes.length} bytes is over the ${MAX_BLOB_BYTES}-byte limit.`, { issues: [{ path: "bytes" }] });
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return inTx(db, async (tx) => {
    await tx.$executeRaw`
      INSERT INTO "Blob" ("sha256", "mime", "size", "bytes") VALUES (${sha256}, ${i.mime}, ${bytes.length}, ${bytes})
      ON CONFLICT ("sha256") DO NOTHING`;
    const held = await tx.$executeRaw`
      INSERT INTO "WorkspaceBlob" ("workspaceId", "sha256") VALUES (${i.workspaceId}, ${sha256}) ON CONFLICT DO NOTHING`;
    if (held) await appendEvent(tx, { operator: "blob.put", actor: actorOf(ctx, undefined), subjectId: sha256, workspaceId: i.workspaceId, payload: { mime: i.mime, size: bytes.length } }, ctx);
    return { sha256, size: bytes.length, created: held > 0 };
  });
}

/** The blob's bytes when the workspace holds it, or when it is part of the shared run; else null ("not found"). */
export async function getBlob(db: DbOrTx, sha256: string, scope: { workspaceId: string } | { share: OpenedShare }): Promise<{ mime: string; bytes: Uint8Array } | null> {
  if ("share" in scope && !(await shareHasBlob(db, scope.share, sha256))) return null;
  const where = "workspaceId" in scope ? { sha256, workspaces: { some: { workspaceId: scope.workspaceId } } } : { sha256 };
  const b = await db.blob.findFirst({ where });
  return b ? { mime: b.mime, bytes: b.bytes } : null;
}
