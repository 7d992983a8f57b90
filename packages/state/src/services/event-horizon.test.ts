// The Event stream's horizon: a reader bounded by it never passes an id a running transaction may still commit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase } from "../testing/index.ts";
import { EventHorizon } from "./event-horizon.ts";

const t = useTestDatabase();
let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: t.url, max: 4 });
});
afterAll(async () => {
  await pool.end();
});

const insert = (c: pg.PoolClient | pg.Pool, subjectId: string) =>
  c.query<{ id: string }>(`INSERT INTO "Event" (operator, actor, "subjectId") VALUES ('test.horizon', 'test', $1) RETURNING id::text AS id`, [subjectId]);

/** Reads `id > cursor` in id order, up to `upTo` when given, and moves the cursor past what it read. */
function reader() {
  let cursor = 0n;
  const seen: string[] = [];
  return {
    seen,
    async read(upTo?: bigint) {
      const r = await pool.query<{ id: string; subjectId: string }>(
        `SELECT id::text AS id, "subjectId" FROM "Event" WHERE operator = 'test.horizon' AND id > $1 AND ($2::bigint IS NULL OR id <= $2) ORDER BY id`,
        [String(cursor), upTo === undefined ? null : String(upTo)],
      );
      for (const row of r.rows) {
        seen.push(row.subjectId);
        cursor = BigInt(row.id);
      }
    },
  };
}

describe("event horizon", () => {
  it("holds back a later id while an earlier one is uncommitted, then delivers both in id order; a reader without it loses the earlier one", async () => {
    const horizon = new EventHorizon(pool);
    const bounded = reader();
    const unbounded = reader();
    const slow = await pool.connect();
    try {
      await slow.query("BEGIN");
      const early = (await insert(slow, "early")).rows[0]!.id;
      const late = (await insert(pool, "late")).rows[0]!.id; // commits at once
      expect(BigInt(early) < BigInt(late)).toBe(true);

      await unbounded.read();
      expect(unbounded.seen).toEqual(["late"]);
      // However often the bounded reader looks, it does not pass the open transaction's id.
      for (let k = 0; k < 3; k++) {
        const upTo = await horizon.advance();
        expect(upTo < BigInt(early)).toBe(true);
        await bounded.read(upTo);
      }
      expect(bounded.seen).toEqual([]);

      await slow.query("COMMIT");
      await unbounded.read();
      // The gap-skipping reader's cursor was already past "early": it never delivers it.
      expect(unbounded.seen).toEqual(["late"]);
      // The checkpoints taken while "early" was open resolve once it ended.
      // (Polled: another transaction of the cluster, running meanwhile, holds the horizon back until it ends too.)
      await expect.poll(() => horizon.advance()).toBeGreaterThanOrEqual(BigInt(late));
      await bounded.read(horizon.current);
      expect(bounded.seen).toEqual(["early", "late"]);
    } finally {
      slow.release();
    }
  });

  it("passes an id whose transaction rolled back (ids are not dense) and never goes back", async () => {
    const horizon = new EventHorizon(pool);
    const c = await pool.connect();
    try {
      await c.query("BEGIN");
      const gone = BigInt((await insert(c, "gone")).rows[0]!.id);
      const before = await horizon.advance();
      expect(before < gone).toBe(true);
      await c.query("ROLLBACK");
    } finally {
      c.release();
    }
    const kept = BigInt((await insert(pool, "kept")).rows[0]!.id);
    await expect.poll(() => horizon.advance()).toBeGreaterThanOrEqual(kept);
    const after = horizon.current;
    expect(await horizon.advance()).toBeGreaterThanOrEqual(after);
  });

  it("is refused inside a repeatable-read transaction, whose one snapshot would come before the last id", async () => {
    const c = await pool.connect();
    try {
      await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      await expect(new EventHorizon(c).advance()).rejects.toThrow(/READ COMMITTED/);
    } finally {
      await c.query("ROLLBACK");
      c.release();
    }
  });
});
