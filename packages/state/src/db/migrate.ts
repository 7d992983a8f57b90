// Applies prisma/migrations/*/migration.sql in order and records them in Prisma's own `_prisma_migrations`
// table, so `prisma migrate deploy` on a machine with the native engine sees the same history. (The native
// schema engine cannot be downloaded here; the SQL files are the single source of truth either way.)
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../../../prisma/migrations", import.meta.url));

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

/** Creates the database named in `url` if it does not exist, then applies pending migrations. */
export async function applyMigrations(url: string, dir = MIGRATIONS_DIR): Promise<MigrationResult> {
  await ensureDatabase(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // One migrator at a time per database, even with several API processes starting together.
    await client.query("SELECT pg_advisory_lock(727274)");
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const done = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const byName = new Map(done.rows.map((r) => [r.migration_name, r]));
    const applied: string[] = [];
    for (const migration of listMigrations(dir)) {
      const previous = byName.get(migration.name);
      if (previous?.finished_at) {
        if (previous.checksum !== migration.checksum) {
          throw new Error(
            `Migration ${migration.name} was changed after it was applied to this database. ` +
              `Restore the file from git, or add a new migration instead of editing an applied one.`,
          );
        }
        continue;
      }
      if (previous) {
        throw new Error(
          `Migration ${migration.name} failed part-way earlier on this database. ` +
            `Fix the database by hand, then mark it rolled back (prisma migrate resolve --rolled-back ${migration.name}).`,
        );
      }
      const id = randomUUID();
      await client.query("BEGIN");
      try {
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())`,
          [id, migration.checksum, migration.name],
        );
        await client.query(migration.sql);
        await client.query(
          `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
          [id],
        );
        await client.query("COMMIT");
      } catch (cause) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${migration.name} failed; nothing of it was applied.`, { cause });
      }
      applied.push(migration.name);
    }
    return { applied, alreadyApplied: byName.size };
  } finally {
    await client.end();
  }
}

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

function listMigrations(dir: string): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, "migration.sql")))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const database = decodeURIComponent(target.pathname.slice(1));
  if (!database) throw new Error(`DATABASE_URL names no database: ${redact(url)}. Add one, e.g. …/phoneloop.`);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  try {
    await client.connect();
  } catch (cause) {
    throw new Error(`Cannot reach Postgres at ${redact(url)}. Is it running, and are the credentials right?`, { cause });
  }
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE "${database.replaceAll('"', '""')}"`).catch((e: { code?: string }) => {
        if (e.code !== "42P04") throw e; // created meanwhile by another process
      });
    }
  } finally {
    await client.end();
  }
}

/** A URL with its password hidden, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}
