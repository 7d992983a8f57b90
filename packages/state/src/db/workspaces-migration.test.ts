// The workspaces migration carries existing rows over: goals, agents, blobs and events go into one "Default"
// workspace; old members become people and members of it with their roles renamed (owner -> admin, reviewer ->
// approver), and so do the answer roles recorded on gates.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { applyMigrations } from "./migrate.ts";
import { migrationDatabase } from "../testing/migration-database.ts";

const MIGRATION = "20261130211000_workspaces";
const { url, migrateBefore } = migrationDatabase();

describe(`migration ${MIGRATION}`, () => {
  it("puts existing rows in a Default workspace and maps members and roles", async () => {
    await migrateBefore(MIGRATION);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`INSERT INTO "Member" ("id", "name", "role") VALUES ('m_olive', 'Olive', 'owner'), ('m_rex', 'Rex', 'reviewer'), ('m_vera', 'Vera', 'viewer')`);
      await c.query(`INSERT INTO "Agent" ("id", "name", "kind", "capabilities") VALUES ('a_cli', 'CLI', 'headless', '{}')`);
      await c.query(`INSERT INTO "Goal" ("id", "title", "objective", "bounds", "nonGoals", "acceptance", "createdBy", "updatedAt")
                     VALUES ('g1', 'Book', 'Book a table', '{}', '{}', '{}', 'm_olive', now())`);
      await c.query(`INSERT INTO "Gate" ("id", "goalId", "question", "options", "evidenceIds", "answerRoles") VALUES ('gate1', 'g1', 'Pay?', '{}', '{}', '{owner,reviewer}')`);
      await c.query(`INSERT INTO "Blob" ("sha256", "mime", "size", "bytes") VALUES ('${"a".repeat(64)}', 'image/png', 1, '\\x00')`);
      await c.query(`INSERT INTO "Event" ("goalId", "operator", "actor", "subjectId") VALUES ('g1', 'goal.create', 'm_olive', 'g1')`);

      expect((await applyMigrations(url)).applied).toContain(MIGRATION);

      expect((await c.query(`SELECT "id", "name" FROM "Workspace"`)).rows).toEqual([{ id: "ws_default", name: "Default" }]);
      const members = await c.query(`SELECT m."userId", m."role"::text AS role, u."name" FROM "Membership" m JOIN "user" u ON u."id" = m."userId" ORDER BY m."userId"`);
      expect(members.rows).toEqual([
        { userId: "m_olive", role: "admin", name: "Olive" },
        { userId: "m_rex", role: "approver", name: "Rex" },
        { userId: "m_vera", role: "viewer", name: "Vera" },
      ]);
      expect((await c.query(`SELECT "workspaceId" FROM "Goal"`)).rows).toEqual([{ workspaceId: "ws_default" }]);
      expect((await c.query(`SELECT "workspaceId" FROM "Agent"`)).rows).toEqual([{ workspaceId: "ws_default" }]);
      expect((await c.query(`SELECT "workspaceId" FROM "WorkspaceBlob"`)).rows).toEqual([{ workspaceId: "ws_default" }]);
      expect((await c.query(`SELECT "answerRoles"::text[] AS roles FROM "Gate"`)).rows).toEqual([{ roles: ["admin", "approver"] }]);
      expect((await c.query(`SELECT "workspaceId" FROM "Event"`)).rows).toEqual([{ workspaceId: "ws_default" }]);
      // New events take their workspace from their goal.
      await c.query(`INSERT INTO "Event" ("goalId", "operator", "actor", "subjectId") VALUES ('g1', 'goal.pause', 'm_olive', 'g1')`);
      expect((await c.query(`SELECT count(*)::int AS n FROM "Event" WHERE "workspaceId" = 'ws_default'`)).rows).toEqual([{ n: 2 }]);
    } finally {
      await c.end();
    }
  });
});
