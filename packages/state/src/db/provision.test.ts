import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { testServerAdminUrl, withDatabase } from "../testing/test-database.ts";
import { startEmbeddedPostgres, passwordFileOf } from "./embedded-postgres.ts";
import { applyMigrations } from "./migrate.ts";
import { provisionProductDatabase } from "./provision.ts";

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

describe("the product's database role", () => {
  it("is no superuser, owns the product database and what the migrations made in it, and can make no database", async () => {
    const admin = testServerAdminUrl();
    const suffix = randomBytes(4).toString("hex");
    const dir = mkdtempSync(join(tmpdir(), "phoneloop-provision-"));
    const init = { adminUrl: admin, database: `phoneloop_prov_${suffix}`, role: `phoneloop_prov_${suffix}`, passwordFile: join(dir, "app.password") };
    const url = await provisionProductDatabase(init);
    expect(statSync(init.passwordFile).mode & 0o777).toBe(0o600);
    expect(new URL(url).username).toBe(init.role);
    await applyMigrations(url);
    const [role] = await query<{ rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean }>(admin, "SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = $1", [init.role]);
    expect(role).toEqual({ rolsuper: false, rolcreatedb: false, rolcreaterole: false });
    const foreign = await query<{ relname: string }>(url, "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND pg_get_userbyid(c.relowner) <> current_user");
    expect(foreign).toEqual([]);
    await expect(query(url, `CREATE DATABASE "x_${suffix}"`)).rejects.toThrow(/permission denied/);
    await expect(query(url, "ALTER ROLE postgres PASSWORD 'x'")).rejects.toThrow(/permission denied/);
    // Idempotent, and a database the superuser made earlier is handed over.
    await query(withDatabase(admin, init.database), "CREATE TABLE legacy_owned_by_superuser (id int)");
    const again = await provisionProductDatabase(init);
    expect(again).toBe(url);
    expect(await query(url, "SELECT count(*)::int AS n FROM legacy_owned_by_superuser")).toEqual([{ n: 0 }]);
    await query(admin, `DROP DATABASE "${init.database}" WITH (FORCE)`);
    await query(admin, `DROP ROLE "${init.role}"`);
  });
});

describe("embedded Postgres", () => {
  it("keeps a random superuser password beside its data folder, readable by the owner only", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "phoneloop-pgpw-")), "data");
    const server = await startEmbeddedPostgres({ dataDir, ephemeral: true, fast: true });
    try {
      const file = passwordFileOf(dataDir);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(new URL(server.adminUrl).password).not.toBe("phoneloop");
      expect(await query(server.adminUrl, "SELECT 1 AS ok")).toEqual([{ ok: 1 }]);
      const guessed = new URL(server.adminUrl);
      guessed.password = "phoneloop";
      await expect(query(guessed.toString(), "SELECT 1")).rejects.toThrow(/password authentication failed/);
    } finally {
      await server.stop();
    }
  });

  it("moves a data folder made before random passwords off the old fixed one on its next start", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "phoneloop-pglegacy-")), "data");
    const first = await startEmbeddedPostgres({ dataDir, fast: true });
    await query(first.adminUrl, "ALTER ROLE postgres PASSWORD 'phoneloop'");
    await first.stop();
    rmSync(passwordFileOf(dataDir)); // as an install from before kept no password file
    const again = await startEmbeddedPostgres({ dataDir, ephemeral: true, fast: true });
    try {
      const password = readFileSync(passwordFileOf(dataDir), "utf8").trim();
      expect(password).not.toBe("phoneloop");
      expect(new URL(again.adminUrl).password).toBe(password);
      expect(await query(again.adminUrl, "SELECT 1 AS ok")).toEqual([{ ok: 1 }]);
      const old = new URL(again.adminUrl);
      old.password = "phoneloop";
      await expect(query(old.toString(), "SELECT 1")).rejects.toThrow(/password authentication failed/);
    } finally {
      await again.stop();
    }
  });
});
