import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { EVENTS_APPLICATION_NAME, type StreamedEvent } from "./events.ts";
import { EventHorizon } from "@phoneloop/state";
import { createApiClient } from "@phoneloop/client";
import pg from "pg";
import { agentTokenHeaders, signUpMember } from "./auth/testing.ts";

const t = useTestDatabase();
const a = useApiServer(t);
const b = useApiServer(t);
let workspaceId: string;
let token: string;

beforeAll(async () => {
  const admin = await signUpMember({ db: t.db, auth: a.auth }, { role: "admin" });
  workspaceId = admin.workspaceId;
  token = (await agentTokenHeaders(t.db, { workspaceId, issuedBy: admin.userId })).token;
});

/** A client acting as the workspace's agent. */
const clientOf = (apiUrl: string) => createApiClient({ apiUrl, auth: { kind: "token", token } });

// Stands in for any operator's commit: the same row, from outside either API process.
async function commitEvent(subjectId: string, goalId: string | null = null): Promise<string> {
  const row = await t.db.event.create({ data: { workspaceId, operator: "test.touch", actor: "test", subjectId, goalId } });
  return row.id.toString();
}

function collect(baseUrl: string, input: { goalId?: string; lastEventId?: string }) {
  const received: StreamedEvent[] = [];
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  const waiters: { n: number; resolve: () => void }[] = [];
  const sub = clientOf(baseUrl).event.stream.subscribe(input, {
    onStarted: () => started(),
    onData: ({ data }) => {
      received.push(data);
      for (const w of waiters) if (received.length >= w.n) w.resolve();
    },
  });
  return {
    received,
    ready,
    until: (n: number) =>
      received.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    stop: () => sub.unsubscribe(),
  };
}

