// A run recorded before the evidence schemas still opens in the replay: rows inserted as the old code wrote them (a
// step's own screenshot on the step row, the replay's old readers' shapes: a proxied and a direct model call, an
// action without its policy, a report from before lessons, an anomaly row without its detector's kind), then the
// migration step_screenshot_in_observation, then the projections. The step's screenshot is its observation's now.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { applyMigrations } from "./migrate.ts";
import { createDb } from "./client.ts";
import { migrationDatabase } from "../testing/migration-database.ts";
import { runReplay, runSteps } from "../projections/run-replay.ts";

const MIGRATION = "20261202041500_step_screenshot_in_observation";
const { url, migrateBefore } = migrationDatabase();

const SHOT = "a".repeat(64);
const OTHER = "b".repeat(64);

describe(`migration ${MIGRATION}`, () => {
  it("a replay of a run recorded with the old shapes opens: the step's screenshot moved to an observation, old rows read with the fields that fit", async () => {
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
      const evidence = (id: string, step: number | null, kind: string, data: unknown, blob: string | null = null, ms = 0) =>
        q(
          `INSERT INTO "Evidence" ("id", "goalId", "todoId", "runId", "stepIndex", "kind", "summary", "data", "blobSha256", "agentId", "idempotencyKey", "createdAt")
           VALUES ($1, 'goal_old', 'todo_old', 'run_old', $2, $3::"EvidenceKind", $1, $4::jsonb, $5, 'agent_old', $1, now() + $6 * interval '1 millisecond')`,
          id, step, kind, JSON.stringify(data), blob, ms,
        );
      // Step 0: its screenshot on the step row only; its observation (no blob) lists the elements; an action without policy.
      await q(
        `INSERT INTO "Step" ("id", "runId", "index", "node", "action", "observation", "screenSha256", "anomalies", "tokens")
         VALUES ('step_0', 'run_old', 0, 'executor', $1::jsonb, $2::jsonb, $3, ARRAY['no_change'], 0)`,
        JSON.stringify({ type: "click", element: "0" }), JSON.stringify({ outcome: "ok", app: "com.book", timings: { sense: 100, model: 800, perform: 200 }, replies: ["{}"] }), SHOT,
      );
      await evidence("ev_obs0", 0, "observation", { app: "com.book", screen: { width: 1000, height: 2000 }, elements: [{ i: 0, text: "Reserve", id: null, box: [100, 100, 300, 200] }] }, null, 1);
      await evidence("ev_act0", 0, "action", { action: { type: "click", element: "0" }, px: { x: 200, y: 300 }, app: "com.book" }, null, 2);
      await evidence("ev_call0", 0, "model_call", { role: "executor", model: "m", inputTokens: 1000, outputTokens: 50, microUsd: 300, latencyMs: 800, via: "api" }, null, 3);
      await evidence("ev_anom0", 0, "anomaly", {}, null, 4);
      // Step 1: its screenshot on both (the observation names it already): no second row.
      await q(`INSERT INTO "Step" ("id", "runId", "index", "node", "action", "observation", "screenSha256", "anomalies", "tokens") VALUES ('step_1', 'run_old', 1, 'executor', '"(unparseable reply)"'::jsonb, '{"outcome":"failed: NOT_JSON"}'::jsonb, $1, '{}', 7)`, OTHER);
      await evidence("ev_obs1", 1, "observation", { app: "com.book" }, OTHER, 5);
      await evidence("ev_call1", 1, "model_call", { role: "executor", model: "d", usage: { inputTokens: 5, outputTokens: 2, microUsd: 1 }, latencyMs: 3, reply: "oops" }, null, 6);
      // Step 2: a screenshot on the step row and no observation at all (it gets one); its action row names the todo.
      await q(`INSERT INTO "Step" ("id", "runId", "index", "node", "action", "observation", "screenSha256", "anomalies", "tokens") VALUES ('step_2', 'run_old', 2, 'executor', '{"type":"navigate_back"}'::jsonb, '{"outcome":"ok"}'::jsonb, $1, '{}', 0)`, SHOT);
      await evidence("ev_act2", 2, "action", { action: { type: "navigate_back" }, px: null }, null, 8);
      // Outside the steps: a report from before lessons, with a field no writer writes now.
      await evidence("ev_sum", null, "summary", { goal: "Book", status: "completed", endReason: "all_done", executed: [], findings: ["19:00"], blocked: [], conclusion: "Booked.", outputs: {}, totals: { steps: 2 }, verdict: "fine" }, null, 7);

      expect((await applyMigrations(url)).applied).toContain(MIGRATION);
      // (The step's own column is gone since migration step_outcome.)
      // Step 0's observation names its screenshot now; step 1's named it already; step 2 had none and gets one.
      expect((await q(`SELECT "id", "stepIndex", "blobSha256" FROM "Evidence" WHERE "kind" = 'observation' ORDER BY "stepIndex", "createdAt"`)).rows).toEqual([
        { id: "ev_obs0", stepIndex: 0, blobSha256: SHOT },
        { id: "ev_obs1", stepIndex: 1, blobSha256: OTHER },
        { id: expect.stringMatching(/^ev_/), stepIndex: 2, blobSha256: SHOT },
      ]);
      expect((await q(`SELECT "todoId", "workspaceId", "data" FROM "Evidence" WHERE "idempotencyKey" = 'run_old:2:screen'`)).rows).toEqual([{ todoId: "todo_old", workspaceId: "ws_old", data: {} }]);

      const db = createDb(url, { max: 2 });
      try {
        const replay = await runReplay(db, { runId: "run_old" });
        expect(replay.report).toMatchObject({ conclusion: "Booked.", findings: ["19:00"] });
        expect(replay.report).not.toHaveProperty("verdict");
        expect(replay.totals).toEqual({ modelCalls: 2, inputTokens: 1005, outputTokens: 52, microUsd: 301 });
        const [s0, s1, s2] = (await runSteps(db, { runId: "run_old" })).items;
        expect(s2).toMatchObject({ screen: { sha256: SHOT, elements: [] }, action: { type: "navigate_back" }, point: null, todoId: "todo_old" });
        expect(s0!.screen).toMatchObject({ sha256: SHOT, mime: "image/webp", width: 1000, height: 2000, app: "com.book", elements: [{ i: 0, text: "Reserve", id: null, box: [100, 100, 300, 200] }] });
        expect(s0).toMatchObject({ action: { type: "click", element: "0" }, outcome: "ok", app: "com.book", point: { x: 200, y: 150 }, policy: null, timings: { sense: 100, model: 800, act: 200, writes: 0 }, replies: ["{}"], todoId: "todo_old" });
        expect(s0!.anomalies.map((a) => a.data)).toEqual([{}, { kind: "no_change" }]);
        expect(s1!.screen?.sha256).toBe(OTHER);
        expect(s1).toMatchObject({ action: "(unparseable reply)", outcome: "failed: NOT_JSON", tokens: 7 });
        expect(s1!.modelCalls).toMatchObject([{ model: "d", inputTokens: 5, outputTokens: 2, microUsd: 1, reply: "oops" }]);
      } finally {
        await db.$disconnect();
      }
    } finally {
      await c.end();
    }
  });
});
