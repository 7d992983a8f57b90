import { describe, expect, it } from "vitest";
import { createTestDatabase, useTestDatabase, manualClock, rid, seedAgent, seedGate, seedGoal, seedMember, seedTodos } from "../../testing/index.ts";
import { poolOf } from "../../db/client.ts";
import { type StateError } from "../../domain/errors.ts";
import { claimNext } from "./claim-next.ts";
import { claimTodo } from "./claim-todo.ts";
import { completeTodo } from "./complete-todo.ts";
import { blockTodo } from "./block-todo.ts";
import { pauseGoal } from "../goal/pause-goal.ts";
import { resumeGoal } from "../goal/resume-goal.ts";
import { resolveGate } from "../gate/resolve-gate.ts";
import { replanTodos } from "./replan-todos.ts";

const t = useTestDatabase({ poolSize: 40 });

const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);

describe("claimNext: strict order", () => {
  it("32 concurrent claimers on one goal: one todo at a time, in position order, each claimed once", async () => {
    const goal = await seedGoal(t.db);
    const todos = await seedTodos(t.db, goal.id, 12);
    const agents = await Promise.all(Array.from({ length: 32 }, () => seedAgent(t.db)));
    const order: string[] = [];
    for (let round = 0; round < todos.length; round++) {
      const results = await Promise.all(agents.map((a) => claimNext(t.db, { agentId: a.id, goalId: goal.id })));
      const won = results.flatMap((r, k) => (r.claimed ? [{ r, agent: agents[k]! }] : []));
      expect(won).toHaveLength(1);
      const { r, agent } = won[0]!;
      order.push(r.todo.id);
      await completeTodo(t.db, { todoId: r.todo.id, agentId: agent.id, leaseKey: r.lease.leaseKey });
    }
    expect(order).toEqual(todos.map((x) => x.id));
    expect(await t.db.lease.count({ where: { todo: { goalId: goal.id } } })).toBe(12);
    const last = await claimNext(t.db, { agentId: agents[0]!.id, goalId: goal.id });
    expect(last.claimed).toBe(false);
    if (!last.claimed) expect(last.reason).toContain("done or superseded");
  });

  it("32 concurrent claimers over 8 goals without goalId: every todo once, each goal in its own order", async () => {
    const own = await createTestDatabase({ poolSize: 40 });
    try {
      const goals = [];
      for (let g = 0; g < 8; g++) goals.push({ goal: await seedGoal(own.db), todos: [] as string[] });
      for (const g of goals) g.todos = (await seedTodos(own.db, g.goal.id, 4)).map((x) => x.id);
      const agents = await Promise.all(Array.from({ length: 32 }, () => seedAgent(own.db)));
      const claimed: { goalId: string; todoId: string }[] = [];
      const remaining = async () => own.db.todo.count({ where: { state: { not: "done" } } });
      await Promise.all(
        agents.map(async (agent) => {
          for (;;) {
            const r = await claimNext(own.db, { agentId: agent.id });
            if (!r.claimed) {
              if ((await remaining()) === 0) return;
              continue; // every head is held by a peer right now; ask again
            }
            claimed.push({ goalId: r.todo.goalId, todoId: r.todo.id });
            await completeTodo(own.db, { todoId: r.todo.id, agentId: agent.id, leaseKey: r.lease.leaseKey });
          }
        }),
      );
      expect(claimed).toHaveLength(32);
      expect(new Set(claimed.map((c) => c.todoId)).size).toBe(32);
      for (const g of goals) expect(claimed.filter((c) => c.goalId === g.goal.id).map((c) => c.todoId)).toEqual(g.todos);
      // 32 concurrent completions counted down each goal's live todos exactly: every goal left the claim order.
      expect((await own.db.claimOrder.findMany({ where: { goalId: { in: goals.map((g) => g.goal.id) } } })).map((c) => c.liveTodos)).toEqual(goals.map(() => 0));
    } finally {
      await own.drop();
    }
  });

  it("a held first todo stops its goal: the next todo waits, with the holder named", async () => {
    const goal = await seedGoal(t.db);
    const [a, b] = await seedTodos(t.db, goal.id, 2);
    const [one, two] = [await seedAgent(t.db), await seedAgent(t.db)];
    const first = await claimNext(t.db, { agentId: one.id, goalId: goal.id });
    expect(first.claimed && first.todo.id).toBe(a!.id);
    const second = await claimNext(t.db, { agentId: two.id, goalId: goal.id });
    expect(second).toEqual({ claimed: false, reason: expect.stringContaining(`held by ${one.id}`) });
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: b!.id } })).state).toBe("pending");
  });

  it("a blocked first todo stops its goal until it is reopened or replanned; done todos are passed over", async () => {
    const goal = await seedGoal(t.db);
    const [a, b] = await seedTodos(t.db, goal.id, 2);
    const agent = await seedAgent(t.db);
    await blockTodo(t.db, { todoId: a!.id, reason: "the app needs an update" });
    const r = await claimNext(t.db, { agentId: agent.id, goalId: goal.id });
    expect(r).toEqual({ claimed: false, reason: expect.stringContaining("blocked: the app needs an update") });
    const g2 = await seedGoal(t.db);
    const [c, d] = await seedTodos(t.db, g2.id, 2);
    const held = await claimTodo(t.db, { agentId: agent.id, todoId: c!.id });
    if (!held.claimed) throw new Error(held.reason);
    await completeTodo(t.db, { todoId: c!.id, agentId: agent.id, leaseKey: held.lease.leaseKey });
    const next = await claimNext(t.db, { agentId: agent.id, goalId: g2.id });
    expect(next.claimed && next.todo.id).toBe(d!.id);
    expect(b).toBeDefined();
  });
});

