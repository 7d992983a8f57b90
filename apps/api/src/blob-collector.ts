// The collector's timer: every intervalMs one pass of collectBlobs (the state core's: unreferenced blobs after
// their grace, screenshots of runs past BLOB_RETENTION_DAYS, the store's orphans a page at a time), then one pass of
// the event retention (pruneEvents: Events older than EVENT_RETENTION_DAYS that every reader is past). Passes never
// overlap; several API processes may collect at once (rows are taken with SKIP LOCKED; a prune deletes what is there).
import { collectBlobs, pruneEvents, type BlobStore, type CollectBlobsResult, type Db } from "@phoneloop/state";
import { startPeriodicPass } from "./periodic-pass.ts";

export interface BlobCollectorOptions {
  intervalMs: number;
  /** A blob is left alone this long after a workspace last put it. */
  graceMs: number;
  /** Screenshots of runs older than this many days are deleted; null keeps them. */
  retentionDays: number | null;
  store: BlobStore;
  /** Events older than this many days are pruned (EVENT_RETENTION_DAYS); null prunes none. */
  eventRetentionDays?: number | null;
  onLog?: (line: string) => void;
}

export interface BlobCollector {
  /** One pass now (also what each interval runs). */
  tick(): Promise<CollectBlobsResult & { eventsPruned: number }>;
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
    const events = opts.eventRetentionDays ? await pruneEvents(db, { retentionDays: opts.eventRetentionDays }) : { pruned: 0 };
    if (events.pruned) log(`collector: ${events.pruned} events older than ${opts.eventRetentionDays} days pruned`);
    return { ...r, eventsPruned: events.pruned };
  };
  return startPeriodicPass("blob collector", opts.intervalMs, tick, log);
}
