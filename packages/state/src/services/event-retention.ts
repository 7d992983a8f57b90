// Event retention: the Event stream is the live updates' resume window, not the record. One pass prunes, in id order
// and in batches, the Events older than the retention that every reader is past: at or below the horizon (no running
// transaction can still commit an id below it, services/event-horizon.ts) and at or below the notifications outbox's
// cursor (it has read them). The Events the core reads back as state (EVENTS_KEPT_AS_STATE) stay, and so does every
// row of state and evidence (the Event table is the only one touched). EventRetention's row says how far pruning
// got: a stream resumed after an id below it may have missed pruned Events and is told to reload (eventsPruned).
import { z } from "zod";
import { StateError } from "../domain/errors.ts";
import { parseInput } from "../domain/input.ts";
import { advanceEventHorizon, type HorizonQueryable } from "./event-horizon.ts";
import type { DbOrTx } from "./operator.ts";

/** Default of EVENT_RETENTION_DAYS: longer than any stream's resume window (a tab asleep over a long weekend). */
export const DEFAULT_EVENT_RETENTION_DAYS = 30;

/**
 * Operators whose Events the core reads back as state, never pruned: a skill's uses (idempotency, failures in a row,
 * validation by use), the status a skill had before it was disabled, a quota settlement without a spend, and the
 * phone a run was driving when it finished.
 */
export const EVENTS_KEPT_AS_STATE: readonly string[] = ["skill.recordUse", "skill.disable", "quota.settle", "run.finish"];

export const PruneEventsInput = z.object({
  retentionDays: z.number().int().min(1).max(100_000).default(DEFAULT_EVENT_RETENTION_DAYS),
  /** Events deleted per statement. */
  batch: z.number().int().min(1).max(100_000).default(5_000),
  /** Statements per pass at most (a pass leaves the rest to the next). */
  maxBatches: z.number().int().min(1).max(10_000).default(20),
  /** The pass's now (a test moves it); default the API's clock. */
  now: z.date().optional(),
});
export type PruneEventsInput = z.input<typeof PruneEventsInput>;

export interface PruneEventsResult {
  /** Events deleted in this pass. */
  pruned: number;
  /** The largest id pruned so far, by any pass (0: none): a stream resumed below it may have missed Events. */
  prunedThrough: bigint;
}

const ROW = "events";

/** One pass of the retention. `db` is the client made by createDb (the horizon is taken on its pool). */
export async function pruneEvents(db: DbOrTx, raw: PruneEventsInput = {}): Promise<PruneEventsResult> {
  const i = parseInput(PruneEventsInput, raw, "pruneEvents");
  const cutoff = new Date((i.now ?? new Date()).getTime() - i.retentionDays * 24 * 3_600_000);
  const horizon = await advanceEventHorizon(db);
  const cursor = await db.$queryRaw<{ eventId: bigint }[]>`SELECT "eventId" FROM "NotificationCursor" WHERE "name" = 'notifications'`;
  const bound = cursor[0] && cursor[0].eventId < horizon ? cursor[0].eventId : horizon;
  let through = await prunedThroughOf(db);
  let pruned = 0;
  for (let n = 0; n < i.maxBatches; n++) {
    // The lowest-id candidates first. An Event young at an earlier pass may sit below one that pass pruned, so the
    // scan starts at the table's start; prunedThrough is the largest id ever pruned (no pruned id is above it).
    const rows = await db.$queryRaw<{ n: number; last: bigint | null }[]>`
      WITH gone AS (
        DELETE FROM "Event" WHERE "id" IN (
          SELECT "id" FROM "Event"
          WHERE "id" <= ${bound} AND "createdAt" < ${cutoff} AND NOT ("operator" = ANY(${EVENTS_KEPT_AS_STATE as string[]}))
          ORDER BY "id" LIMIT ${i.batch})
        RETURNING "id")
      SELECT count(*)::int AS "n", max("id") AS "last" FROM gone`;
    const { n: deleted, last } = rows[0]!;
    if (!deleted || last === null) break;
    pruned += deleted;
    if (last > through) through = last;
    await db.$executeRaw`
      INSERT INTO "EventRetention" ("name", "prunedThrough", "prunedAt") VALUES (${ROW}, ${through}, now())
      ON CONFLICT ("name") DO UPDATE SET "prunedThrough" = GREATEST("EventRetention"."prunedThrough", EXCLUDED."prunedThrough"), "prunedAt" = now()`;
    if (deleted < i.batch) break;
  }
  return { pruned, prunedThrough: through };
}

async function prunedThroughOf(db: DbOrTx): Promise<bigint> {
  const r = await db.$queryRaw<{ prunedThrough: bigint }[]>`SELECT "prunedThrough" FROM "EventRetention" WHERE "name" = ${ROW}`;
  return r[0]?.prunedThrough ?? 0n;
}

/** How far the Event stream is pruned (0n: not at all), read on a plain pg pool or client (the event reader's). */
export async function eventsPrunedThrough(db: HorizonQueryable): Promise<bigint> {
  const r = await db.query<{ prunedThrough: string }>(`SELECT "prunedThrough"::text AS "prunedThrough" FROM "EventRetention" WHERE "name" = $1`, [ROW]);
  return r.rows[0] ? BigInt(r.rows[0].prunedThrough) : 0n;
}

/**
 * The typed answer to a stream resumed after `afterId` when the Events after it may have been pruned: what the
 * caller holds is older than the retention, so it reloads what it shows and follows the stream from now on.
 */
export function eventsPruned(afterId: bigint, prunedThrough: bigint): StateError {
  return new StateError(
    "PRECONDITION_FAILED",
    `The events after #${afterId} are older than the event retention and were pruned (up to #${prunedThrough}): reload what you show (the board, the goal) and follow the stream from now on, without a last event id.`,
    { reason: "events_pruned", afterId: String(afterId), prunedThrough: String(prunedThrough) },
  );
}
