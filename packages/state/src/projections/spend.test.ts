// Spend attributed to goal, todo and run: a turn's steps (turn.result with a run), a model call's tokens and money
// (a spend with a run and no todo), read back on the board (goal, card, run) and in the run view.
import { describe, expect, it } from "vitest";
import { useTestDatabase, rid, seedClaimed, seedGoal } from "../testing/index.ts";
import { recordTurnResult } from "../services/turn/record-turn-result.ts";
import { startTodo } from "../services/todo/start-todo.ts";
import { startRun } from "../services/run/start-run.ts";
import { spendQuota } from "../services/quota/spend-quota.ts";
import { board } from "./board.ts";
import { runDetail } from "./run-detail.ts";

const t = useTestDatabase();

describe("spend per goal, todo and run", () => {
  it("a turn's steps count for its todo and run, a model call's tokens for its run, all of it for the goal", async () => {
    const { goal, todo, agent, claim } = await seedClaimed(t.db);
    const ref = { todoId: todo.id, agentId: agent.id, leaseKey: claim.lease.leaseKey };
    await startTodo(t.db, ref);
    const first = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
    const second = await startRun(t.db, { goalId: goal.id, agentId: agent.id });

    await recordTurnResult(t.db, { ...ref, runId: first.id, idempotencyKey: rid("turn"), kind: "validated_progress", summary: "one step", spend: { key: rid("s"), steps: 1, tokens: 100, microUsd: 40 } });
    await recordTurnResult(t.db, { ...ref, runId: second.id, idempotencyKey: rid("turn"), kind: "validated_progress", summary: "two steps", spend: { key: rid("s"), steps: 2, tokens: 300, microUsd: 90 } });
    // a planner's model call: the run's, no todo's
    await spendQuota(t.db, { key: rid("model"), goalId: goal.id, agentId: agent.id, runId: second.id, tokens: 1_000, microUsd: 500 });
    // spent before runs were attributed (no run): the goal's and the todo's only
    await spendQuota(t.db, { key: rid("old"), goalId: goal.id, agentId: agent.id, todoId: todo.id, steps: 1 });

    const b = await board(t.db, { goalId: goal.id });
    expect(b.spent).toEqual({ steps: 4, tokens: 1_400, microUsd: 630 });
    const card = b.lanes.flatMap((l) => l.cards).find((c) => c.id === todo.id)!;
    expect(card.quotaUsed).toEqual({ steps: 4, tokens: 400, microUsd: 130 });
    expect(Object.fromEntries(b.runs.map((r) => [r.id, r.spent]))).toEqual({
      [first.id]: { steps: 1, tokens: 100, microUsd: 40 },
      [second.id]: { steps: 2, tokens: 1_300, microUsd: 590 },
    });
    expect((await runDetail(t.db, { runId: second.id })).spent).toEqual({ steps: 2, tokens: 1_300, microUsd: 590 });
    const idle = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
    expect((await runDetail(t.db, { runId: idle.id })).spent).toEqual({ steps: 0, tokens: 0, microUsd: 0 });
  });

  it("a spend naming a run of another goal is refused and spends nothing", async () => {
    const { goal, agent } = await seedClaimed(t.db);
    const other = await seedGoal(t.db);
    const run = await startRun(t.db, { goalId: other.id, agentId: agent.id });
    await expect(spendQuota(t.db, { key: rid("s"), goalId: goal.id, agentId: agent.id, runId: run.id, steps: 1 })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await t.db.quotaSpend.count({ where: { goalId: goal.id } })).toBe(0);
  });
});
