// run.recordStep's cost in statements: one step record of the shape the runtime sends on every executor step (its
// evidence fenced by the lease, the step row, a validated turn result with its spend, the checkpoint and the route)
// reads each fact once — the run, the todo's lock, the lease, the workspace, the quota — and the test counts the
// statements Postgres receives, so that a second read of one of them cannot come back unnoticed.
import { describe, expect, it } from "vitest";
import { useTestDatabase, seedClaimed } from "../../testing/index.ts";
import { statementLog } from "../../testing/statement-log.ts";
import { setQuotaPolicy } from "../quota/set-quota-policy.ts";
import { putBlob } from "../blob/put-blob.ts";
import { recordStep, type RecordStepInput } from "./record-step.ts";
import { startRun } from "./start-run.ts";
import { startTodo } from "../todo/start-todo.ts";

const t = useTestDatabase();

describe("run.recordStep statements", () => {
  it("one step record is one transaction of a fixed number of statements", async () => {
    const { goal, todo, agent, claim } = await seedClaimed(t.db);
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxSteps: 2 });
    await startTodo(t.db, { todoId: todo.id, agentId: agent.id, leaseKey: claim.lease.leaseKey });
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
    const blob = await putBlob(t.db, { bytes: Buffer.from(`screen ${run.id}`), mime: "text/plain", workspaceId: goal.workspaceId });
    const record = (n: number): RecordStepInput => ({
      runId: run.id,
      agentId: agent.id,
      todoId: todo.id,
      leaseKey: claim.lease.leaseKey,
      evidence: [
        { idempotencyKey: `${run.id}:${n}:observation`, kind: "observation", stepIndex: n, summary: "feed", data: { app: "com.example.social" }, blobSha256: blob.sha256 },
        { idempotencyKey: `${run.id}:${n}:action`, kind: "action", stepIndex: n, summary: "tap", data: { action: { type: "click", element: "3" } } },
      ],
      step: { index: n, node: "executor", action: { type: "click", element: "3" }, outcome: { outcome: "ok" }, anomalies: [], tokens: 1200 },
      turnResult: { idempotencyKey: `${run.id}:${n}:turn`, kind: "validated_progress", summary: `step ${n}`, spend: { key: `${run.id}:${n}:spend`, steps: 1, tokens: 1200 } },
      checkpoint: { node: "executor", stepIndex: n + 1 },
      route: true,
    });
    const log = statementLog(t.url);
    try {
      // The first on a connection also loads its types; its spend leaves one step of the quota.
      expect((await recordStep(log.db, record(0))).route?.route).toBe("ready_for_host");
      log.clear();
      const out = await recordStep(log.db, record(1));
      expect(out.turnResult).toMatchObject({ kind: "validated_progress", duplicate: false, spendError: null });
      // The route reads the quota as this record's spend left it: used up.
      expect(out.route).toEqual({ route: "blocked", reason: "quota exhausted" });
      const sent = log.statements.map((s) => s.replace(/\s+/g, " ").trim());
      const count = (re: RegExp) => sent.filter((s) => re.test(s)).length;
      // Each fact read once: the run (with its workspace and the blobs it holds), the todo's lock, the lease, the
      // quota (its policies' lock and their usage, which the route then takes from the spend), the turn key, the
      // spend key; no separate workspace or run lookup.
      expect(count(/FROM "Run" r JOIN "Goal" g .* FOR UPDATE OF r$/)).toBe(1);
      expect(count(/FROM "Todo" t JOIN "Goal" g .* FOR UPDATE OF t$/)).toBe(1);
      expect(count(/FROM "Lease" WHERE "todoId" = \$1 AND "status" = 'active' FOR UPDATE$/)).toBe(1);
      expect(count(/^SELECT "id" FROM "QuotaPolicy" .* FOR UPDATE$/)).toBe(1);
      expect(count(/^WITH tm AS .* FROM "QuotaPolicy" p/)).toBe(1);
      expect(count(/FROM "public"\."Goal"|FROM "public"\."Run"/)).toBe(0);
      // BEGIN; run; todo; lease; evidence; step; their Events; turn key; todo update; its Event; turn; policy lock;
      // usage; spend key; spend; its Event; checkpoint; its Event; the route's read; COMMIT.
      expect(sent[0]).toBe("BEGIN");
      expect(sent.at(-1)).toBe("COMMIT");
      expect(sent, sent.join("\n")).toHaveLength(20);
    } finally {
      await log.db.$disconnect();
    }
  });
});
