// Recovery without waiting: a restarted worker takes its own lease over at once, another worker waits for a live
// holder, and the reaper interrupts runs whose worker died (and expires gates past their expiry).
import { describe, expect, it } from "vitest";
import { createTestDatabase, useTestDatabase, manualClock, seedAgent, seedGate, seedGoal, seedTodos } from "../../testing/index.ts";
import { type StateError } from "../../domain/errors.ts";
import { claimNext } from "../todo/claim-next.ts";
import { claimTodo } from "../todo/claim-todo.ts";
import { startTodo } from "../todo/start-todo.ts";
import { heartbeatAgent } from "../agent/heartbeat-agent.ts";
import { appendEvidence } from "../evidence/append-evidence.ts";
import { attentionQueue } from "../../projections/attention-queue.ts";
import { expireGates } from "../gate/expire-gates.ts";
import { finishRun } from "./finish-run.ts";
import { reapRuns } from "./reap-runs.ts";
import { resumeRun } from "./resume-run.ts";
import { saveCheckpoint } from "./save-checkpoint.ts";
import { startRun } from "./start-run.ts";

const t = useTestDatabase();

const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);

describe("a restarted worker takes its own lease over at once", () => {
  it("claimNext by the same agent: a new epoch at once, the old life's key fenced; another agent still waits", async () => {
    const clock = manualClock(new Date("2026-11-30T10:00:00Z"));
    const ctx = { clock };
    const goal = await seedGoal(t.db, {}, ctx);
    const [todo] = await seedTodos(t.db, goal.id, 1, {}, ctx);
    const [worker, peer] = [await seedAgent(t.db, {}, ctx), await seedAgent(t.db, {}, ctx)];
    const first = await claimNext(t.db, { agentId: worker.id, goalId: goal.id, ttlMs: 120_000 }, ctx);
    if (!first.claimed) throw new Error(first.reason);
    await startTodo(t.db, { todoId: todo!.id, agentId: worker.id, leaseKey: first.lease.leaseKey }, ctx);
    clock.advance(1_000);

    const rival = await claimNext(t.db, { agentId: peer.id, goalId: goal.id }, ctx);
    expect(rival.claimed).toBe(false);
    if (!rival.claimed) expect(rival.reason).toContain(`held by ${worker.id}`);

    const again = await claimNext(t.db, { agentId: worker.id, goalId: goal.id, ttlMs: 120_000 }, ctx);
    if (!again.claimed) throw new Error(again.reason);
    expect(again.todo.id).toBe(todo!.id);
    expect(again.lease.epoch).toBe(first.lease.epoch + 1);
    expect(again.reclaimedFrom).toBe(worker.id);
    const late = await err(appendEvidence(t.db, { idempotencyKey: "late-1", kind: "observation", goalId: goal.id, todoId: todo!.id, agentId: worker.id, leaseKey: first.lease.leaseKey, summary: "late write of the killed worker" }, ctx));
    expect(late?.code).toBe("CONFLICT");
    const leases = await t.db.lease.findMany({ where: { todoId: todo!.id }, orderBy: { epoch: "asc" } });
    expect(leases.map((l) => l.status)).toEqual(["expired", "active"]);
  });

  it("claim of a named todo by its own holder: a new epoch; by another agent: CONFLICT naming the holder", async () => {
    const goal = await seedGoal(t.db);
    const [todo] = await seedTodos(t.db, goal.id, 1);
    const [worker, peer] = [await seedAgent(t.db), await seedAgent(t.db)];
    const first = await claimTodo(t.db, { agentId: worker.id, todoId: todo!.id });
    const again = await claimTodo(t.db, { agentId: worker.id, todoId: todo!.id });
    expect(first.claimed && again.claimed && again.lease.epoch === first.lease.epoch + 1).toBe(true);
    const e = await err(claimTodo(t.db, { agentId: peer.id, todoId: todo!.id }));
    expect(e?.code).toBe("CONFLICT");
    expect(e?.details.currentHolder).toBe(worker.id);
  });
});

