// The replay counts the model calls a run saved: its steps taken without asking the model (repeated waits,
// StepOutcome.modelSkipped), and marks each such step. Over Postgres, steps written through the core's operator.
import { describe, expect, it } from "vitest";
import { useTestDatabase, seedAgent, seedGoal } from "../testing/index.ts";
import { appendStep } from "../services/run/append-step.ts";
import { startRun } from "../services/run/start-run.ts";
import { runReplay, runSteps } from "./run-replay.ts";

const t = useTestDatabase();

describe("model calls saved, in the replay", () => {
  it("counts the run's repeated waits (and no other run's), and marks each one among the steps", async () => {
    const goal = await seedGoal(t.db);
    const worker = await seedAgent(t.db);
    const run = await startRun(t.db, { goalId: goal.id, agentId: worker.id });
    const wait = { type: "wait", ms: 1000 };
    const steps = [
      { action: wait, outcome: { outcome: "waited", replies: ['{"type":"wait","ms":1000}'] }, tokens: 920 },
      { action: wait, outcome: { outcome: "waited", replies: [], modelSkipped: "unchanged_after_wait" as const }, tokens: 0 },
      { action: wait, outcome: { outcome: "waited", replies: [], modelSkipped: "unchanged_after_wait" as const }, tokens: 0 },
      { action: { type: "click", x: 500, y: 900 }, outcome: { outcome: "ok", replies: ['{"type":"click","x":500,"y":900}'] }, tokens: 930 },
    ];
    for (const [index, s] of steps.entries()) await appendStep(t.db, { runId: run.id, agentId: worker.id, index, node: "executor", ...s });
    // Another run's repeated wait is its own.
    const other = await startRun(t.db, { goalId: (await seedGoal(t.db)).id, agentId: (await seedAgent(t.db)).id });
    await appendStep(t.db, { runId: other.id, agentId: other.agentId, index: 0, node: "executor", action: wait, outcome: { outcome: "waited", modelSkipped: "unchanged_after_wait" } });

    const replay = await runReplay(t.db, { runId: run.id });
    expect(replay).toMatchObject({ stepCount: 4, modelCallsSaved: 2 });
    const page = await runSteps(t.db, { runId: run.id });
    expect(page.items.map((s) => s.modelSkipped)).toEqual([null, "unchanged_after_wait", "unchanged_after_wait", null]);
    expect(page.items.map((s) => s.tokens)).toEqual([920, 0, 0, 930]);
    expect((await runReplay(t.db, { runId: other.id })).modelCallsSaved).toBe(1);
  });

  it("a run without repeated waits saved none; an outcome naming an unknown reason is refused when written", async () => {
    const goal = await seedGoal(t.db);
    const worker = await seedAgent(t.db);
    const run = await startRun(t.db, { goalId: goal.id, agentId: worker.id });
    await appendStep(t.db, { runId: run.id, agentId: worker.id, index: 0, node: "executor", action: { type: "wait" }, outcome: { outcome: "waited" } });
    expect((await runReplay(t.db, { runId: run.id })).modelCallsSaved).toBe(0);
    const refused = await appendStep(t.db, { runId: run.id, agentId: worker.id, index: 1, node: "executor", outcome: { outcome: "waited", modelSkipped: "felt_like_it" } as never }).catch((e: { code?: string }) => e);
    expect(refused).toMatchObject({ code: "INVALID_INPUT" });
  });
});
