// For tests of one migration: a fresh database on the test server, brought to the schema just before that migration
// (every earlier migration folder, applied as the repository applies them), so rows can be written in the shapes of
// that time; the test then applies the rest and reads what the migration made of them. The database is dropped after
// the file's tests (left to go with the server when the server is a throwaway one, see testServerIsThrowaway).
import { cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll } from "vitest";
import { applyMigrations, MIGRATIONS_DIR } from "../db/migrate.ts";
import { testServerAdminUrl, testServerIsThrowaway, withDatabase } from "./test-database.ts";

export interface MigrationDatabase {
  url: string;
  /** Applies every migration that sorts before `migration` (not it). */
  migrateBefore(migration: string): Promise<void>;
}

export function migrationDatabase(): MigrationDatabase {
  const name = `phoneloop_mig_${randomBytes(6).toString("hex")}`;
  const url = withDatabase(testServerAdminUrl(), name);
  afterAll(async () => {
    if (testServerIsThrowaway()) return;
    const admin = new pg.Client({ connectionString: testServerAdminUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.end());
  });
  return {
    url,
    async migrateBefore(migration) {
      const before = mkdtempSync(join(tmpdir(), "phoneloop-mig-"));
      for (const dir of readdirSync(MIGRATIONS_DIR).filter((d) => /^\d+_/.test(d) && d < migration)) cpSync(join(MIGRATIONS_DIR, dir), join(before, dir), { recursive: true });
      await applyMigrations(url, before);
    },
  };
}
