// Event retention on real Postgres: a pass prunes the Events older than the retention, never one above the horizon
// (a running transaction's), never one the notifications outbox has not read, never one the core reads as state, and
// no row of state; EventRetention says how far it pruned.
import { beforeEach, describe, expect, it } from "vitest";
import type pg from "pg";
import { poolOf } from "../db/client.ts";
import { seedGoal, seedTodos, useTestDatabase } from "../testing/index.ts";
import { EVENTS_KEPT_AS_STATE, eventsPrunedThrough, pruneEvents } from "./event-retention.ts";

const t = useTestDatabase();
const DAY = 24 * 3_600_000;

/** An Event written `daysAgo` days ago (its createdAt), by any operator; its id. */
async function eventAt(daysAgo: number, operator = "test.retention", c: pg.Pool | pg.PoolClient = poolOf(t.db)!): Promise<bigint> {
  const r = await c.query<{ id: string }>(
    `INSERT INTO "Event" (operator, actor, "subjectId", "createdAt") VALUES ($1, 'test', 'subject', now() - make_interval(days => $2)) RETURNING id::text AS id`,
    [operator, daysAgo],
  );
  return BigInt(r.rows[0]!.id);
}

const exists = async (ids: bigint[]) => {
  const r = await poolOf(t.db)!.query<{ id: string }>(`SELECT id::text AS id FROM "Event" WHERE id = ANY($1::bigint[]) ORDER BY "Event".id`, [ids.map(String)]);
  return r.rows.map((row) => BigInt(row.id));
};
const setCursor = (id: bigint) => t.db.$executeRaw`UPDATE "NotificationCursor" SET "eventId" = ${id} WHERE "name" = 'notifications'`;
const lastId = async () => BigInt((await poolOf(t.db)!.query<{ id: string }>(`SELECT coalesce(max(id), 0)::text AS id FROM "Event"`)).rows[0]!.id);

describe("pruneEvents", () => {
  beforeEach(async () => {
    // Each test starts with everything read by the outbox.
    await setCursor(await lastId());
  });

  it("prunes the Events older than the retention, keeps newer ones, the core's state Events and the state itself", async () => {
    const goal = await seedGoal(t.db);
    await seedTodos(t.db, goal.id, 2);
    const old = [await eventAt(10), await eventAt(9)];
    const kept: bigint[] = [];
    for (const op of EVENTS_KEPT_AS_STATE) kept.push(await eventAt(10, op));
    const recent = await eventAt(1);
    await setCursor(await lastId());

    const r = await pruneEvents(t.db, { retentionDays: 7 });
    expect(r.pruned).toBeGreaterThanOrEqual(2);
    expect(await exists(old)).toEqual([]);
    expect(await exists([...kept, recent])).toEqual([...kept, recent]);
    // The goal's own Events are new: they stay, and so do the goal and its todos.
    expect(await t.db.event.count({ where: { goalId: goal.id } })).toBeGreaterThan(0);
    expect(await t.db.todo.count({ where: { goalId: goal.id } })).toBe(2);
    expect(r.prunedThrough).toBe(old[1]);
    expect(await eventsPrunedThrough(poolOf(t.db)!)).toBe(old[1]);

    // The goal's Events, once older than the retention (a pass ten days on), go too; the goal and todos stay.
    await pruneEvents(t.db, { retentionDays: 7, now: new Date(Date.now() + 10 * DAY) });
    expect(await t.db.event.count({ where: { goalId: goal.id } })).toBe(0);
    expect(await t.db.goal.count({ where: { id: goal.id } })).toBe(1);
    expect(await t.db.todo.count({ where: { goalId: goal.id } })).toBe(2);
    expect(await exists(kept)).toEqual(kept);
  });

  it("never prunes what the notifications outbox has not read", async () => {
    const read = await eventAt(20);
    const unread = await eventAt(20);
    await setCursor(read);
    await pruneEvents(t.db, { retentionDays: 7 });
    expect(await exists([read, unread])).toEqual([unread]);
    await setCursor(unread);
    await pruneEvents(t.db, { retentionDays: 7 });
    expect(await exists([unread])).toEqual([]);
  });

  it("never prunes above the horizon: a running transaction's id holds back every later one", async () => {
    const before = await eventAt(20);
    await setCursor(before);
    await pruneEvents(t.db, { retentionDays: 7 });
    expect(await exists([before])).toEqual([]);
    const c = await poolOf(t.db)!.connect();
    try {
      await c.query("BEGIN");
      const running = await eventAt(20, "test.retention", c);
      const after = await eventAt(20);
      await setCursor(after);
      await pruneEvents(t.db, { retentionDays: 7 });
      expect(await exists([after])).toEqual([after]);
      expect(await eventsPrunedThrough(poolOf(t.db)!)).toBeLessThan(running);
      await c.query("COMMIT");
      await pruneEvents(t.db, { retentionDays: 7 });
      // The horizon needs a checkpoint taken after the commit: a second pass passes it.
      await pruneEvents(t.db, { retentionDays: 7 });
      expect(await exists([running, after])).toEqual([]);
    } finally {
      c.release();
    }
  });

  it("prunes in batches, lowest ids first, and a pass stops after its batches", async () => {
    const ids: bigint[] = [];
    for (let k = 0; k < 7; k++) ids.push(await eventAt(30));
    await setCursor(await lastId());
    const r = await pruneEvents(t.db, { retentionDays: 7, batch: 2, maxBatches: 2 });
    expect(r.pruned).toBe(4);
    expect(await exists(ids)).toEqual(ids.slice(4));
    expect(r.prunedThrough).toBe(ids[3]);
  });
});
