import { describe, expect, it } from "vitest";
import { useTestDatabase, manualClock, rid, seedAgent, seedGate, seedGoal, seedTodos } from "../testing/index.ts";
import { board } from "./board.ts";
import { attentionQueue } from "./attention-queue.ts";
import { goalHistory } from "./goal-history.ts";
import { claimTodo } from "../services/todo/claim-todo.ts";
import { blockTodo } from "../services/todo/block-todo.ts";
import { startTodo } from "../services/todo/start-todo.ts";
import { appendEvidence } from "../services/evidence/append-evidence.ts";
import { setQuotaPolicy } from "../services/quota/set-quota-policy.ts";
import { spendQuota } from "../services/quota/spend-quota.ts";

const t = useTestDatabase();

describe("projections", () => {
  it("board: lanes by state; cards carry owner, lease time left, open gate, latest evidence and quota used", async () => {
    const clock = manualClock(new Date("2026-11-29T06:00:00Z"));
    const ctx = { clock };
    const goal = await seedGoal(t.db, {}, ctx);
    const [a, b, c] = await seedTodos(t.db, goal.id, 3, {}, ctx);
    const agent = await seedAgent(t.db, { name: "Pixel 8 tab" }, ctx);
    const claim = await claimTodo(t.db, { agentId: agent.id, todoId: a!.id, ttlMs: 60_000 }, ctx);
    if (!claim.claimed) throw new Error("claim failed");
    await startTodo(t.db, { todoId: a!.id, agentId: agent.id, leaseKey: claim.lease.leaseKey }, ctx);
    clock.advance(1_000);
    await appendEvidence(t.db, { goalId: goal.id, todoId: a!.id, kind: "observation", summary: "first", idempotencyKey: rid("e") }, ctx);
    clock.advance(1_000);
    await appendEvidence(t.db, { goalId: goal.id, todoId: a!.id, kind: "action", summary: "tapped Reserve", data: { action: { type: "click", element: "Reserve" } }, idempotencyKey: rid("e") }, ctx);
    await spendQuota(t.db, { key: rid("s"), goalId: goal.id, agentId: agent.id, todoId: a!.id, steps: 2, tokens: 300, microUsd: 40 }, ctx);
    await blockTodo(t.db, { todoId: b!.id, reason: "needs the party size" }, ctx);
    await seedGate(t.db, goal.id, { todoId: b!.id, question: "How many people is the table for?" }, ctx);

    const view = await board(t.db, { goalId: goal.id }, ctx);
    expect(view.lanes.map((l) => l.state)).toEqual(["pending", "claimed", "running", "validating", "done", "failed", "blocked", "superseded"]);
    const lane = (s: string) => view.lanes.find((l) => l.state === s)!.cards;
    expect(lane("pending").map((x) => x.id)).toEqual([c!.id]);
    const card = lane("running")[0]!;
    expect(card).toMatchObject({
      id: a!.id,
      title: a!.title,
      owner: { agentId: agent.id, name: "Pixel 8 tab" },
      leaseMsLeft: 58_000,
      latestEvidence: { summary: "tapped Reserve", kind: "action" },
      quotaUsed: { steps: 2, tokens: 300, microUsd: 40 },
      openGate: null,
    });
    expect(card.status).toMatchObject({ state: "running", holder: { ownerId: agent.id } });
    expect(lane("blocked")[0]!.openGate?.question).toBe("How many people is the table for?");
  });

  it("attention queue: open gates oldest first with who may answer, then expired leases, blocked todos, exhausted quota", async () => {
    const clock = manualClock(new Date("2026-11-29T05:00:00Z"));
    const ctx = { clock };
    const goal = await seedGoal(t.db, {}, ctx);
    const [a, b] = await seedTodos(t.db, goal.id, 2, {}, ctx);
    const agent = await seedAgent(t.db, {}, ctx);
    const g1 = await seedGate(t.db, goal.id, { question: "Is a 19:30 slot acceptable instead?" }, ctx);
    clock.advance(10);
    const g2 = await seedGate(t.db, goal.id, { question: "Use the saved card ending 4242?" }, ctx);
    await claimTodo(t.db, { agentId: agent.id, todoId: a!.id, ttlMs: 1_000 }, ctx);
    await blockTodo(t.db, { todoId: b!.id, reason: "app asks for a phone number" }, ctx);
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxSteps: 1 }, ctx);
    await spendQuota(t.db, { key: rid("s"), goalId: goal.id, agentId: agent.id, steps: 1 }, ctx);
    clock.advance(5_000);

    const q = (await attentionQueue(t.db, { workspaceId: goal.workspaceId, goalId: goal.id }, ctx)).items;
    expect(q.map((x) => x.kind)).toEqual(["gate_waiting", "gate_waiting", "lease_expired", "todo_blocked", "quota_exhausted"]);
    expect(q[0]).toMatchObject({ gateId: g1.id, who: { kind: "members", roles: ["approver", "admin"] } });
    expect(q[1]).toMatchObject({ gateId: g2.id });
    expect(q[2]).toMatchObject({ todoId: a!.id, previousOwner: agent.id, who: { kind: "agents" } });
    expect(q[3]).toMatchObject({ todoId: b!.id, reason: "app asks for a phone number" });
  });

  it("goal history pages events after an id", async () => {
    const goal = await seedGoal(t.db);
    await seedTodos(t.db, goal.id, 1);
    for (let k = 0; k < 5; k++) await appendEvidence(t.db, { goalId: goal.id, kind: "observation", summary: `obs ${k}`, idempotencyKey: rid("e") });
    const first = await goalHistory(t.db, { goalId: goal.id, limit: 3 });
    expect(first.items.map((e) => e.operator)).toEqual(["goal.create", "todo.add", "evidence.append"]);
    expect(first.nextCursor).toBe(first.items[2]!.id);
    const rest = await goalHistory(t.db, { goalId: goal.id, cursor: first.nextCursor!, limit: 10 });
    expect(rest.items).toHaveLength(4);
    expect(rest.nextCursor).toBeNull();
    expect(BigInt(rest.items[0]!.id)).toBeGreaterThan(BigInt(first.items[2]!.id));
  });
});
