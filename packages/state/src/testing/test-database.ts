// Throwaway databases for tests: each call clones a migrated template, so test files run in parallel on one
// real Postgres server without sharing rows. The server is the embedded one the global setup started, or the
// one DATABASE_URL points at.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { createDb, type Db } from "../db/client.ts";

export const TEMPLATE_DATABASE = "phoneloop_test_template";
/** How long a dropped database's pool may take to hand back its clients before the drop goes on without them. */
const DISCONNECT_WAIT_MS = 10_000;
const DROP_LOCK_TIMEOUT_MS = 20_000;
const DROP_ATTEMPTS = 4;

/**
 * Whether the test server is a throwaway one this test run started (`npm test`, or the global setup without
 * DATABASE_URL): its folder is deleted when the run ends, so a file's databases are left to go with it instead of
 * being dropped. Every DROP DATABASE makes Postgres take an immediate checkpoint and wait for every backend of the
 * server to close its files; a few hundred of them, from parallel files on a busy machine, held other files' queries
 * and drops for minutes. On a server DATABASE_URL names (someone's own) every database is still dropped.
 */
export const TEST_SERVER_THROWAWAY_ENV = "PHONELOOP_TEST_PG_THROWAWAY";
export function testServerIsThrowaway(): boolean {
  return process.env[TEST_SERVER_THROWAWAY_ENV] === "1";
}

/** Admin URL (database `postgres`) of the test server, set by the global setup. */
export function testServerAdminUrl(): string {
  const url = process.env.PHONELOOP_TEST_PG_ADMIN_URL;
  if (!url) {
    throw new Error(
      "No test Postgres: run tests through `npm test` (or vitest from the repo root), whose global setup starts one.",
    );
  }
  return url;
}

export function withDatabase(adminUrl: string, database: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

export interface TestDatabase {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

export async function createTestDatabase(opts: { poolSize?: number } = {}): Promise<TestDatabase> {
  const adminUrl = testServerAdminUrl();
  const name = `phoneloop_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DATABASE}"`);
        break;
      } catch (e) {
        // Another clone of the template in the same instant: Postgres allows one at a time.
        if ((e as { code?: string }).code !== "55006" || attempt > 50) throw e;
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
      }
    }
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const db = createDb(url, { max: opts.poolSize ?? 10 });
  return {
    url,
    db,
    async drop() {
      // A pool whose client is still checked out (a transaction a test left open) would never end: after a bounded
      // wait the database is dropped anyway, which ends its connections. A drop queued behind other files' creates
      // and drops on a loaded machine gives up after its lock timeout and is tried again.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([db.$disconnect().catch(() => undefined), new Promise((r) => (timer = setTimeout(r, DISCONNECT_WAIT_MS)))]);
      clearTimeout(timer);
      if (testServerIsThrowaway()) return;
      for (let attempt = 1; ; attempt++) {
        const c = new pg.Client({ connectionString: adminUrl });
        await c.connect();
        try {
          await c.query(`SET lock_timeout = '${DROP_LOCK_TIMEOUT_MS}ms'`);
          await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
          return;
        } catch (e) {
          if (attempt >= DROP_ATTEMPTS) throw e;
        } finally {
          await c.end();
        }
      }
    },
  };
}
