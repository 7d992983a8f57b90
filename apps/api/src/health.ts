// GET /health: can the API reach its database, are all migrations applied, is the event stream listening, which
// version is this. The database is asked through the same pool the writes use (their hot paths go straight on it),
// so /health says what a write would meet right now, and within a short time of its own (a plain timer): a stopped
// or frozen database is reported in seconds, saying what is down and what to do, instead of after the request's
// whole budget.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type pg from "pg";
import { MIGRATIONS_DIR, poolOf, type Db } from "@phoneloop/state";
import type { EventHub } from "./events.ts";

export const API_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/** How long /health waits for the database (a connection from the pool, then its answers) before it says so. */
export const HEALTH_TIMEOUT_MS = 2_000;

export interface Health {
  ok: boolean;
  version: string;
  database: {
    reachable: boolean;
    error?: string;
    /** The writes' pool as /health found it: connections open, idle, the requests waiting for one, and its size. */
    pool?: { total: number; idle: number; waiting: number; max: number };
  };
  migrations: { applied: number; pending: string[] };
  events: { listening: boolean };
  /** What is down and what to do, one sentence each; empty when all is well. */
  problems: string[];
}

const START_POSTGRES = "Check that Postgres is running and that the API's DATABASE_URL points at it; the API reconnects on its own once it answers.";

/** What asking the database found: the migrations applied, or what is wrong and what to do. */
type Probe = { ok: true; applied: string[] } | { ok: false; problem: string; error: string; reachable?: boolean };

export async function checkHealth(db: Db, events: EventHub, timeoutMs = HEALTH_TIMEOUT_MS): Promise<Health> {
  const expected = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(MIGRATIONS_DIR, e.name, "migration.sql")))
    .map((e) => e.name);
  const pool = poolOf(db);
  const probe: Probe = pool
    ? await probePool(pool, timeoutMs)
    : { ok: false, error: "no pool", problem: "The API was given a database client without its pool (one not made by createDb), so /health cannot ask what the writes use: start it with a client from createDb." };
  const poolNow = pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 } : undefined;
  const problems: string[] = [];
  if (!events.listening) {
    problems.push("The event stream's own connection to the database is down, so no live updates go out; it reconnects on its own once the database answers (if it stays down, check the database's connection limit).");
  }
  if (!probe.ok) {
    problems.unshift(probe.problem);
    return {
      ok: false,
      version: API_VERSION,
      database: { reachable: probe.reachable ?? false, error: probe.error, ...(poolNow ? { pool: poolNow } : {}) },
      migrations: { applied: 0, pending: expected },
      events: { listening: events.listening },
      problems,
    };
  }
  const applied = new Set(probe.applied);
  const pending = expected.filter((name) => !applied.has(name)).sort();
  if (pending.length > 0) {
    problems.push(`${pending.length} database migration${pending.length === 1 ? " is" : "s are"} not applied (${pending.slice(0, 3).join(", ")}${pending.length > 3 ? ", …" : ""}): restart the API, which applies them when it starts, or run it against the database it was built for.`);
  }
  return {
    ok: pending.length === 0 && events.listening,
    version: API_VERSION,
    database: { reachable: true, ...(poolNow ? { pool: poolNow } : {}) },
    migrations: { applied: applied.size, pending },
    events: { listening: events.listening },
    problems,
  };
}

const APPLIED_SQL = `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;

/** A connection from the writes' pool, SELECT 1 and the applied migrations on it, all within `timeoutMs`. */
function probePool(pool: pg.Pool, timeoutMs: number): Promise<Probe> {
  return new Promise<Probe>((resolve) => {
    let client: pg.PoolClient | undefined;
    let done = false;
    const finish = (p: Probe) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(p);
    };
    const timer = setTimeout(() => {
      const s = `${timeoutMs / 1000} s`;
      if (client) {
        // The database took the connection and then said nothing: drop the connection, so its query cannot hold
        // one of the writes' connections for as long as the database stays frozen.
        const stuck = client;
        client = undefined;
        stuck.release(new Error("health check: no answer"));
        finish({ ok: false, error: `no answer within ${s}`, problem: `The database took a connection from the API's pool but did not answer within ${s}: it is frozen or overloaded. ${START_POSTGRES}` });
      } else if (pool.waitingCount > 0 && pool.totalCount >= (pool.options.max ?? 10)) {
        const error = `all ${pool.totalCount} connections of the pool in use, ${pool.waitingCount} requests waiting`;
        // The database holds every connection of the pool: reachable, but a write would wait as long as this did.
        finish({ ok: false, reachable: true, error, problem: `The API's database connections are all in use (${error}) and none came free within ${s}: the database is slow or stuck, and writes wait too. Check the database's load and its slow queries; if it is frozen, restart it.` });
      } else {
        finish({ ok: false, error: `no connection within ${s}`, problem: `The database did not accept a connection from the API's pool within ${s}: it is stopped, frozen or unreachable. ${START_POSTGRES}` });
      }
    }, timeoutMs);
    void (async () => {
      try {
        const c = await pool.connect();
        if (done) return c.release();
        client = c;
        await c.query("SELECT 1");
        const rows = await c.query<{ migration_name: string }>(APPLIED_SQL).then(
          (r) => r.rows,
          // A database nobody migrated has no _prisma_migrations table: nothing is applied.
          (e: unknown) => {
            if ((e as { code?: string }).code === "42P01") return [];
            throw e;
          },
        );
        finish({ ok: true, applied: rows.map((r) => r.migration_name) });
      } catch (e) {
        const error = errorLine(e);
        finish({ ok: false, error, problem: `The database refused the API's pool (${error}). ${START_POSTGRES}` });
      } finally {
        // Released here unless the timer dropped it already.
        if (client) client.release();
        client = undefined;
      }
    })();
  });
}

/** An error's first non-empty line, or its code (Prisma's errors can start with an empty line). */
function errorLine(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const line = message.split("\n").find((l) => l.trim() !== "")?.trim();
  const code = (e as { code?: unknown }).code;
  return line ?? (typeof code === "string" ? code : "no reason given");
}

/**
 * GET /readyz: whether a load balancer should send this process traffic. The checks of /health (database within
 * its timeout, migrations applied, event reader listening) and that the process is not shutting down; the body names the
 * failed checks and what to do, and nothing else (no version, no pool figures: the probe is unauthenticated).
 */
export interface Readiness {
  ready: boolean;
  /** The checks made; a process shutting down makes none but that one (it answers 503 whatever the database says). */
  checks: { shuttingDown: boolean; database?: boolean; migrations?: boolean; events?: boolean };
  problems: string[];
}

export const SHUTDOWN_PROBLEM = "This API process is shutting down: it finishes the requests it has and takes no new ones; send traffic to another process.";

export async function checkReadiness(db: Db, events: EventHub, shuttingDown: boolean, timeoutMs = HEALTH_TIMEOUT_MS): Promise<Readiness> {
  if (shuttingDown) return { ready: false, checks: { shuttingDown: true }, problems: [SHUTDOWN_PROBLEM] };
  const h = await checkHealth(db, events, timeoutMs);
  return {
    ready: h.ok,
    checks: { shuttingDown: false, database: h.database.reachable, migrations: h.database.reachable && h.migrations.pending.length === 0, events: h.events.listening },
    problems: h.problems,
  };
}
