// A stop whose cause can go away resumes once it is gone, as the same run; a truly finished run still refuses,
// saying why. Over Postgres through the operators.
import { describe, expect, it } from "vitest";
import { useTestDatabase, seedAgent, seedGate, seedGoal, seedMember } from "../../testing/index.ts";
import { type StateError } from "../../domain/errors.ts";
import { goalRuns } from "../../projections/goal-runs.ts";
import { runReplay } from "../../projections/run-replay.ts";
import { resolveGate } from "../gate/resolve-gate.ts";
import { setQuotaPolicy } from "../quota/set-quota-policy.ts";
import { spendQuota } from "../quota/spend-quota.ts";
import { finishRun } from "./finish-run.ts";
import { resumeRun } from "./resume-run.ts";
import { startRun } from "./start-run.ts";

const t = useTestDatabase();

const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);
const phone = (serial: string) => ({ device: { serial, model: "Pixel 8" } });

describe("resuming a stop whose cause can go away", () => {
  it("a run blocked by its quota is refused while the quota is spent, and resumes as the same run once it is raised", async () => {
    const goal = await seedGoal(t.db);
    const worker = await seedAgent(t.db, { kind: "headless" });
    const run = await startRun(t.db, { goalId: goal.id, agentId: worker.id });
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxSteps: 2 });
    await spendQuota(t.db, { key: `${run.id}:s1`, goalId: goal.id, agentId: worker.id, runId: run.id, steps: 2 });
    await finishRun(t.db, { runId: run.id, agentId: worker.id, status: "blocked", endReason: "exhausted", summary: "The run is blocked and can resume. quota exhausted." });

    // The board lists it as resumable, with its cause and what removes it.
    expect((await goalRuns(t.db, { goalId: goal.id })).items[0]).toMatchObject({ id: run.id, status: "blocked", stop: { reason: "exhausted", cause: "its quota had no budget left", remedy: expect.stringContaining("raises the quota") } });

    const early = await err(resumeRun(t.db, { runId: run.id, agentId: worker.id }));
    expect(early?.code).toBe("PRECONDITION_FAILED");
    expect(early?.message).toContain("its quota had no budget left, and the quota is still exhausted");
    expect(early?.message).toContain("an admin raises the quota");
    expect((await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("blocked");

    expect((await runReplay(t.db, { runId: run.id })).run.stop).toMatchObject({ reason: "exhausted", remedy: expect.stringContaining("raises the quota") });
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxSteps: 50 });
    const resumed = await resumeRun(t.db, { runId: run.id, agentId: worker.id });
    expect(resumed).toMatchObject({ id: run.id, status: "running", endReason: null, endedAt: null, summary: null });

    // The replay shows the stop and the resume in the one run's timeline.
    const replay = await runReplay(t.db, { runId: run.id });
    const note = replay.timeline.find((n) => (n.data as { fault?: string }).fault === "resumed");
    expect(note?.summary).toContain("stopped blocked (exhausted) because its quota had no budget left");
    expect(note?.data).toMatchObject({ status: "blocked", endReason: "exhausted", stoppedSummary: "The run is blocked and can resume. quota exhausted." });
    expect(replay.run).toMatchObject({ status: "running", stop: null });
  });

  it("a run stopped for a lost phone resumes with the same phone only", async () => {
    const goal = await seedGoal(t.db);
    const worker = await seedAgent(t.db, { kind: "headless", meta: phone("emulator-5554") });
    const run = await startRun(t.db, { goalId: goal.id, agentId: worker.id });
    await finishRun(t.db, { runId: run.id, agentId: worker.id, status: "failed", endReason: "device_lost", summary: "The run stopped: the connection to the phone was lost." });

    const other = await seedAgent(t.db, { kind: "headless", meta: phone("R58M123") });
    const wrong = await err(resumeRun(t.db, { runId: run.id, agentId: other.id }));
    expect(wrong?.code).toBe("PRECONDITION_FAILED");
    expect(wrong?.message).toContain("drives another phone (serial R58M123, not emulator-5554)");
    expect(wrong?.message).toContain("connect the same phone");

    const back = await seedAgent(t.db, { kind: "headless", meta: phone("emulator-5554") });
    expect(await resumeRun(t.db, { runId: run.id, agentId: back.id })).toMatchObject({ id: run.id, status: "running", agentId: back.id });
  });

  it("a run blocked on a gate resumes once the gate is answered", async () => {
    const goal = await seedGoal(t.db);
    const worker = await seedAgent(t.db);
    const run = await startRun(t.db, { goalId: goal.id, agentId: worker.id });
    const gate = await seedGate(t.db, goal.id);
    await finishRun(t.db, { runId: run.id, agentId: worker.id, status: "blocked", endReason: "gate_waiting", summary: "waiting" });
    const early = await err(resumeRun(t.db, { runId: run.id, agentId: worker.id }));
    expect(early?.message).toContain(`gate ${gate.id} still waits for an answer`);
    const approver = await seedMember(t.db, "approver");
    await resolveGate(t.db, { gateId: gate.id, userId: approver.userId, decision: "answer", answer: "pay", rationale: "the deposit is refundable" });
    expect((await resumeRun(t.db, { runId: run.id, agentId: worker.id })).status).toBe("running");
  });

  it("a truly finished run still refuses, saying why", async () => {
    const goal = await seedGoal(t.db);
    const worker = await seedAgent(t.db);
    for (const [status, endReason, why] of [
      ["completed", "completed", "it is completed (completed): its work is done"],
      ["cancelled", "cancelled", "it was cancelled (cancelled) by its operator"],
      ["failed", "model_failed", "it is failed (model_failed), which is final"],
    ] as const) {
      const run = await startRun(t.db, { goalId: goal.id, agentId: worker.id });
      await finishRun(t.db, { runId: run.id, agentId: worker.id, status, endReason });
      const e = await err(resumeRun(t.db, { runId: run.id, agentId: worker.id }));
      expect(e?.code).toBe("ILLEGAL_TRANSITION");
      expect((await goalRuns(t.db, { goalId: goal.id })).items.find((r) => r.id === run.id)?.stop).toBeNull();
      expect(e?.message).toBe(`Cannot resume run ${run.id}: ${why}. A finished run only reads; start a new run on its goal (--goal-id ${goal.id}).`);
    }
  });
});