describe("claimNext: eligibility", () => {
  it("reclaims a first todo whose lease expired, with a new epoch", async () => {
    const clock = manualClock(new Date("2026-11-29T10:00:00Z"));
    const ctx = { clock };
    const goal = await seedGoal(t.db, {}, ctx);
    const [a] = await seedTodos(t.db, goal.id, 2, {}, ctx);
    const [old, peer] = [await seedAgent(t.db, {}, ctx), await seedAgent(t.db, {}, ctx)];
    const first = await claimNext(t.db, { agentId: old.id, goalId: goal.id, ttlMs: 30_000 }, ctx);
    if (!first.claimed) throw new Error(first.reason);
    expect(first.reclaimedFrom).toBeNull();
    clock.advance(29_999);
    expect((await claimNext(t.db, { agentId: peer.id, goalId: goal.id }, ctx)).claimed).toBe(false);
    clock.advance(2);
    const re = await claimNext(t.db, { agentId: peer.id, goalId: goal.id }, ctx);
    if (!re.claimed) throw new Error(re.reason);
    expect(re.todo.id).toBe(a!.id);
    expect(re.reclaimedFrom).toBe(old.id);
    expect(re.lease.epoch).toBe(first.lease.epoch + 1);
    expect(re.lease.expiresAt.toISOString()).toBe("2026-11-29T10:01:30.001Z");
    const leases = await t.db.lease.findMany({ where: { todoId: a!.id }, orderBy: { epoch: "asc" } });
    expect(leases.map((l) => [l.ownerId, l.status])).toEqual([
      [old.id, "expired"],
      [peer.id, "active"],
    ]);
    const late = await err(completeTodo(t.db, { todoId: a!.id, agentId: old.id, leaseKey: first.lease.leaseKey }, ctx));
    expect(late?.code).toBe("CONFLICT");
    const ev = await t.db.event.findFirstOrThrow({ where: { subjectId: a!.id }, orderBy: { id: "desc" } });
    expect(ev.payload).toMatchObject({ from: "claimed", to: "claimed", reclaimedFrom: old.id, epoch: 2 });
  });

  it("needs every capability the first todo requires, and does not skip to a later todo", async () => {
    const goal = await seedGoal(t.db);
    const [needsCamera] = await seedTodos(t.db, goal.id, 1, { requiredCapabilities: ["android", "camera"] });
    await seedTodos(t.db, goal.id, 1, { requiredCapabilities: ["android"] });
    const basic = await seedAgent(t.db, { capabilities: ["android"] });
    const r = await claimNext(t.db, { agentId: basic.id, goalId: goal.id });
    expect(r).toEqual({ claimed: false, reason: expect.stringContaining("camera") });
    const full = await seedAgent(t.db, { capabilities: ["android", "camera", "sms"] });
    const r2 = await claimNext(t.db, { agentId: full.id, goalId: goal.id });
    expect(r2.claimed && r2.todo.id).toBe(needsCamera!.id);
  });

  it("a paused goal yields nothing until it is resumed", async () => {
    const goal = await seedGoal(t.db);
    const [a] = await seedTodos(t.db, goal.id, 1);
    const agent = await seedAgent(t.db);
    await pauseGoal(t.db, { goalId: goal.id });
    expect(await claimNext(t.db, { agentId: agent.id, goalId: goal.id })).toEqual({ claimed: false, reason: expect.stringContaining("paused") });
    await resumeGoal(t.db, { goalId: goal.id });
    const r = await claimNext(t.db, { agentId: agent.id, goalId: goal.id });
    expect(r.claimed && r.todo.id).toBe(a!.id);
  });

  it("an open gate on the goal or on the first todo yields nothing; one on a later todo does not", async () => {
    const goal = await seedGoal(t.db);
    const [a, b] = await seedTodos(t.db, goal.id, 2);
    const agent = await seedAgent(t.db);
    const owner = await seedMember(t.db, "approver");
    const later = await seedGate(t.db, goal.id, { todoId: b!.id, question: "Which evening suits Sam?" });
    const onGoal = await seedGate(t.db, goal.id, { question: "Is the budget 80 EUR?" });
    expect(await claimNext(t.db, { agentId: agent.id, goalId: goal.id })).toEqual({ claimed: false, reason: expect.stringContaining(onGoal.id) });
    await resolveGate(t.db, { gateId: onGoal.id, userId: owner.userId, decision: "approve", rationale: "yes" });
    const onFirst = await seedGate(t.db, goal.id, { todoId: a!.id, question: "Which booking app should we use?" });
    expect(await claimNext(t.db, { agentId: agent.id, goalId: goal.id })).toEqual({ claimed: false, reason: expect.stringContaining(onFirst.id) });
    await resolveGate(t.db, { gateId: onFirst.id, userId: owner.userId, decision: "approve", rationale: "the usual one" });
    const r = await claimNext(t.db, { agentId: agent.id, goalId: goal.id });
    expect(r.claimed && r.todo.id).toBe(a!.id);
    expect(later.status).toBe("open");
  });

  it("without goalId the oldest active goal goes first; a paused one is passed over", async () => {
    const own = await createTestDatabase();
    try {
      const clock = manualClock(new Date("2026-11-29T08:00:00Z"));
      const older = await seedGoal(own.db, {}, { clock });
      clock.advance(1_000);
      const newer = await seedGoal(own.db, {}, { clock });
      const [n1] = await seedTodos(own.db, newer.id, 1);
      const [o1] = await seedTodos(own.db, older.id, 1);
      const agent = await seedAgent(own.db);
      const first = await claimNext(own.db, { agentId: agent.id });
      expect(first.claimed && first.todo.id).toBe(o1!.id);
      const g3 = await seedGoal(own.db, {}, { clock: manualClock(new Date("2026-11-29T07:00:00Z")) });
      await seedTodos(own.db, g3.id, 1);
      await pauseGoal(own.db, { goalId: g3.id });
      const second = await claimNext(own.db, { agentId: agent.id });
      expect(second.claimed && second.todo.id).toBe(n1!.id);
      expect(await claimNext(own.db, { agentId: agent.id })).toEqual({ claimed: false, reason: expect.stringContaining("No active goal") });
    } finally {
      await own.drop();
    }
  });

  it("walks only goals with a live todo: a finished goal leaves the claim order, and a todo added to it brings it back first", async () => {
    const own = await createTestDatabase();
    try {
      const clock = manualClock(new Date("2026-11-29T08:00:00Z"));
      const older = await seedGoal(own.db, {}, { clock });
      clock.advance(1_000);
      const newer = await seedGoal(own.db, {}, { clock });
      const [o1, o2] = await seedTodos(own.db, older.id, 2);
      const [n1, n2] = await seedTodos(own.db, newer.id, 2);
      const agent = await seedAgent(own.db);
      const live = async (goalId: string) => (await own.db.claimOrder.findUniqueOrThrow({ where: { goalId } })).liveTodos;
      expect([await live(older.id), await live(newer.id)]).toEqual([2, 2]);
      for (const todo of [o1, o2]) {
        const r = await claimNext(own.db, { agentId: agent.id });
        expect(r.claimed && r.todo.id).toBe(todo!.id);
        if (r.claimed) await completeTodo(own.db, { todoId: r.todo.id, agentId: agent.id, leaseKey: r.lease.leaseKey });
      }
      expect(await live(older.id)).toBe(0); // finished, still active: no claim looks at it any more
      const fromNewer = await claimNext(own.db, { agentId: agent.id });
      expect(fromNewer.claimed && fromNewer.todo.id).toBe(n1!.id);
      const [o3] = await seedTodos(own.db, older.id, 1);
      expect(await live(older.id)).toBe(1);
      const back = await claimNext(own.db, { agentId: agent.id });
      expect(back.claimed && back.todo.id).toBe(o3!.id); // the older goal is first again
      await replanTodos(own.db, { goalId: newer.id, idempotencyKey: rid("replan"), reason: "the second step is not needed", ops: [{ op: "supersede", todoId: n2!.id, reason: "not needed" }] });
      expect(await live(newer.id)).toBe(1);
      // The count is the goal's live todos, however they got there.
      for (const goalId of [older.id, newer.id]) expect(await live(goalId)).toBe(await own.db.todo.count({ where: { goalId, state: { notIn: ["done", "superseded"] } } }));
    } finally {
      await own.drop();
    }
  });
});