describe("resuming a run", () => {
  it("another worker waits while the run's worker holds a lease: CONFLICT naming it and until when, the run untouched", async () => {
    const clock = manualClock(new Date("2026-11-30T11:00:00Z"));
    const ctx = { clock };
    const goal = await seedGoal(t.db, {}, ctx);
    const [todo] = await seedTodos(t.db, goal.id, 1, {}, ctx);
    const [worker, peer] = [await seedAgent(t.db, {}, ctx), await seedAgent(t.db, {}, ctx)];
    const run = await startRun(t.db, { goalId: goal.id, agentId: worker.id }, ctx);
    const claim = await claimNext(t.db, { agentId: worker.id, goalId: goal.id, ttlMs: 60_000 }, ctx);
    if (!claim.claimed) throw new Error(claim.reason);

    const early = await err(resumeRun(t.db, { runId: run.id, agentId: peer.id }, ctx));
    expect(early?.code).toBe("CONFLICT");
    expect(early?.details).toMatchObject({ currentHolder: worker.id, todoId: todo!.id, expiresAt: "2026-11-30T11:01:00.000Z" });
    expect(early?.message).toContain("2026-11-30T11:01:00.000Z");
    expect((await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("running");

    // The worker itself resumes at once (a restart with the same identity).
    const own = await resumeRun(t.db, { runId: run.id, agentId: worker.id }, ctx);
    expect(own.agentId).toBe(worker.id);

    clock.advance(60_000);
    const later = await resumeRun(t.db, { runId: run.id, agentId: peer.id }, ctx);
    expect(later.agentId).toBe(peer.id);
    const late = await err(saveCheckpoint(t.db, { runId: run.id, agentId: worker.id, checkpoint: { late: true } }, ctx));
    expect(late?.code).toBe("CONFLICT");
  });
});

describe("the reaper", () => {
  it("interrupts a run whose worker is silent and holds no lease; a live or holding worker's run stays running", async () => {
    const own = await createTestDatabase();
    try {
      const clock = manualClock(new Date("2026-11-30T12:00:00Z"));
      const ctx = { clock };
      const goal = await seedGoal(own.db, {}, ctx);
      await seedTodos(own.db, goal.id, 1, {}, ctx);
      const [dead, live, holder] = [await seedAgent(own.db, {}, ctx), await seedAgent(own.db, {}, ctx), await seedAgent(own.db, {}, ctx)];
      const deadRun = await startRun(own.db, { goalId: goal.id, agentId: dead.id }, ctx);
      const liveRun = await startRun(own.db, { goalId: goal.id, agentId: live.id }, ctx);
      const holderRun = await startRun(own.db, { goalId: goal.id, agentId: holder.id }, ctx);
      const claim = await claimNext(own.db, { agentId: holder.id, goalId: goal.id, ttlMs: 600_000 }, ctx);
      expect(claim.claimed).toBe(true);

      clock.advance(59_000);
      expect(await reapRuns(own.db, { agentStaleMs: 60_000 }, ctx)).toEqual([]);
      clock.advance(2_000);
      await heartbeatAgent(own.db, { agentId: live.id }, ctx);
      const reaped = await reapRuns(own.db, { agentStaleMs: 60_000 }, ctx);
      expect(reaped.map((r) => r.runId)).toEqual([deadRun.id]);
      const statuses = await own.db.run.findMany({ where: { goalId: goal.id }, orderBy: { startedAt: "asc" } });
      expect(Object.fromEntries(statuses.map((r) => [r.id, r.status]))).toEqual({ [deadRun.id]: "interrupted", [liveRun.id]: "running", [holderRun.id]: "running" });
      expect(statuses.find((r) => r.id === deadRun.id)?.summary).toContain(`--run-id ${deadRun.id}`);
      expect(await reapRuns(own.db, { agentStaleMs: 60_000 }, ctx)).toEqual([]);

      // The attention queue shows it with the one action that resumes it.
      const queue = (await attentionQueue(own.db, { workspaceId: goal.workspaceId, goalId: goal.id }, ctx)).items;
      const item = queue.find((q) => q.kind === "run_interrupted");
      expect(item).toMatchObject({ kind: "run_interrupted", runId: deadRun.id, goalId: goal.id, agentId: dead.id, action: { kind: "resume_run", runId: deadRun.id } });

      // Any eligible worker resumes an interrupted run; it is running again under the new worker.
      const resumed = await resumeRun(own.db, { runId: deadRun.id, agentId: live.id }, ctx);
      expect(resumed).toMatchObject({ status: "running", agentId: live.id });
      const events = await own.db.event.findMany({ where: { subjectId: deadRun.id }, orderBy: { id: "asc" } });
      expect(events.map((e) => e.operator)).toEqual(["run.start", "run.interrupt", "run.resume"]);
    } finally {
      await own.drop();
    }
  });

  it("a person ends an interrupted run; a worker must resume it first", async () => {
    const clock = manualClock(new Date("2026-11-30T13:00:00Z"));
    const ctx = { clock };
    const goal = await seedGoal(t.db, {}, ctx);
    const worker = await seedAgent(t.db, {}, ctx);
    const run = await startRun(t.db, { goalId: goal.id, agentId: worker.id }, ctx);
    clock.advance(10 * 60_000);
    const reaped = await reapRuns(t.db, { agentStaleMs: 60_000 }, ctx);
    expect(reaped.map((r) => r.runId)).toContain(run.id);
    const byWorker = await err(finishRun(t.db, { runId: run.id, agentId: worker.id, status: "failed" }, ctx));
    expect(byWorker?.code).toBe("ILLEGAL_TRANSITION");
    const ended = await finishRun(t.db, { runId: run.id, status: "cancelled", summary: "not needed any more" }, ctx);
    expect(ended.status).toBe("cancelled");
  });

  it("expires open gates past their expiry, and only those", async () => {
    const clock = manualClock(new Date("2026-11-30T14:00:00Z"));
    const ctx = { clock };
    const goal = await seedGoal(t.db, {}, ctx);
    const soon = await seedGate(t.db, goal.id, { ttlMs: 60_000 }, ctx);
    const later = await seedGate(t.db, goal.id, { ttlMs: 3_600_000 }, ctx);
    const never = await seedGate(t.db, goal.id, {}, ctx);
    expect((await expireGates(t.db, {}, ctx)).gateIds).toEqual([]);
    clock.advance(2 * 60_000);
    expect((await expireGates(t.db, {}, ctx)).gateIds).toEqual([soon.id]);
    const rows = await t.db.gate.findMany({ where: { id: { in: [soon.id, later.id, never.id] } } });
    expect(Object.fromEntries(rows.map((g) => [g.id, g.status]))).toEqual({ [soon.id]: "expired", [later.id]: "open", [never.id]: "open" });
  });
});
