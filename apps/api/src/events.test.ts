import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@phoneloop/state/testing";
import { createApiServer, type ApiServer } from "./api-server.ts";
import { EVENTS_APPLICATION_NAME, type StreamedEvent } from "./events.ts";
import { createApiClient } from "@phoneloop/client";

let t: TestDatabase;
let a: ApiServer;
let b: ApiServer;

beforeAll(async () => {
  t = await createTestDatabase();
  a = await createApiServer({ db: t.db, databaseUrl: t.url, port: 0, host: "127.0.0.1" });
  b = await createApiServer({ db: t.db, databaseUrl: t.url, port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await t?.drop();
});

// Stands in for any operator's commit: the same row, the same trigger, from outside either API process.
async function commitEvent(subjectId: string, goalId: string | null = null): Promise<string> {
  const row = await t.db.event.create({ data: { operator: "test.touch", actor: "test", subjectId, goalId } });
  return row.id.toString();
}

function collect(baseUrl: string, input: { goalId?: string; lastEventId?: string }) {
  const received: StreamedEvent[] = [];
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  const waiters: { n: number; resolve: () => void }[] = [];
  const sub = createApiClient({ apiUrl: baseUrl }).event.stream.subscribe(input, {
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
    const goal = await createApiClient({ apiUrl: b.url, credentials: { memberId: "m_planner" } }).goal.create.mutate({
      title: "Compare prices",
      objective: "Find the cheapest listing",
      createdBy: "m_planner",
    });
    await onA.until(1);
    onA.stop();
    expect(onA.received[0]).toMatchObject({ operator: "goal.create", subjectId: goal.id, goalId: goal.id, actor: "m_planner" });
    expect(onA.received[0]?.id).toMatch(/^\d+$/);
    expect(onA.received[0]?.createdAt).toBeInstanceOf(Date);
  });

  it("delivers every event of a burst from the other instance, in commit order", async () => {
    const goalId = `goal_burst_${Date.now().toString(36)}`;
    const onA = collect(a.url, { goalId });
    await onA.ready;
    const client = createApiClient({ apiUrl: b.url });
    await client.goal.create.mutate({ id: goalId, title: "Burst", objective: "Many todos", createdBy: "m_planner" });
    await Promise.all(
      Array.from({ length: 10 }, (_, n) => client.todo.add.mutate({ goalId, todos: [{ title: `step ${n}` }] })),
    );
    await onA.until(11);
    onA.stop();
    const ids = onA.received.map((e) => BigInt(e.id));
    expect(new Set(ids).size).toBe(11);
    expect(onA.received.filter((e) => e.operator === "goal.create")).toHaveLength(1);
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
    const client = createApiClient({ apiUrl: b.url });
    await client.goal.create.mutate({ id: goalId, title: "Cut", objective: "Survive a dropped connection", createdBy: "m_planner" });
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

  it("still delivers an event whose announcement was lost, once a later one is announced", async () => {
    const goalId = `goal_lost_${Date.now().toString(36)}`;
    const onA = collect(a.url, { goalId });
    await onA.ready;
    // A writer that committed but died before announcing (the post-commit path): the row exists, no NOTIFY came.
    const [, silent] = await t.db.$transaction([
      t.db.$executeRaw`SELECT set_config('phoneloop.notify_after_commit', 'on', true)`,
      t.db.event.create({ data: { operator: "test.silent", actor: "test", subjectId: "silent", goalId } }),
    ]);
    const announced = await commitEvent("announced", goalId);
    await onA.until(2);
    onA.stop();
    expect(onA.received.map((e) => e.id)).toEqual([silent.id.toString(), announced]);
  });

  it("reports health: database reachable, migrations applied, version", async () => {
    const res = await fetch(`${a.url}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: true, database: { reachable: true }, migrations: { pending: [] } });
    expect(typeof body.version).toBe("string");
  });
});