describe("claimNext: one call", () => {
  it("decides and claims in ONE statement: there is no second call for a crash to fall between", async () => {
    const goal = await seedGoal(t.db);
    const [a] = await seedTodos(t.db, goal.id, 2);
    const agent = await seedAgent(t.db);
    const pool = poolOf(t.db)!;
    const statements: string[] = [];
    const query = pool.query.bind(pool);
    pool.query = ((...args: Parameters<typeof pool.query>) => {
      const first = args[0] as unknown;
      statements.push(typeof first === "string" ? first : String((first as { text?: unknown }).text));
      return query(...args);
    }) as typeof pool.query;
    let r;
    try {
      r = await claimNext(t.db, { agentId: agent.id, goalId: goal.id });
    } finally {
      pool.query = query as typeof pool.query;
    }
    expect(r.claimed && r.todo.id).toBe(a!.id);
    // The decision, the check that the workspace has no WIP limit, and the claim are one statement (and, after
    // commit, the notify-only announcement of its Event).
    const sent = statements.filter((s) => !s.includes("pg_notify"));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain(`"WipLimits"`);
    expect(sent[0]).toContain(`INSERT INTO "Lease"`);
  });

  it("a crash before commit leaves no trace: no lease, no event, the todo still pending", async () => {
    const goal = await seedGoal(t.db);
    const [a] = await seedTodos(t.db, goal.id, 1);
    const agent = await seedAgent(t.db);
    const crash = await err(
      t.db.$transaction(async (tx) => {
        const r = await claimNext(tx, { agentId: agent.id, goalId: goal.id });
        expect(r.claimed).toBe(true);
        throw new Error("the process died");
      }),
    );
    expect(crash).toBeInstanceOf(Error);
    expect(await t.db.lease.count({ where: { todoId: a!.id } })).toBe(0);
    expect(await t.db.event.count({ where: { subjectId: a!.id, operator: "todo.claim" } })).toBe(0);
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: a!.id } })).state).toBe("pending");
    const r = await claimNext(t.db, { agentId: agent.id, goalId: goal.id });
    expect(r.claimed && r.lease.epoch).toBe(1);
  });

  it("a retried call with the same idempotency key returns the same lease, never a second", async () => {
    const goal = await seedGoal(t.db);
    await seedTodos(t.db, goal.id, 3);
    const agent = await seedAgent(t.db);
    const key = rid("claim");
    const [a, b] = await Promise.all([claimNext(t.db, { agentId: agent.id, goalId: goal.id, idempotencyKey: key }), claimNext(t.db, { agentId: agent.id, goalId: goal.id, idempotencyKey: key })]);
    expect(a.claimed && b.claimed).toBe(true);
    if (a.claimed && b.claimed) {
      expect(a.lease.id).toBe(b.lease.id);
      expect(a.lease.leaseKey).toBe(key);
    }
    const again = await claimNext(t.db, { agentId: agent.id, goalId: goal.id, idempotencyKey: key });
    expect(again.claimed && again.duplicate).toBe(true);
    expect(await t.db.lease.count({ where: { todo: { goalId: goal.id } } })).toBe(1);
    const other = await seedAgent(t.db);
    expect((await err(claimNext(t.db, { agentId: other.id, goalId: goal.id, idempotencyKey: key })))?.code).toBe("CONFLICT");
  });

  it("names an unregistered agent or an unknown goal, and rejects bad input by field", async () => {
    const goal = await seedGoal(t.db);
    await seedTodos(t.db, goal.id, 1);
    const agent = await seedAgent(t.db);
    expect((await err(claimNext(t.db, { agentId: "agent_nobody", goalId: goal.id })))?.code).toBe("NOT_FOUND");
    expect((await err(claimNext(t.db, { agentId: agent.id, goalId: "goal_nowhere" })))?.code).toBe("NOT_FOUND");
    const bad = await err(claimNext(t.db, { agentId: agent.id, ttlMs: -5 }));
    expect(bad?.code).toBe("INVALID_INPUT");
    expect(bad?.message).toContain("ttlMs");
  });
});
