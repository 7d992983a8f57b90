// The blob collector's timer: every intervalMs one pass of collectBlobs (the state core's: unreferenced blobs after
// their grace, screenshots of runs past BLOB_RETENTION_DAYS, the store's orphans a page at a time). Passes never
// overlap; several API processes may collect at once (rows are taken with SKIP LOCKED).
import { collectBlobs, type BlobStore, type CollectBlobsResult, type Db } from "@phoneloop/state";
import { startPeriodicPass } from "./periodic-pass.ts";

export interface BlobCollectorOptions {
  intervalMs: number;
  /** A blob is left alone this long after a workspace last put it. */
  graceMs: number;
  /** Screenshots of runs older than this many days are deleted; null keeps them. */
  retentionDays: number | null;
  store: BlobStore;
  onLog?: (line: string) => void;
}

export interface BlobCollector {
  /** One pass now (also what each interval runs). */
  tick(): Promise<CollectBlobsResult>;
  close(): Promise<void>;
}

export function startBlobCollector(db: Db, opts: BlobCollectorOptions): BlobCollector {
  const log = opts.onLog ?? (() => {});
  let sweepAfter: string | undefined;

  const tick = async () => {
    const r = await collectBlobs(db, { graceMs: opts.graceMs, retentionDays: opts.retentionDays, ...(sweepAfter !== undefined ? { sweepAfter } : {}) }, { store: opts.store, actor: "blob-collector" });
    sweepAfter = r.sweepAfter;
    if (r.released || r.deleted || r.expired || r.orphans) {
      log(`blob collector: ${r.deleted} deleted, ${r.expired} expired by retention, ${r.released} ownerships ended, ${r.orphans} orphaned objects removed`);
    }
    return r;
  };
  return startPeriodicPass("blob collector", opts.intervalMs, tick, log);
}
