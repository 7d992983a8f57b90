// Blobs (screenshots) are content-addressed: the sha256 is the id, so putting the same bytes twice stores them once.
// The Blob row holds the metadata and where the blob store keeps the bytes; each workspace that put them owns them
// (WorkspaceBlob, with the time of its last put) and only owners read them. The bytes are written before the row
// that names them, under a fresh storage key, so a concurrent collector never deletes bytes a new row names.
import { createHash } from "node:crypto";
import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { StateError } from "../../domain/errors.ts";
import { Id, Text } from "../../domain/schemas.ts";
import { actorOf, appendEvent, atParam, inTx, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";
import { blobStoreOf, newStorageKey, type BlobStore } from "../../blobs/blob-store.ts";
import { postgresBlobStore } from "../../blobs/postgres-blob-store.ts";

/** The largest blob: a full-resolution screenshot is well under it. */
export const MAX_BLOB_BYTES = 16 * 1024 * 1024;

export const PutBlobInput = z.object({
  bytes: z.custom<Uint8Array>((v) => v instanceof Uint8Array, "bytes: raw bytes (a Uint8Array)"),
  mime: Text.trim().min(1).max(200),
  /** The workspace that owns the blob (the API sets the caller's). */
  workspaceId: Id,
});
export type PutBlobInput = z.input<typeof PutBlobInput>;

export interface PutBlobResult {
  sha256: string;
  size: number;
  /** false when the workspace owned these bytes already. */
  created: boolean;
}

/** Operators that touch bytes may be given the blob store; else the database's (useBlobStore), else Postgres's. */
export type BlobContext = OperatorContext & { store?: BlobStore };

export function storeOf(db: DbOrTx, ctx?: BlobContext): BlobStore {
  return ctx?.store ?? blobStoreOf(db) ?? postgresBlobStore(db);
}

export function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export async function putBlob(db: DbOrTx, raw: PutBlobInput, ctx?: BlobContext): Promise<PutBlobResult> {
  const i = parseInput(PutBlobInput, raw, "blob.put");
  if (i.bytes.byteLength > MAX_BLOB_BYTES) {
    throw new StateError("INVALID_INPUT", `blob.put: bytes: ${i.bytes.byteLength} bytes is over the ${MAX_BLOB_BYTES}-byte limit.`, { issues: [{ path: "bytes" }] });
  }
  const sha256 = sha256Of(i.bytes);
  const size = i.bytes.byteLength;
  // Stored already: only this workspace's ownership (and its last put) changes. FOR SHARE keeps the collector off the row meanwhile.
  const owned = await inTx(db, async (tx) => {
    const rows = await tx.$queryRaw<{ storageKey: string | null }[]>`SELECT "storageKey" FROM "Blob" WHERE "sha256" = ${sha256} FOR SHARE`;
    if (!rows[0]?.storageKey) return null;
    return own(tx, sha256, i, ctx);
  });
  if (owned !== null) return { sha256, size, created: owned };

  const store = storeOf(db, ctx);
  const key = newStorageKey(sha256);
  await store.put(key, i.bytes, i.mime);
  const outcome = await inTx(db, async (tx) => {
    // A new row, or one whose bytes retention deleted; a row another put filled meanwhile keeps its key.
    const named = await tx.$queryRaw<{ storageKey: string }[]>`
      INSERT INTO "Blob" ("sha256", "mime", "size", "storageKey") VALUES (${sha256}, ${i.mime}, ${size}, ${key})
      ON CONFLICT ("sha256") DO UPDATE SET "storageKey" = EXCLUDED."storageKey", "expiredAt" = NULL, "mime" = EXCLUDED."mime"
        WHERE "Blob"."storageKey" IS NULL
      RETURNING "storageKey"`;
    return { ours: named.length > 0, created: await own(tx, sha256, i, ctx) };
  });
  // Another put stored the same bytes first: ours are a second copy nobody names.
  if (!outcome.ours) await store.delete([key]).catch(() => undefined);
  return { sha256, size, created: outcome.created };
}

/** The workspace owns the blob from now on (its grace restarts); an Event only when it did not own it before. */
async function own(tx: Tx, sha256: string, i: { mime: string; workspaceId: string; bytes: Uint8Array }, ctx?: OperatorContext): Promise<boolean> {
  const at = atParam(ctx);
  const rows = await tx.$queryRaw<{ created: boolean }[]>`
    INSERT INTO "WorkspaceBlob" ("workspaceId", "sha256", "createdAt", "touchedAt")
    VALUES (${i.workspaceId}, ${sha256}, COALESCE(${at}::timestamptz, now()), COALESCE(${at}::timestamptz, now()))
    ON CONFLICT ("workspaceId", "sha256") DO UPDATE SET "touchedAt" = EXCLUDED."touchedAt"
    RETURNING (xmax = 0) AS created`;
  const created = rows[0]?.created ?? false;
  if (created) {
    await appendEvent(tx, { operator: "blob.put", actor: actorOf(ctx, undefined), subjectId: sha256, workspaceId: i.workspaceId, payload: { mime: i.mime, size: i.bytes.byteLength } }, ctx);
  }
  return created;
}
