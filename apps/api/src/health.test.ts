// GET /health over the real API and Postgres: it asks the pool the writes use, answers within its own short time
// when the database cannot, and says what is down and what to do — also through the client's checkApi.
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { checkApi } from "@phoneloop/client";
import { createDb, poolOf, type Db } from "@phoneloop/state";
import { useTestDatabase } from "@phoneloop/state/testing";
import { createApiServer, type ApiServer } from "./api-server.ts";
import { useApiServer } from "./use-api-server.ts";
import type { Health } from "./health.ts";

/** The API's own budget is far longer than /health's: an answer in time is /health's doing, not the budget's 503. */
const LONG_BUDGET = { requestTimeoutMs: 600_000 };

async function health(url: string): Promise<{ status: number; body: Health; text: string }> {
  const res = await fetch(`${url}/health`);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Health, text };
}

describe("the pool the writes use", () => {
  const t = useTestDatabase({ poolSize: 2 });
  const api = useApiServer(t, LONG_BUDGET);

  it("answers 200 with nothing to do while the pool has room", async () => {
    const { status, body } = await health(api.url);
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, database: { reachable: true, pool: { max: 2 } }, migrations: { pending: [] }, problems: [] });
  });

  it("every connection of the writes' pool held: says so within its own time, and recovers when they come free", async () => {
    const pool = poolOf(t.db)!;
    const held: pg.PoolClient[] = await Promise.all([pool.connect(), pool.connect()]);
    try {
      const { status, body } = await health(api.url);
      expect(status).toBe(503);
      expect(body.ok).toBe(false);
      // Reachable (it holds the connections) but no write would get one now either.
      expect(body.database).toMatchObject({ reachable: true, pool: { total: 2, max: 2 } });
      expect(body.database.pool!.waiting).toBeGreaterThanOrEqual(1);
      expect(body.problems[0]).toMatch(/connections are all in use \(all 2 connections of the pool in use, \d+ requests? waiting\) and none came free within 2 s.*Check the database's load/);
    } finally {
      for (const c of held) c.release();
    }
    await expect.poll(async () => (await health(api.url)).status).toBe(200);
  });
});

describe("a database that is stopped or frozen", () => {
  const t = useTestDatabase();
  let silent: Server;
  const sockets = new Set<Socket>();
  let frozenDb: Db;
  let stoppedDb: Db;
  let frozenApi: ApiServer;
  let stoppedApi: ApiServer;
  const PASSWORD = "health-test-password-7f3a";

  beforeAll(async () => {
    // Takes connections and never says a word: a frozen Postgres (SIGSTOP) as its clients meet it.
    silent = createServer((s) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    frozenDb = createDb(`postgresql://phoneloop:${PASSWORD}@127.0.0.1:${(silent.address() as AddressInfo).port}/phoneloop`);
    // Nothing listens there any more: a stopped Postgres.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const freePort = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    stoppedDb = createDb(`postgresql://phoneloop:${PASSWORD}@127.0.0.1:${freePort}/phoneloop`);
    // The event stream keeps its own connection to the real database: only the writes' pool is cut off.
    frozenApi = await createApiServer({ db: frozenDb, databaseUrl: t.url, port: 0, host: "127.0.0.1", ...LONG_BUDGET });
    stoppedApi = await createApiServer({ db: stoppedDb, databaseUrl: t.url, port: 0, host: "127.0.0.1", ...LONG_BUDGET });
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all([frozenApi?.close(), stoppedApi?.close()]);
    await Promise.all([frozenDb?.$disconnect(), stoppedDb?.$disconnect()]);
    await new Promise<void>((r) => silent.close(() => r()));
  });

  it("frozen: 503 within its own time, naming what is down and what to do, never the URL's password", async () => {
    const { status, body, text } = await health(frozenApi.url);
    expect(status).toBe(503);
    expect(body).toMatchObject({ ok: false, database: { reachable: false, error: "no connection within 2 s" }, events: { listening: true } });
    expect(body.problems).toHaveLength(1);
    expect(body.problems[0]).toMatch(/did not accept a connection from the API's pool within 2 s: it is stopped, frozen or unreachable\. Check that Postgres is running and that the API's DATABASE_URL points at it/);
    expect(text).not.toContain(PASSWORD);
  });

  it("stopped: 503 with the database's own reason", async () => {
    const { status, body, text } = await health(stoppedApi.url);
    expect(status).toBe(503);
    expect(body.database.reachable).toBe(false);
    expect(body.database.error).toMatch(/ECONNREFUSED/);
    expect(body.problems[0]).toMatch(/^The database refused the API's pool \(.*ECONNREFUSED.*\)\. Check that Postgres is running/);
    expect(text).not.toContain(PASSWORD);
  });

  it("the client's checkApi passes the API's words on", async () => {
    const e = await checkApi(frozenApi.url).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "API_UNHEALTHY" });
    expect((e as Error).message).toMatch(/^The PhoneLoop API at http:\/\/127\.0\.0\.1:\d+ answers but is not healthy: The database did not accept a connection from the API's pool within 2 s/);
  });
});

describe("a database the API was not migrated onto", () => {
  const t = useTestDatabase();
  const api = useApiServer(t, LONG_BUDGET);

  it("names the migrations not applied and what to do", async () => {
    const [newest] = await t.db.$queryRawUnsafe<{ migration_name: string }[]>(`SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name DESC LIMIT 1`);
    await t.db.$executeRawUnsafe(`DELETE FROM "_prisma_migrations" WHERE migration_name = $1`, newest!.migration_name);
    const { status, body } = await health(api.url);
    expect(status).toBe(503);
    expect(body).toMatchObject({ ok: false, database: { reachable: true }, migrations: { pending: [newest!.migration_name] } });
    expect(body.problems).toEqual([`1 database migration is not applied (${newest!.migration_name}): restart the API, which applies them when it starts, or run it against the database it was built for.`]);
  });
});