describe("event stream", () => {
  it("delivers an event committed by an operator called through another API instance", async () => {
    const onA = collect(a.url, {});
    await onA.ready;
    const goal = await clientOf(b.url).goal.create.mutate({
      title: "Compare prices",
      objective: "Find the cheapest listing",
    });
    await onA.until(1);
    onA.stop();
    expect(onA.received[0]).toMatchObject({ operator: "goal.create", subjectId: goal.id, goalId: goal.id, workspaceId });
    expect(onA.received[0]?.id).toMatch(/^\d+$/);
    expect(onA.received[0]?.createdAt).toBeInstanceOf(Date);
  });

  it("delivers every event of a burst from the other instance once each, in increasing id order", async () => {
    const goalId = `goal_burst_${Date.now().toString(36)}`;
    const onA = collect(a.url, { goalId });
    await onA.ready;
    const client = clientOf(b.url);
    await client.goal.create.mutate({ id: goalId, title: "Burst", objective: "Many todos" });
    await Promise.all(
      Array.from({ length: 10 }, (_, n) => client.todo.add.mutate({ goalId, todos: [{ title: `step ${n}` }] })),
    );
    await onA.until(11);
    onA.stop();
    const ids = onA.received.map((e) => BigInt(e.id));
    expect(ids).toEqual([...ids].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
    expect(new Set(ids).size).toBe(11);
    expect(onA.received.filter((e) => e.operator === "goal.create")).toHaveLength(1);
  });

  it("holds back an event committed after a later id was final, then delivers both in id order, skipping none", async () => {
    const goalId = `goal_open_${Date.now().toString(36)}`;
    const onA = collect(a.url, { goalId });
    await onA.ready;
    const slow = new pg.Client({ connectionString: t.url });
    await slow.connect();
    try {
      await slow.query("BEGIN");
      const early = await slow.query<{ id: string }>(
        `INSERT INTO "Event" ("workspaceId", "goalId", operator, actor, "subjectId") VALUES ($1, $2, 'test.slow', 'test', 'slow') RETURNING id::text AS id`,
        [workspaceId, goalId],
      );
      const fast = await commitEvent("fast", goalId);
      expect(BigInt(early.rows[0]!.id) < BigInt(fast)).toBe(true);
      // "fast" is committed and "slow" (a smaller id) not yet: a reader passing "fast" now would never see "slow".
      // The horizon every hub reads up to stays below "slow" for as long as it is open.
      const pool = new pg.Pool({ connectionString: t.url, max: 1 });
      try {
        const horizon = new EventHorizon(pool);
        for (let k = 0; k < 3; k++) expect((await horizon.advance()) < BigInt(early.rows[0]!.id)).toBe(true);
      } finally {
        await pool.end();
      }
      expect(onA.received).toEqual([]);
      await slow.query("COMMIT");
      await onA.until(2);
      onA.stop();
      const stored = await t.db.event.findMany({ where: { goalId }, orderBy: { id: "asc" } });
      expect(stored.map((e) => e.subjectId)).toEqual(["slow", "fast"]);
      expect(onA.received.map((e) => e.id)).toEqual(stored.map((e) => e.id.toString()));
      // A subscriber resuming from before both sees the same order.
      const resumed = collect(b.url, { goalId, lastEventId: "0" });
      await resumed.until(2);
      resumed.stop();
      expect(resumed.received.map((e) => e.id)).toEqual(onA.received.map((e) => e.id));
    } finally {
      await slow.end();
    }
  });

  it("exactly once, in id order: concurrent writers, subscribers that drop at random and resume from their last id, two API instances", async () => {
    const goalId = `goal_once_${Date.now().toString(36)}`;
    const random = seeded(11);
    const writers = new pg.Pool({ connectionString: t.url, max: 8 });
    let committed = 0;
    // Each transaction appends two events with a pause between them, so transactions commit in another order
    // than their ids were drawn; some roll back, so ids are not dense.
    const writeOne = async (round: number, n: number) => {
      const c = await writers.connect();
      try {
        await c.query("BEGIN");
        for (const part of [0, 1]) {
          await c.query(
            `INSERT INTO "Event" ("workspaceId", "goalId", operator, actor, "subjectId") VALUES ($1, $2, 'test.once', 'test', $3)`,
            [workspaceId, goalId, `r${round}w${n}p${part}`],
          );
          await pause(Math.floor(random() * 4));
        }
        if (random() < 0.1) await c.query("ROLLBACK");
        else {
          await c.query("COMMIT");
          committed += 2;
        }
      } finally {
        c.release();
      }
    };
    // Both start from an explicit cursor (the newest id now), as a client resuming does.
    const start = String((await t.db.event.aggregate({ _max: { id: true } }))._max.id ?? 0n);
    const subscribers = [resumingSubscriber([a.url, b.url], goalId, start, random), resumingSubscriber([b.url, a.url], goalId, start, random)];
    try {
      await Promise.all(subscribers.map((s) => s.ready));
      for (let round = 0; round < 30; round++) {
        await Promise.all(Array.from({ length: 20 }, (_, n) => writeOne(round, n)));
      }
      for (const s of subscribers) await s.until(committed);
    } finally {
      for (const s of subscribers) s.stop();
      await writers.end();
    }
    const expected = (await t.db.event.findMany({ where: { goalId }, orderBy: { id: "asc" }, select: { id: true } })).map((e) => e.id.toString());
    expect(expected).toHaveLength(committed);
    for (const s of subscribers) {
      expect(s.reconnects).toBeGreaterThan(5);
      // Equal to every committed id in id order: nothing lost, nothing repeated, strictly increasing.
      expect(s.received).toEqual(expected);
    }
  });

  it("resumes after lastEventId with the backlog, then goes live, without repeats", async () => {
    const first = await commitEvent("resume_1");
    const second = await commitEvent("resume_2");
    const onB = collect(b.url, { lastEventId: first });
    await onB.until(1);
    const third = await commitEvent("resume_3");
    await onB.until(2);
    onB.stop();
    expect(onB.received.map((e) => e.id)).toEqual([second, third]);
  });

  it("filters by goal", async () => {
    const onA = collect(a.url, { goalId: "goal_wanted" });
    await onA.ready;
    await commitEvent("other", "goal_other");
    const wanted = await commitEvent("mine", "goal_wanted");
    await onA.until(1);
    onA.stop();
    expect(onA.received.map((e) => e.id)).toEqual([wanted]);
  });

  it("keeps streaming after its LISTEN connection is cut, catching up on what was committed meanwhile", async () => {
    const goalId = `goal_cut_${Date.now().toString(36)}`;
    const client = clientOf(b.url);
    await client.goal.create.mutate({ id: goalId, title: "Cut", objective: "Survive a dropped connection" });
    const onA = collect(a.url, { goalId });
    await onA.ready;
    // Cut every LISTEN connection (both instances'), as a Postgres restart or a network blip would.
    await t.db.$executeRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE application_name = ${EVENTS_APPLICATION_NAME} AND datname = current_database()`;
    await client.todo.add.mutate({ goalId, todos: [{ title: "after the cut" }] });
    await onA.until(1);
    onA.stop();
    expect(onA.received[0]).toMatchObject({ operator: "todo.add", goalId });
    await expect.poll(async () => ((await (await fetch(`${a.url}/health`)).json()) as { ok: boolean }).ok).toBe(true);
  });

  it("a stream without lastEventId starts after what was committed before it opened, even when the hub dispatches that later", async () => {
    const goalId = `goal_now_${Date.now().toString(36)}`;
    const client = clientOf(b.url);
    await client.goal.create.mutate({ id: goalId, title: "From now on", objective: "Only what comes after" });
    // Both hubs lose their LISTEN: the next commit reaches them only when they reconnect and catch up, which is
    // after the subscription below has opened.
    await t.db.$executeRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE application_name = ${EVENTS_APPLICATION_NAME} AND datname = current_database()`;
    const before = await commitEvent("committed before the stream opened", goalId);
    const onA = collect(a.url, { goalId });
    await onA.ready;
    const after = await commitEvent("committed after", goalId);
    await onA.until(1);
    // Let a late dispatch of the earlier event arrive, if it were going to.
    await expect.poll(async () => ((await (await fetch(`${a.url}/health`)).json()) as { ok: boolean }).ok).toBe(true);
    await commitEvent("a last one", goalId);
    await onA.until(2);
    onA.stop();
    expect(onA.received.map((e) => e.id)).not.toContain(before);
    expect(onA.received[0]).toMatchObject({ id: after, subjectId: "committed after" });
  });

  it("reports health: database reachable, migrations applied, version", async () => {
    const res = await fetch(`${a.url}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: true, database: { reachable: true }, migrations: { pending: [] } });
    expect(typeof body.version).toBe("string");
  });
});

/** A subscriber that drops its subscription after a random number of events (alternating API instances) and
 * resumes from the last id it received. */
function resumingSubscriber(urls: string[], goalId: string, startAfter: string, random: () => number) {
  const received: string[] = [];
  let reconnects = 0;
  let current: { unsubscribe(): void } | undefined;
  let stopped = false;
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  let waiter: { n: number; resolve: () => void } | undefined;
  const open = () => {
    if (stopped) return;
    const url = urls[reconnects % urls.length]!;
    let budget = 1 + Math.floor(random() * 60);
    let dropped = false;
    const sub = clientOf(url).event.stream.subscribe(
      { goalId, lastEventId: received.at(-1) ?? startAfter },
      {
        onStarted: () => started(),
        onData: ({ data }) => {
          // Data already in flight when we dropped the connection is not received: we resume from our last id.
          if (dropped) return;
          received.push(data.id);
          if (waiter && received.length >= waiter.n) waiter.resolve();
          if (--budget === 0) {
            dropped = true;
            sub.unsubscribe();
            reconnects++;
            // Reopen on a later tick, as a client would after a dropped connection.
            setImmediate(open);
          }
        },
      },
    );
    current = sub;
  };
  open();
  return {
    received,
    ready,
    get reconnects() {
      return reconnects;
    },
    until: (n: number) =>
      received.length >= n ? Promise.resolve() : new Promise<void>((resolve) => (waiter = { n, resolve })),
    stop: () => {
      stopped = true;
      current?.unsubscribe();
    },
  };
}

function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
