// GET /health: is the database reachable, are all migrations applied, which version is this.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS_DIR, type Db } from "@phoneloop/state";
import type { EventHub } from "./events.ts";

export const API_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

export interface Health {
  ok: boolean;
  version: string;
  database: { reachable: boolean; error?: string };
  migrations: { applied: number; pending: string[] };
  events: { listening: boolean };
}

export async function checkHealth(db: Db, events: EventHub): Promise<Health> {
  const expected = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(MIGRATIONS_DIR, e.name, "migration.sql")))
    .map((e) => e.name);
  const down = (e: unknown): Health => ({
    ok: false,
    version: API_VERSION,
    database: { reachable: false, error: e instanceof Error ? (e.message.split("\n")[0] ?? "") : String(e) },
    migrations: { applied: 0, pending: expected },
    events: { listening: events.listening },
  });
  try {
    await db.$queryRaw`SELECT 1`;
  } catch (e) {
    return down(e);
  }
  // A database nobody migrated has no _prisma_migrations table: everything is pending.
  const rows = await db.$queryRaw<{ migration_name: string }[]>`
    SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`.catch(
    () => [],
  );
  const applied = new Set(rows.map((r) => r.migration_name));
  const pending = expected.filter((name) => !applied.has(name)).sort();
  return {
    ok: pending.length === 0 && events.listening,
    version: API_VERSION,
    database: { reachable: true },
    migrations: { applied: applied.size, pending },
    events: { listening: events.listening },
  };
}
