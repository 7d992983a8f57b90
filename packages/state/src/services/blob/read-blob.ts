// Reading a blob: who may (an owning workspace's caller, or a share link of a run that shows it), its metadata, and
// its bytes as a stream from the blob store. A blob whose bytes retention deleted is "expired", not "not found".
import type { Readable } from "node:stream";
import type { DbOrTx } from "../operator.ts";
import { shareHasBlob, type OpenedShare } from "../workspace/shares.ts";
import { storeOf, type BlobContext } from "./put-blob.ts";

export type BlobScope = { workspaceId: string } | { share: OpenedShare };

export interface BlobInfo {
  sha256: string;
  mime: string;
  size: number;
  /** Where the store keeps the bytes; null when retention deleted them. */
  storageKey: string | null;
  expiredAt: Date | null;
}

/** The blob's metadata when the scope may read it, else null ("not found", as for a blob of another workspace). */
export async function findBlob(db: DbOrTx, sha256: string, scope: BlobScope): Promise<BlobInfo | null> {
  if ("share" in scope && !(await shareHasBlob(db, scope.share, sha256))) return null;
  const where = "workspaceId" in scope ? { sha256, workspaces: { some: { workspaceId: scope.workspaceId } } } : { sha256 };
  const b = await db.blob.findFirst({ where, select: { sha256: true, mime: true, size: true, storageKey: true, expiredAt: true } });
  return b;
}

export type OpenedBlob = { status: "ok"; info: BlobInfo; body: Readable } | { status: "expired"; info: BlobInfo } | { status: "missing" };

/** The blob's bytes as a stream (read in chunks by the store), "expired" when retention deleted them, or "missing". */
export async function openBlob(db: DbOrTx, sha256: string, scope: BlobScope, ctx?: BlobContext): Promise<OpenedBlob> {
  const info = await findBlob(db, sha256, scope);
  if (!info) return { status: "missing" };
  if (!info.storageKey) return { status: "expired", info };
  const stored = await storeOf(db, ctx).get(info.storageKey);
  // The collector deleted it between the two reads.
  if (!stored) return { status: "missing" };
  return { status: "ok", info, body: stored.body };
}

/** The whole blob in memory, or null: for small blobs and tests (the API streams with openBlob). */
export async function getBlob(db: DbOrTx, sha256: string, scope: BlobScope, ctx?: BlobContext): Promise<{ mime: string; bytes: Uint8Array } | null> {
  const opened = await openBlob(db, sha256, scope, ctx);
  if (opened.status !== "ok") return null;
  const chunks: Buffer[] = [];
  for await (const chunk of opened.body) chunks.push(Buffer.from(chunk as Uint8Array));
  return { mime: opened.info.mime, bytes: new Uint8Array(Buffer.concat(chunks)) };
}
