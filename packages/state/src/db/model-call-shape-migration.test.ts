// The model_call_one_shape migration gives every model call's evidence the one shape (ModelCallData): a direct
// endpoint's nested usage moves up, marked via "runtime"; a proxied row's usageMissing becomes estimated. Each
// converted row parses with the schema, and a replay sums the same usage as before.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { parseEvidenceData } from "../domain/evidence.ts";
import { applyMigrations } from "./migrate.ts";
import { migrationDatabase } from "../testing/migration-database.ts";

const MIGRATION = "20261202137000_model_call_one_shape";
const { url, migrateBefore } = migrationDatabase();

const before: Record<string, Record<string, unknown>> = {
  ev_direct: { role: "guard", model: "small", usage: { inputTokens: 300, outputTokens: 20, microUsd: 10 }, promptTokensCounted: { text: 250, image: 0, total: 250 }, latencyMs: 400, structured: true, reply: "{}", attempt: 0 },
  ev_proxied: { via: "api", role: "executor", model: "gpt", inputTokens: 1200, outputTokens: 80, microUsd: 420, latencyMs: 900, reserved: { tokens: 5000, microUsd: 2000, maxOutputTokens: 1024 } },
  ev_missing: { via: "api", role: "executor", model: "gpt", inputTokens: 1100, outputTokens: 1024, microUsd: 900, latencyMs: 700, usageMissing: true },
};

describe(`migration ${MIGRATION}`, () => {
  it("converts a direct endpoint's and a usage-less proxied call's rows to the one shape, keeping their usage", async () => {
    await migrateBefore(MIGRATION);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`INSERT INTO "Workspace" ("id", "name") VALUES ('ws1', 'Team')`);
      await c.query(`INSERT INTO "Goal" ("id", "workspaceId", "title", "objective", "bounds", "nonGoals", "acceptance", "createdBy", "updatedAt")
                     VALUES ('goal1', 'ws1', 'Book', 'Book a table', '{}', '{}', '{}', 'u', now())`);
      for (const [id, data] of Object.entries(before)) {
        await c.query(`INSERT INTO "Evidence" ("id", "goalId", "workspaceId", "kind", "summary", "data", "idempotencyKey") VALUES ($1, 'goal1', 'ws1', 'model_call', 'a call', $2, $1)`, [id, data]);
      }
      await c.query(`INSERT INTO "Evidence" ("id", "goalId", "workspaceId", "kind", "summary", "data", "idempotencyKey") VALUES ('ev_obs', 'goal1', 'ws1', 'observation', 'a screen', '{"usage": 1}', 'ev_obs')`);

      expect((await applyMigrations(url)).applied).toContain(MIGRATION);

      const rows = new Map((await c.query<{ id: string; data: Record<string, unknown> }>(`SELECT "id", "data" FROM "Evidence"`)).rows.map((r) => [r.id, r.data]));
      expect(rows.get("ev_direct")).toEqual({ via: "runtime", role: "guard", model: "small", inputTokens: 300, outputTokens: 20, microUsd: 10, promptTokensCounted: { text: 250, image: 0, total: 250 }, latencyMs: 400, structured: true, reply: "{}", attempt: 0 });
      expect(rows.get("ev_proxied")).toEqual(before.ev_proxied);
      const { usageMissing: _, ...missing } = before.ev_missing!;
      expect(rows.get("ev_missing")).toEqual({ ...missing, estimated: true });
      for (const id of Object.keys(before)) expect(parseEvidenceData("model_call", rows.get(id)).success).toBe(true);
      // Another kind is left as it was.
      expect(rows.get("ev_obs")).toEqual({ usage: 1 });
    } finally {
      await c.end();
    }
  });
});
