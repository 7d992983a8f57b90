import { describe, expect, it } from "vitest";
import { manualClock, seedAgent, seedGoal, seedTodos, seedWorkspace, useTestDatabase } from "../../testing/index.ts";
import { statementLog } from "../../testing/statement-log.ts";
import type { StateError } from "../../domain/errors.ts";
import { board } from "../../projections/board.ts";
import { claimNext } from "../todo/claim-next.ts";
import { claimTodo } from "../todo/claim-todo.ts";
import { completeTodo } from "../todo/complete-todo.ts";
import { startTodo } from "../todo/start-todo.ts";
import { setWipLimits, wipLimits } from "./wip-limits.ts";

const t = useTestDatabase({ poolSize: 20 });
const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);
const NONE = { claimed: null, running: null, validating: null, perAgent: null };

/** A workspace with `goals` goals of one todo each and `agents` agents, all its own (counts do not mix with other tests). */
async function team(goals: number, agents: number) {
  const { workspace } = await seedWorkspace(t.db, "WIP team");
  const gs = [];
  for (let k = 0; k < goals; k++) {
    const goal = await seedGoal(t.db, { workspaceId: workspace.id, title: `Goal ${k + 1}` });
    const [todo] = await seedTodos(t.db, goal.id, 1);
    gs.push({ goal, todo: todo! });
  }
  const as = await Promise.all(Array.from({ length: agents }, (_, k) => seedAgent(t.db, { workspaceId: workspace.id, name: `Phone ${k + 1}` })));
  return { ws: workspace.id, goals: gs, agents: as };
}

describe("WIP limits: the claim", () => {
  it("refuses a claim past the per-phone limit with wip_limit, and allows it again when one finishes", async () => {
    const a = await team(2, 1);
    const phone = a.agents[0]!;
    await setWipLimits(t.db, { workspaceId: a.ws, ...NONE, perAgent: 1 }, { actor: "user_admin" });
    const first = await claimNext(t.db, { agentId: phone.id });
    expect(first.claimed && first.todo.id).toBe(a.goals[0]!.todo.id);
    const refused = await claimNext(t.db, { agentId: phone.id });
    expect(refused).toMatchObject({ claimed: false, refusal: "wip_limit" });
    expect(!refused.claimed && refused.reason).toContain("one phone may hold 1 at once");
    expect(!refused.claimed && refused.reason).toContain("admin can raise it");
    // A named claim says the same, typed.
    const named = await err(claimTodo(t.db, { agentId: phone.id, todoId: a.goals[1]!.todo.id }));
    expect(named).toMatchObject({ code: "PRECONDITION_FAILED", details: { refusal: "wip_limit" } });
    if (!first.claimed) throw new Error("unreachable");
    await completeTodo(t.db, { todoId: first.todo.id, agentId: phone.id, leaseKey: first.lease.leaseKey });
    const again = await claimNext(t.db, { agentId: phone.id });
    expect(again.claimed && again.todo.id).toBe(a.goals[1]!.todo.id);
  });

  it("refuses a claim while a held lane of the workspace is at its limit; a finished todo frees the lane", async () => {
    const a = await team(2, 2);
    const [p1, p2] = a.agents as [(typeof a.agents)[0], (typeof a.agents)[0]];
    await setWipLimits(t.db, { workspaceId: a.ws, ...NONE, running: 1 }, { actor: "user_admin" });
    const held = await claimNext(t.db, { agentId: p1.id, goalId: a.goals[0]!.goal.id });
    if (!held.claimed) throw new Error(held.reason);
    // Claimed is not running yet: the second phone may still claim, and then start is never refused.
    await startTodo(t.db, { todoId: held.todo.id, agentId: p1.id, leaseKey: held.lease.leaseKey });
    const refused = await claimNext(t.db, { agentId: p2.id, goalId: a.goals[1]!.goal.id });
    expect(refused).toMatchObject({ claimed: false, refusal: "wip_limit" });
    expect(!refused.claimed && refused.reason).toContain("1 todo is running in the workspace and its limit is 1");
    expect((await err(claimTodo(t.db, { agentId: p2.id, todoId: a.goals[1]!.todo.id })))?.details).toMatchObject({ refusal: "wip_limit" });
    await completeTodo(t.db, { todoId: held.todo.id, agentId: p1.id, leaseKey: held.lease.leaseKey });
    expect((await claimNext(t.db, { agentId: p2.id, goalId: a.goals[1]!.goal.id })).claimed).toBe(true);
  });

  it("a reclaim of an expired todo is not refused for the todo's own place in the lane", async () => {
    const a = await team(1, 2);
    const [p1, p2] = a.agents as [(typeof a.agents)[0], (typeof a.agents)[0]];
    await setWipLimits(t.db, { workspaceId: a.ws, ...NONE, running: 1, perAgent: 1 }, { actor: "user_admin" });
    const held = await claimNext(t.db, { agentId: p1.id, ttlMs: 1_000 });
    if (!held.claimed) throw new Error(held.reason);
    await startTodo(t.db, { todoId: held.todo.id, agentId: p1.id, leaseKey: held.lease.leaseKey });
    const later = { clock: manualClock(new Date(Date.now() + 60_000)) };
    const reclaim = await claimNext(t.db, { agentId: p2.id }, later);
    expect(reclaim.claimed && reclaim.reclaimedFrom).toBe(p1.id);
  });

  it("two claims racing at limit − 1: exactly one wins, in every round, by claimNext or a named claim", async () => {
    for (let round = 0; round < 6; round++) {
      const a = await team(3, 3);
      await setWipLimits(t.db, { workspaceId: a.ws, ...NONE, claimed: 2 }, { actor: "user_admin" });
      expect((await claimNext(t.db, { agentId: a.agents[0]!.id, goalId: a.goals[0]!.goal.id })).claimed).toBe(true);
      const second = round % 2 === 0
        ? claimNext(t.db, { agentId: a.agents[2]!.id, goalId: a.goals[2]!.goal.id })
        : claimTodo(t.db, { agentId: a.agents[2]!.id, todoId: a.goals[2]!.todo.id }).catch((e: StateError) => ({ claimed: false as const, reason: e.message }));
      const results = await Promise.all([claimNext(t.db, { agentId: a.agents[1]!.id, goalId: a.goals[1]!.goal.id }), second]);
      expect(results.filter((r) => r.claimed)).toHaveLength(1);
      const claimed = await t.db.todo.count({ where: { state: "claimed", goal: { workspaceId: a.ws } } });
      expect(claimed).toBe(2);
    }
  });

  it("without limits the claim is one statement; with a limit that statement claims nothing and the claim takes its turn on the limits row", async () => {
    const a = await team(2, 1);
    const log = statementLog(t.url);
    try {
      log.clear();
      expect((await claimNext(log.db, { agentId: a.agents[0]!.id, goalId: a.goals[0]!.goal.id })).claimed).toBe(true);
      const sent = log.statements.filter((s) => !s.includes("pg_notify"));
      expect(sent).toHaveLength(1);
      expect(sent[0]).toContain(`"WipLimits"`);
      expect(sent[0]).not.toContain("wip AS");
      await setWipLimits(t.db, { workspaceId: a.ws, ...NONE, claimed: 5 }, { actor: "user_admin" });
      log.clear();
      expect((await claimNext(log.db, { agentId: a.agents[0]!.id, goalId: a.goals[1]!.goal.id })).claimed).toBe(true);
      const limited = log.statements.filter((s) => !s.includes("pg_notify"));
      expect(limited.map((s) => s.trim().split(/\s+/)[0])).toEqual(["WITH", "SELECT", "BEGIN", "SELECT", "WITH", "COMMIT"]);
      expect(limited[0]).not.toContain("wip AS");
      expect(limited[3]).toContain("FOR UPDATE OF w");
      expect(limited[4]).toContain("wip AS");
      expect(await t.db.lease.count({ where: { todo: { goalId: a.goals[1]!.goal.id } } })).toBe(1);
    } finally {
      await log.db.$disconnect();
    }
  });
});

