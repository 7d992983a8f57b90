// Vitest global setup for suites that need Postgres: reuses the server `npm test` started, else the one
// DATABASE_URL points at, else starts an embedded one in a temporary folder. Then migrates the template.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmbeddedPostgres, type RunningPostgres } from "../db/embedded-postgres.ts";
import { applyMigrations } from "../db/migrate.ts";
import { TEMPLATE_DATABASE, TEST_SERVER_THROWAWAY_ENV, withDatabase } from "./test-database.ts";

let started: RunningPostgres | undefined;

export async function setup(): Promise<void> {
  let adminUrl = process.env.PHONELOOP_TEST_PG_ADMIN_URL;
  if (!adminUrl && process.env.DATABASE_URL) adminUrl = withDatabase(process.env.DATABASE_URL, "postgres");
  if (!adminUrl) {
    started = await startEmbeddedPostgres({
      dataDir: join(mkdtempSync(join(tmpdir(), "phoneloop-test-pg-")), "data"),
      ephemeral: true,
      fast: true,
    });
    adminUrl = started.adminUrl;
    process.env[TEST_SERVER_THROWAWAY_ENV] = "1";
  }
  process.env.PHONELOOP_TEST_PG_ADMIN_URL = adminUrl;
  await applyMigrations(withDatabase(adminUrl, TEMPLATE_DATABASE));
}

export async function teardown(): Promise<void> {
  await started?.stop();
}
