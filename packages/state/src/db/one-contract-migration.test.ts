// The one_contract migration carries existing rows over: free-text agent kinds map onto the enum, the kind the
// runtime kept in values["@kind"] moves to the column (and leaves values), lease keys survive the rename.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { applyMigrations } from "./migrate.ts";
import { migrationDatabase } from "../testing/migration-database.ts";

const MIGRATION = "20261130200649_one_contract";
const { url, migrateBefore } = migrationDatabase();

describe("migration one_contract", () => {
  it("maps agent kinds, moves @kind to Todo.kind, keeps lease keys", async () => {
    await migrateBefore(MIGRATION);
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
      expect(result.applied).toContain(MIGRATION);

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