describe("WIP limits: setting and the board", () => {
  it("saves the limits with their event, refuses a bad value naming the field, and another workspace has none", async () => {
    const a = await team(1, 0);
    expect(await wipLimits(t.db, { workspaceId: a.ws })).toMatchObject({ ...NONE, updatedBy: null });
    const saved = await setWipLimits(t.db, { workspaceId: a.ws, claimed: null, running: 4, validating: 2, perAgent: 1 }, { actor: "user_admin" });
    expect(saved).toMatchObject({ running: 4, validating: 2, perAgent: 1, updatedBy: "user_admin" });
    expect(await t.db.event.findFirst({ where: { operator: "wipLimits.set", workspaceId: a.ws } })).toMatchObject({ actor: "user_admin", payload: { running: 4, perAgent: 1 } });
    const bad = await err(setWipLimits(t.db, { workspaceId: a.ws, ...NONE, running: 0 }));
    expect(bad?.code).toBe("INVALID_INPUT");
    expect(bad?.message).toContain("running");
    const b = await team(1, 0);
    expect((await wipLimits(t.db, { workspaceId: b.ws })).running).toBeNull();
  });

  it("the board shows each held lane's count and limit across the workspace and each phone's; a lowered limit reads over and moves no card", async () => {
    const a = await team(3, 2);
    const [p1, p2] = a.agents as [(typeof a.agents)[0], (typeof a.agents)[0]];
    await setWipLimits(t.db, { workspaceId: a.ws, ...NONE, claimed: 3, perAgent: 2 }, { actor: "user_admin" });
    expect((await claimNext(t.db, { agentId: p1.id, goalId: a.goals[0]!.goal.id })).claimed).toBe(true);
    expect((await claimNext(t.db, { agentId: p1.id, goalId: a.goals[1]!.goal.id })).claimed).toBe(true);
    expect((await claimNext(t.db, { agentId: p2.id, goalId: a.goals[2]!.goal.id })).claimed).toBe(true);
    const before = await board(t.db, { goalId: a.goals[0]!.goal.id });
    expect(before.lanes.find((l) => l.state === "claimed")).toMatchObject({ wip: { count: 3, limit: 3, over: false, atLimit: true } });
    expect(before.lanes.find((l) => l.state === "running")).toMatchObject({ wip: { count: 0, limit: null, atLimit: false } });
    expect(before.lanes.find((l) => l.state === "pending")!.wip).toBeNull();
    expect(before.wip.agents).toEqual([
      { agentId: p1.id, name: "Phone 1", count: 2, limit: 2, atLimit: true },
      { agentId: p2.id, name: "Phone 2", count: 1, limit: 2, atLimit: false },
    ]);
    await setWipLimits(t.db, { workspaceId: a.ws, ...NONE, claimed: 1 }, { actor: "user_admin" });
    const after = await board(t.db, { goalId: a.goals[0]!.goal.id });
    expect(after.lanes.find((l) => l.state === "claimed")).toMatchObject({ wip: { count: 3, limit: 1, over: true } });
    expect(after.lanes.find((l) => l.state === "claimed")!.cards.map((c) => c.id)).toEqual([a.goals[0]!.todo.id]);
    expect(await t.db.todo.count({ where: { state: "claimed", goal: { workspaceId: a.ws } } })).toBe(3);
  });
});
