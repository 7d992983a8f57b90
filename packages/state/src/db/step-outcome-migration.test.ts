// A run recorded before migration step_outcome still opens in the replay with its screenshots: step rows written in
// that time's shape ("observation" holding the outcome, and a screenshot on the step row itself, as an older tool
// still wrote after step_screenshot_in_observation), then the migration, then the projections. The outcome is read
// from the renamed column; each step's screenshot is its observation's blob (a step without an observation gets one).
import pg from "pg";
import { describe, expect, it } from "vitest";
import { applyMigrations } from "./migrate.ts";
import { createDb } from "./client.ts";
import { migrationDatabase } from "../testing/migration-database.ts";
import { runSteps } from "../projections/run-replay.ts";

const MIGRATION = "20261202133000_step_outcome";
const { url, migrateBefore } = migrationDatabase();

const SHOT = "c".repeat(64);
const OTHER = "d".repeat(64);
const GONE = "e".repeat(64);

describe(`migration ${MIGRATION}`, () => {
  it("renames the step's observation to its outcome, hands a step's own screenshot to its observation and drops the column", async () => {
    await migrateBefore(MIGRATION);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const q = (sql: string, ...params: unknown[]) => c.query(sql, params);
      await q(`INSERT INTO "Workspace" ("id", "name") VALUES ('ws_old', 'Team')`);
      await q(`INSERT INTO "Goal" ("id", "workspaceId", "title", "objective", "createdBy") VALUES ('goal_old', 'ws_old', 'Book', 'Book a table', 'u')`);
      await q(`INSERT INTO "Agent" ("id", "workspaceId", "name", "kind") VALUES ('agent_old', 'ws_old', 'phone', 'headless')`);
      await q(`INSERT INTO "Run" ("id", "goalId", "agentId", "status", "endedAt", "endReason", "summary") VALUES ('run_old', 'goal_old', 'agent_old', 'completed', now(), 'all_done', 'Booked.')`);
      for (const sha of [SHOT, OTHER]) {
        await q(`INSERT INTO "Blob" ("sha256", "mime", "size") VALUES ($1, 'image/webp', 10)`, sha);
        await q(`INSERT INTO "WorkspaceBlob" ("workspaceId", "sha256") VALUES ('ws_old', $1)`, sha);
      }
      const evidence = (id: string, step: number, kind: string, data: unknown, blob: string | null, ms: number) =>
        q(
          `INSERT INTO "Evidence" ("id", "goalId", "todoId", "runId", "stepIndex", "kind", "summary", "data", "blobSha256", "agentId", "idempotencyKey", "createdAt")
           VALUES ($1, 'goal_old', 'todo_old', 'run_old', $2, $3::"EvidenceKind", $1, $4::jsonb, $5, 'agent_old', $1, now() + $6 * interval '1 millisecond')`,
          id, step, kind, JSON.stringify(data), blob, ms,
        );
      const step = (index: number, action: unknown, outcome: unknown, screen: string | null) =>
        q(
          `INSERT INTO "Step" ("id", "runId", "index", "node", "action", "observation", "screenSha256", "anomalies", "tokens") VALUES ($1, 'run_old', $2, 'executor', $3::jsonb, $4::jsonb, $5, '{}', 10)`,
          `step_${index}`, index, JSON.stringify(action), JSON.stringify(outcome), screen,
        );
      // Step 0: its screenshot on the step row only; its observation (no blob) lists the screen.
      await step(0, { type: "click", element: "0" }, { outcome: "ok", app: "com.book", timings: { sense: 100, model: 800, perform: 200 }, replies: ["{}"] }, SHOT);
      await evidence("ev_obs0", 0, "observation", { app: "com.book", screen: { width: 1000, height: 2000 }, elements: [{ i: 0, text: "Reserve", id: null, box: [100, 100, 300, 200] }] }, null, 1);
      await evidence("ev_act0", 0, "action", { action: { type: "click", element: "0" }, px: { x: 200, y: 300 } }, null, 2);
      // Step 1: recorded the way the runtime records now (the screenshot on its observation only).
      await step(1, { type: "navigate_back" }, { outcome: "failed: NO_ACTION_FOUND" }, null);
      await evidence("ev_obs1", 1, "observation", { app: "com.book" }, OTHER, 3);
      // Step 2: a screenshot on the step row and no observation at all: it gets one.
      await step(2, { type: "navigate_back" }, { outcome: "complete" }, OTHER);
      await evidence("ev_act2", 2, "action", { action: { type: "navigate_back" }, px: null }, null, 4);
      // Step 3: a screenshot whose blob is gone: dropped, the step still opens.
      await step(3, { type: "navigate_back" }, { outcome: "ok" }, GONE);

      expect((await applyMigrations(url)).applied).toContain(MIGRATION);
      const columns = (await q(`SELECT "column_name" AS c FROM information_schema.columns WHERE "table_name" = 'Step' ORDER BY "ordinal_position"`)).rows.map((r) => r.c);
      expect(columns).toContain("outcome");
      expect(columns).not.toContain("observation");
      expect(columns).not.toContain("screenSha256");
      expect((await q(`SELECT "index", "outcome" FROM "Step" ORDER BY "index"`)).rows.map((r) => [r.index, r.outcome.outcome])).toEqual([[0, "ok"], [1, "failed: NO_ACTION_FOUND"], [2, "complete"], [3, "ok"]]);
      expect((await q(`SELECT "id", "stepIndex", "blobSha256" FROM "Evidence" WHERE "kind" = 'observation' ORDER BY "stepIndex", "createdAt"`)).rows).toEqual([
        { id: "ev_obs0", stepIndex: 0, blobSha256: SHOT },
        { id: "ev_obs1", stepIndex: 1, blobSha256: OTHER },
        { id: expect.stringMatching(/^ev_/), stepIndex: 2, blobSha256: OTHER },
      ]);

      const db = createDb(url, { max: 2 });
      try {
        const [s0, s1, s2, s3] = (await runSteps(db, { runId: "run_old" })).items;
        expect(s0).toMatchObject({ outcome: "ok", app: "com.book", timings: { sense: 100, model: 800, act: 200 }, replies: ["{}"], point: { x: 200, y: 150 }, todoId: "todo_old" });
        expect(s0!.screen).toMatchObject({ sha256: SHOT, mime: "image/webp", width: 1000, height: 2000, elements: [{ i: 0, text: "Reserve" }] });
        expect(s1).toMatchObject({ outcome: "failed: NO_ACTION_FOUND", screen: { sha256: OTHER } });
        expect(s2).toMatchObject({ outcome: "complete", screen: { sha256: OTHER, elements: [] }, todoId: "todo_old" });
        expect(s3).toMatchObject({ outcome: "ok", screen: null });
      } finally {
        await db.$disconnect();
      }
    } finally {
      await c.end();
    }
  });
});
