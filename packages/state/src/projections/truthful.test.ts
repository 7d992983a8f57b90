// What the board and the attention queue say after work and faults: each card's latest run and its status, the
// goal's runs, and a goal whose todos are all done proposed for completion (completed only by a person's call).
import { describe, expect, it } from "vitest";
import { useTestDatabase, manualClock, seedAgent, seedGoal, seedTodos } from "../testing/index.ts";
import { type StateError } from "../domain/errors.ts";
import { claimNext } from "../services/todo/claim-next.ts";
import { startTodo } from "../services/todo/start-todo.ts";
import { completeTodo } from "../services/todo/complete-todo.ts";
import { appendEvidence } from "../services/evidence/append-evidence.ts";
import { startRun } from "../services/run/start-run.ts";
import { reapRuns } from "../services/run/reap-runs.ts";
import { completeGoal } from "../services/goal/complete-goal.ts";
import { attentionQueue } from "./attention-queue.ts";
import { board } from "./board.ts";

const t = useTestDatabase();

describe("truthful projections", () => {
  it("cards carry their latest run and its status; the board lists the goal's runs; a done goal is proposed, then completed by a person", async () => {
    const clock = manualClock(new Date("2026-11-30T16:00:00Z"));
    const ctx = { clock };
    const goal = await seedGoal(t.db, {}, ctx);
    const [first, second] = await seedTodos(t.db, goal.id, 2, {}, ctx);
    const worker = await seedAgent(t.db, {}, ctx);
    const run = await startRun(t.db, { goalId: goal.id, agentId: worker.id }, ctx);

    const work = async (todoId: string) => {
      const c = await claimNext(t.db, { agentId: worker.id, goalId: goal.id, ttlMs: 60_000 }, ctx);
      if (!c.claimed || c.todo.id !== todoId) throw new Error("expected to claim " + todoId);
      const held = { todoId, agentId: worker.id, leaseKey: c.lease.leaseKey };
      await startTodo(t.db, held, ctx);
      await appendEvidence(t.db, { idempotencyKey: `obs-${todoId}`, kind: "observation", goalId: goal.id, runId: run.id, todoId, agentId: worker.id, leaseKey: c.lease.leaseKey, summary: "seen" }, ctx);
      return held;
    };
    await completeTodo(t.db, await work(first!.id), ctx);
    await work(second!.id);

    // The worker dies: the reaper interrupts its run, and the board says so on the card it was working on.
    clock.advance(10 * 60_000);
    await reapRuns(t.db, { agentStaleMs: 60_000 }, ctx);
    const b = await board(t.db, { goalId: goal.id }, ctx);
    expect(b.runs).toEqual([expect.objectContaining({ id: run.id, status: "interrupted", agentId: worker.id })]);
    const cards = b.lanes.flatMap((l) => l.cards);
    expect(cards.find((c) => c.id === second!.id)?.latestRun).toMatchObject({ id: run.id, status: "interrupted" });
    expect(cards.find((c) => c.id === first!.id)?.latestRun?.id).toBe(run.id);

    // Not proposed while a todo is open; completing it then is refused with what is left.
    const q1 = (await attentionQueue(t.db, { workspaceId: goal.workspaceId, goalId: goal.id }, ctx)).items;
    expect(q1.some((q) => q.kind === "goal_done")).toBe(false);
    const early = await completeGoal(t.db, { goalId: goal.id }, ctx).catch((e: unknown) => e as StateError);
    expect((early as StateError).code).toBe("PRECONDITION_FAILED");
    expect((early as StateError).message).toContain(second!.id);

    const again = await claimNext(t.db, { agentId: worker.id, goalId: goal.id, ttlMs: 60_000 }, ctx);
    if (!again.claimed) throw new Error(again.reason);
    await completeTodo(t.db, { todoId: second!.id, agentId: worker.id, leaseKey: again.lease.leaseKey }, ctx);
    const q2 = (await attentionQueue(t.db, { workspaceId: goal.workspaceId, goalId: goal.id }, ctx)).items;
    expect(q2.find((q) => q.kind === "goal_done")).toMatchObject({ goalId: goal.id, action: { kind: "complete_goal", goalId: goal.id } });
    expect((await t.db.goal.findUniqueOrThrow({ where: { id: goal.id } })).status).toBe("active");

    const completed = await completeGoal(t.db, { goalId: goal.id, reason: "acceptance checked" }, ctx);
    expect(completed.status).toBe("completed");
    const q3 = (await attentionQueue(t.db, { workspaceId: goal.workspaceId, goalId: goal.id }, ctx)).items;
    expect(q3.some((q) => q.kind === "goal_done")).toBe(false);
  });
});
