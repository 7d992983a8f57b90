// The one_contract migration carries existing rows over: free-text agent kinds map onto the enum, the kind the
// runtime kept in values["@kind"] moves to the column (and leaves values), lease keys survive the rename.
import { cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { applyMigrations, MIGRATIONS_DIR } from "./migrate.ts";
import { testServerAdminUrl, withDatabase } from "../testing/test-database.ts";

const name = `phoneloop_mig_${randomBytes(6).toString("hex")}`;
const url = withDatabase(testServerAdminUrl(), name);

afterAll(async () => {
  const admin = new pg.Client({ connectionString: testServerAdminUrl() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.end());
});

describe("migration one_contract", () => {
  it("maps agent kinds, moves @kind to Todo.kind, keeps lease keys", async () => {
    const before = mkdtempSync(join(tmpdir(), "phoneloop-mig-"));
    for (const dir of readdirSync(MIGRATIONS_DIR).filter((d) => /^\d+_/.test(d) && d < "20261130200649_one_contract")) {
      cpSync(join(MIGRATIONS_DIR, dir), join(before, dir), { recursive: true });
    }
    await applyMigrations(url, before);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`INSERT INTO "Agent" ("id", "name", "kind", "capabilities") VALUES ('a_tab', 'Tab', 'browser-tab', '{}'), ('a_cli', 'CLI', 'cli', '{}')`);
      await c.query(`INSERT INTO "Goal" ("id", "title", "objective", "bounds", "nonGoals", "acceptance", "createdBy", "updatedAt")
                     VALUES ('g1', 'Book', 'Book a table', '{}', '{}', '{}', 'u', now())`);
      await c.query(`INSERT INTO "Todo" ("id", "goalId", "position", "title", "requiredCapabilities", "inputs", "outputs", "values", "updatedAt") VALUES
                     ('t_host', 'g1', 0, 'Summarise', '{}', '{}', '{}', '{"@kind": "host", "date": "Friday"}', now()),
                     ('t_exec', 'g1', 1, 'Open the app', '{}', '{}', '{}', '{"@kind": "executor"}', now()),
                     ('t_plain', 'g1', 2, 'Pick a time', '{}', '{}', '{}', '{}', now())`);
      await c.query(`INSERT INTO "Lease" ("id", "todoId", "ownerId", "ttlMs", "expiresAt", "epoch", "idempotencyKey")
                     VALUES ('l1', 't_exec', 'a_cli', 60000, now(), 1, 'lk_kept')`);

      const result = await applyMigrations(url);
      expect(result.applied).toContain("20261130200649_one_contract");

      const agents = await c.query(`SELECT "id", "kind"::text AS kind FROM "Agent" ORDER BY "id"`);
      expect(agents.rows).toEqual([
        { id: "a_cli", kind: "headless" },
        { id: "a_tab", kind: "browser" },
      ]);
      const todos = await c.query(`SELECT "id", "kind"::text AS kind, "values" FROM "Todo" ORDER BY "position"`);
      expect(todos.rows).toEqual([
        { id: "t_host", kind: "host", values: { date: "Friday" } },
        { id: "t_exec", kind: "executor", values: {} },
        { id: "t_plain", kind: "executor", values: {} },
      ]);
      const leases = await c.query(`SELECT "id", "leaseKey" FROM "Lease"`);
      expect(leases.rows).toEqual([{ id: "l1", leaseKey: "lk_kept" }]);
    } finally {
      await c.end();
    }
  });
});
