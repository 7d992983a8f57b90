// The gate_in_core migration keeps every gate opened before it and gives each its kind by the rule the web app
// guessed it with (options all "approve" or "deny": an approval; else a question); todos get the core's attempt
// limit.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { gateKindOf } from "../domain/gate.ts";
import { applyMigrations } from "./migrate.ts";
import { migrationDatabase } from "../testing/migration-database.ts";

const MIGRATION = "20261202035000_gate_in_core";
const { url, migrateBefore } = migrationDatabase();

describe(`migration ${MIGRATION}`, () => {
  it("gives the gates opened before it their kind by their options, losing none, and todos the core's attempt limit", async () => {
    await migrateBefore(MIGRATION);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const gates: [string, string[]][] = [
      ["g_pay", ["approve", "deny"]],
      ["g_deny", ["deny"]],
      ["g_size", ["2", "4"]],
      ["g_mixed", ["approve", "later"]],
      ["g_words", []],
    ];
    try {
      await c.query(`INSERT INTO "Workspace" ("id", "name") VALUES ('ws1', 'Team')`);
      await c.query(`INSERT INTO "Goal" ("id", "workspaceId", "title", "objective", "bounds", "nonGoals", "acceptance", "createdBy", "updatedAt")
                     VALUES ('goal1', 'ws1', 'Book', 'Book a table', '{}', '{}', '{}', 'u', now())`);
      await c.query(`INSERT INTO "Todo" ("id", "goalId", "position", "title", "requiredCapabilities", "inputs", "outputs", "values", "attempts", "updatedAt")
                     VALUES ('t1', 'goal1', 0, 'Pay the deposit', '{}', '{}', '{}', '{}', 2, now())`);
      for (const [id, options] of gates) {
        await c.query(`INSERT INTO "Gate" ("id", "goalId", "todoId", "question", "options", "evidenceIds", "answerRoles") VALUES ($1, 'goal1', 't1', $2, $3, '{}', '{approver,admin}')`, [id, `Question ${id}?`, options]);
      }

      expect((await applyMigrations(url)).applied).toContain(MIGRATION);

      const rows = await c.query<{ id: string; kind: string; options: string[]; question: string; tier: string | null; action: unknown; policy: unknown }>(
        `SELECT "id", "kind"::text AS kind, "options", "question", "tier", "action", "policy" FROM "Gate" ORDER BY "id"`,
      );
      expect(rows.rows.map((r) => [r.id, r.kind])).toEqual([
        ["g_deny", "approval"],
        ["g_mixed", "question"],
        ["g_pay", "approval"],
        ["g_size", "question"],
        ["g_words", "question"],
      ]);
      // The SQL rule is the core's rule for a gate whose opener names no kind.
      for (const r of rows.rows) expect(r.kind).toBe(gateKindOf(r.options));
      // Nothing stored is lost: every gate keeps its question and options; the new fields are empty.
      expect(rows.rows.map((r) => [r.id, r.question, r.options, r.tier, r.action, r.policy])).toEqual(
        [...gates].sort(([a], [b]) => a.localeCompare(b)).map(([id, options]) => [id, `Question ${id}?`, options, null, null, null]),
      );
      expect((await c.query(`SELECT "attempts", "maxAttempts" FROM "Todo"`)).rows).toEqual([{ attempts: 2, maxAttempts: 5 }]);
    } finally {
      await c.end();
    }
  });
});
