// The Event stream's horizon: how far a reader may read in id order without passing an id a running transaction
// may still commit (migration event_ids_at_insert). Each advance takes a checkpoint — the last id drawn, then the
// transactions running — and answers the newest checkpoint none of whose transactions is running any more: every
// Event up to its id is final (committed, or gone for good). Readers that deliver `id > cursor AND id <= horizon`
// in id order and move the cursor to what they delivered lose and repeat nothing under concurrent writers.
import type { DbOrTx } from "./operator.ts";
import { poolOf } from "../db/client.ts";

/** Anything that runs one statement outside a transaction: a pg Pool or Client. */
export interface HorizonQueryable {
  query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

interface Checkpoint {
  lastId: bigint;
  running: string[];
}

/** Checkpoints kept at most: a reader that advances rarely under a long transaction keeps only the newest ones. */
const MAX_PENDING = 64;

export class EventHorizon {
  private pending: Checkpoint[] = [];
  private final = 0n;

  constructor(private readonly db: HorizonQueryable) {}

  /** The highest id up to which every Event is final (0 before the first resolved checkpoint). */
  get current(): bigint {
    return this.final;
  }

  /** Takes a checkpoint and answers the horizon it allows (never lower than before). */
  async advance(): Promise<bigint> {
    await this.checkpoint();
    return this.final;
  }

  /**
   * The last id drawn so far (taking a checkpoint): every Event committed before this call has an id up to it, so a
   * stream that starts "from now on" starts after it.
   */
  async lastDrawn(): Promise<bigint> {
    return (await this.checkpoint()).lastId;
  }

  private async checkpoint(): Promise<Checkpoint> {
    const r = await this.db.query<{ lastId: string; running: string[] }>(
      `SELECT "lastId"::text AS "lastId", "running" FROM phoneloop_event_checkpoint()`,
    );
    const now: Checkpoint = { lastId: BigInt(r.rows[0]!.lastId), running: r.rows[0]!.running };
    const stillRunning = new Set(now.running);
    // Taken after every pending one: a pending checkpoint is resolved when none of its transactions runs now
    // (transaction ids are not reused while they can matter here).
    this.pending.push(now);
    let resolvedUpTo = -1;
    for (let k = 0; k < this.pending.length; k++) {
      const cp = this.pending[k]!;
      if (cp === now ? cp.running.length === 0 : cp.running.every((x) => !stillRunning.has(x))) resolvedUpTo = k;
    }
    if (resolvedUpTo >= 0) {
      const id = this.pending[resolvedUpTo]!.lastId;
      if (id > this.final) this.final = id;
      this.pending = this.pending.slice(resolvedUpTo + 1);
    }
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING);
    return now;
  }
}

// One horizon per client for the core's own readers (the notifications outbox): checkpoints carry over between
// passes, so a pass reads what the previous passes' checkpoints allow.
const horizons = new WeakMap<object, EventHorizon>();

/** The horizon of a client made by createDb (its pool runs the checkpoints), advanced once. */
export async function advanceEventHorizon(db: DbOrTx): Promise<bigint> {
  const pool = poolOf(db);
  if (!pool) throw new Error("advanceEventHorizon needs the client made by createDb, not a transaction");
  let h = horizons.get(db);
  if (!h) horizons.set(db, (h = new EventHorizon(pool)));
  return h.advance();
}
