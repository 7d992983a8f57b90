// The workspaces migration carries existing rows over: goals, agents, blobs and events go into one "Default"
// workspace; old members become people and members of it with their roles renamed (owner -> admin, reviewer ->
// approver), and so do the answer roles recorded on gates.
import { cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { applyMigrations, MIGRATIONS_DIR } from "./migrate.ts";
import { testServerAdminUrl, withDatabase } from "../testing/test-database.ts";

const MIGRATION = "20261130211000_workspaces";
const name = `phoneloop_mig_${randomBytes(6).toString("hex")}`;
const url = withDatabase(testServerAdminUrl(), name);

afterAll(async () => {
  const admin = new pg.Client({ connectionString: testServerAdminUrl() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.end());
});

describe(`migration ${MIGRATION}`, () => {
  it("puts existing rows in a Default workspace and maps members and roles", async () => {
    const before = mkdtempSync(join(tmpdir(), "phoneloop-mig-"));
    for (const dir of readdirSync(MIGRATIONS_DIR).filter((d) => /^\d+_/.test(d) && d < MIGRATION)) {
      cpSync(join(MIGRATIONS_DIR, dir), join(before, dir), { recursive: true });
    }
    await applyMigrations(url, before);
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
