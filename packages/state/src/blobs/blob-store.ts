// The blob store: where a blob's bytes live, by storage key. The state core keeps each blob's metadata (sha256, mime,
// size, owning workspaces, storage key) in the Blob table and decides what to keep; a store only holds bytes.
// Two stores: Postgres (BlobBytes, the embedded default) and S3-compatible object storage (AWS S3, MinIO, R2),
// chosen by the API's environment (BLOB_STORE).
import type { Readable } from "node:stream";

export interface StoredObject {
  key: string;
  size: number;
  storedAt: Date;
}

export interface BlobBody {
  size: number;
  /** The bytes, in chunks as the store reads them (never the whole blob at once). */
  body: Readable;
}

export interface BlobStore {
  readonly kind: "postgres" | "s3";
  /** Stores the bytes under the key; putting a key again replaces its bytes. */
  put(key: string, bytes: Uint8Array, mime: string): Promise<void>;
  /** The bytes as a stream, or null when the store holds no such key. */
  get(key: string): Promise<BlobBody | null>;
  /** The key's size, or null when the store holds no such key. */
  head(key: string): Promise<{ size: number } | null>;
  /** Deletes the keys; a key the store does not hold is no error. */
  delete(keys: readonly string[]): Promise<void>;
  /** The keys the store holds, in key order after `after`, at most `limit` (the collector's sweep for orphans). */
  list(opts: { after?: string; limit: number }): Promise<StoredObject[]>;
  /** A URL that reads (get) or writes (put) the key without the API, valid for expiresInS; only stores that have one. */
  presign?(op: "get" | "put", key: string, opts: { expiresInS: number; mime?: string }): Promise<string>;
  /** Throws a message saying what to fix when the store cannot be used (unreachable, no such bucket, no access). */
  check(): Promise<void>;
}

/** A storage key for new bytes: the sha256 and a random part, so bytes stored again never share a key with bytes being deleted. */
export function newStorageKey(sha256: string): string {
  const random = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  return `${sha256}-${random}`;
}

/** The store each database's blobs use, set once where the process starts (the API); tests may set their own. */
const stores = new WeakMap<object, BlobStore>();

export function useBlobStore(db: object, store: BlobStore): void {
  stores.set(db, store);
}

export function blobStoreOf(db: object): BlobStore | undefined {
  return stores.get(db);
}
