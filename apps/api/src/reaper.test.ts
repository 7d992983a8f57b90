// The API's reaper over a real database: a run whose worker went silent becomes interrupted and shows in the
// attention queue with its resume action; an overdue gate expires; a live worker's run is left alone.
import { describe, expect, it } from "vitest";
import { attentionQueue, claimNext, heartbeatAgent, openGate, startRun } from "@phoneloop/state";
import { manualClock, seedAgent, seedGoal, seedTodos, useTestDatabase } from "@phoneloop/state/testing";
import { startReaper } from "./reaper.ts";

const t = useTestDatabase();

describe("reaper", () => {
  it("interrupts dead workers' runs, expires overdue gates, leaves live ones running", async () => {
    const clock = manualClock(new Date("2026-11-30T09:00:00Z"));
    const ctx = { clock };
    const lines: string[] = [];
    // A long interval: the test drives the passes with tick(), never a racing timer.
    const reaper = startReaper(t.db, { intervalMs: 3_600_000, agentStaleMs: 30_000, ctx, onLog: (l) => lines.push(l) });
    try {
      const goal = await seedGoal(t.db, {}, ctx);
      await seedTodos(t.db, goal.id, 1, {}, ctx);
      const [dead, live] = [await seedAgent(t.db, {}, ctx), await seedAgent(t.db, {}, ctx)];
      const deadRun = await startRun(t.db, { goalId: goal.id, agentId: dead.id }, ctx);
      const liveRun = await startRun(t.db, { goalId: goal.id, agentId: live.id }, ctx);
      const claim = await claimNext(t.db, { agentId: dead.id, goalId: goal.id, ttlMs: 20_000 }, ctx);
      expect(claim.claimed).toBe(true);
      const gate = await openGate(t.db, { idempotencyKey: "g1", goalId: goal.id, question: "Pay 5 EUR?", options: ["approve", "deny"], ttlMs: 40_000 }, ctx);

      clock.advance(25_000); // the dead worker's lease expired, but its heartbeat is not yet stale
      expect(await reaper.tick()).toEqual({ interruptedRunIds: [], expiredGateIds: [] });
      clock.advance(10_000);
      await heartbeatAgent(t.db, { agentId: live.id }, ctx);
      clock.advance(10_000);
      expect(await reaper.tick()).toEqual({ interruptedRunIds: [deadRun.id], expiredGateIds: [gate.gate.id] });
      const runs = await t.db.run.findMany({ where: { goalId: goal.id } });
      expect(Object.fromEntries(runs.map((r) => [r.id, r.status]))).toEqual({ [deadRun.id]: "interrupted", [liveRun.id]: "running" });
      expect(lines.join("\n")).toContain(`run ${deadRun.id} interrupted`);
      const queue = (await attentionQueue(t.db, { workspaceId: goal.workspaceId, goalId: goal.id }, ctx)).items;
      expect(queue.find((q) => q.kind === "run_interrupted")).toMatchObject({ runId: deadRun.id, action: { kind: "resume_run", runId: deadRun.id } });
    } finally {
      await reaper.close();
    }
  });
});
