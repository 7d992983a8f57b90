import { describe, expect, it } from "vitest";
import { useTestDatabase, manualClock, rid, seedAgent, seedClaimed, seedGate, seedGoal, seedTodos } from "../../testing/index.ts";
import { TURN_RESULT_KINDS, TURN_RESULT_TRANSITION, type TURN_ROUTES, decideTurnRoute, type TurnResultKind, type TurnSnapshot } from "../../domain/turn.ts";
import type { TodoEvent, TodoState } from "../../domain/todo-transitions.ts";
import { type StateError } from "../../domain/errors.ts";
import { recordTurnResult } from "./record-turn-result.ts";
import { routeTurn } from "./route-turn.ts";
import { startTodo } from "../todo/start-todo.ts";
import { setQuotaPolicy } from "../quota/set-quota-policy.ts";
import { claimTodo } from "../todo/claim-todo.ts";

const t = useTestDatabase();

async function running(ctx?: { clock: ReturnType<typeof manualClock> }) {
  const s = await seedClaimed(t.db, ctx);
  const ref = { todoId: s.todo.id, agentId: s.agent.id, leaseKey: s.claim.lease.leaseKey };
  await startTodo(t.db, ref, ctx);
  return { ...s, ref };
}

// Written out by hand from docs/concepts.md: each result kind, the one event it causes, the state a running todo
// reaches. Not read back from TURN_RESULT_TRANSITION, so a wrong entry there fails its row.
const RESULT_ROWS: [TurnResultKind, TodoEvent, TodoState][] = [
  ["validated_progress", "writeback", "running"],
  ["validated_completion", "complete", "done"],
  ["repair_required", "retry", "running"],
  ["replan_required", "block", "blocked"],
  ["user_action_required", "block", "blocked"],
  ["wait", "release", "pending"],
  ["host_failure", "release", "pending"],
  ["validation_failed", "retry", "running"],
  ["writeback_failed", "retry", "running"],
  ["quota_spend_failed", "block", "blocked"],
];

describe("turn result → exactly one todo transition (table)", () => {
  it("has a row for every result kind", () => {
    expect(RESULT_ROWS.map(([k]) => k).sort()).toEqual([...TURN_RESULT_KINDS].sort());
  });

  for (const [kind, event, to] of RESULT_ROWS) {
    it(`${kind}: running --${event}--> ${to}`, async () => {
      expect(TURN_RESULT_TRANSITION[kind]).toBe(event);
      const { todo, ref } = await running();
      const r = await recordTurnResult(t.db, { ...ref, idempotencyKey: rid("turn"), kind, summary: `turn ended ${kind}`, values: { seen: kind } });
      expect(r.kind).toBe(kind);
      expect(r.duplicate).toBe(false);
      expect(r.transitions).toEqual([{ kind, from: "running", to }]);
      const after = await t.db.todo.findUniqueOrThrow({ where: { id: todo.id } });
      expect(after.state).toBe(to);
      expect(after.lastResult).toBe(kind);
      expect(after.attempts).toBe(event === "retry" ? 1 : 0);
      // Only validated results write values back.
      expect(after.values).toEqual(kind.startsWith("validated_") ? { seen: kind } : {});
      expect(await t.db.event.count({ where: { subjectId: todo.id, operator: "turn.result" } })).toBe(1);
      expect(await t.db.turn.count({ where: { todoId: todo.id } })).toBe(1);
    });
  }
});

describe("turn result idempotency", () => {
  it("a repeated key returns the first outcome and changes nothing, also after the lease ended", async () => {
    const { todo, ref } = await running();
    const key = rid("turn");
    const first = await recordTurnResult(t.db, { ...ref, idempotencyKey: key, kind: "validated_completion", summary: "table booked", values: { table: "7" } });
    expect(first).toMatchObject({ kind: "validated_completion", duplicate: false, todo: { state: "done" } });
    const eventsBefore = await t.db.event.count({ where: { subjectId: todo.id } });
    // The todo is done and the lease released; a retry of the same call is a duplicate, not a CONFLICT.
    const again = await recordTurnResult(t.db, { ...ref, idempotencyKey: key, kind: "validated_completion", summary: "table booked", values: { table: "7" } });
    expect(again).toMatchObject({ kind: "validated_completion", duplicate: true, todo: { id: todo.id, state: "done" } });
    expect(again.transitions).toEqual([{ kind: "validated_completion", from: "running", to: "done" }]);
    expect(await t.db.event.count({ where: { subjectId: todo.id } })).toBe(eventsBefore);
    expect(await t.db.turn.count({ where: { todoId: todo.id } })).toBe(1);
  });

  it("two concurrent calls with one key: one applies, the other is its duplicate", async () => {
    const { todo, ref } = await running();
    const key = rid("turn");
    const call = () => recordTurnResult(t.db, { ...ref, idempotencyKey: key, kind: "repair_required", summary: "tapped the wrong row" });
    const [a, b] = await Promise.all([call(), call()]);
    expect([a.duplicate, b.duplicate].sort()).toEqual([false, true]);
    const after = await t.db.todo.findUniqueOrThrow({ where: { id: todo.id } });
    expect(after.attempts).toBe(1);
    expect(await t.db.turn.count({ where: { idempotencyKey: key } })).toBe(1);
  });

  it("a key used for another todo is a CONFLICT", async () => {
    const one = await running();
    const two = await running();
    const key = rid("turn");
    await recordTurnResult(t.db, { ...one.ref, idempotencyKey: key, kind: "wait", summary: "the app is loading" });
    const e = await recordTurnResult(t.db, { ...two.ref, idempotencyKey: key, kind: "wait", summary: "the app is loading" }).catch((x: StateError) => x);
    expect((e as StateError).code).toBe("CONFLICT");
    expect((e as StateError).message).toContain(one.todo.id);
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: two.todo.id } })).state).toBe("running");
  });

  it("host_failure releases the todo to pending: any peer may claim it next", async () => {
    const { todo, ref } = await running();
    const r = await recordTurnResult(t.db, { ...ref, idempotencyKey: rid("turn"), kind: "host_failure", summary: "adb disconnected" });
    expect(r.todo.state).toBe("pending");
    expect(await t.db.lease.count({ where: { todoId: todo.id, status: "active" } })).toBe(0);
  });
});

describe("spend after validated writeback", () => {
  it("spends once, after the writeback, idempotently on the key", async () => {
    const { todo, goal, ref } = await running();
    const key = rid("turn");
    const a = await recordTurnResult(t.db, { ...ref, idempotencyKey: rid("turn"), kind: "validated_progress", summary: "opened booking form", spend: { key, steps: 1, tokens: 900, microUsd: 1200 } });
    expect(a.spend).toMatchObject({ key, steps: 1, tokens: 900, microUsd: 1200, todoId: todo.id });
    const events = await t.db.event.findMany({ where: { goalId: goal.id, operator: { in: ["turn.result", "quota.spend"] } }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.operator)).toEqual(["turn.result", "quota.spend"]);
    await recordTurnResult(t.db, { ...ref, idempotencyKey: rid("turn"), kind: "validated_progress", summary: "again", spend: { key, steps: 1 } });
    expect(await t.db.quotaSpend.count({ where: { key } })).toBe(1);
  });

  it("a non-validated result spends nothing", async () => {
    const { ref, goal } = await running();
    const r = await recordTurnResult(t.db, { ...ref, idempotencyKey: rid("turn"), kind: "host_failure", summary: "adb disconnected", spend: { key: rid("k"), steps: 1 } });
    expect(r.spend).toBeNull();
    expect(await t.db.quotaSpend.count({ where: { goalId: goal.id } })).toBe(0);
  });

  it("a failed spend yields quota_spend_failed: the writeback stands, then its own transition applies", async () => {
    const { todo, goal, ref } = await running();
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 60_000, maxTokens: 100 });
    const turnKey = rid("turn");
    const r = await recordTurnResult(t.db, { ...ref, idempotencyKey: turnKey, kind: "validated_progress", summary: "filled the form", values: { name: "Ada" }, spend: { key: rid("k"), tokens: 500 } });
    expect(r.kind).toBe("quota_spend_failed");
    expect(r.spendError?.code).toBe("QUOTA_EXCEEDED");
    expect(r.transitions).toEqual([
      { kind: "validated_progress", from: "running", to: "running" },
      { kind: "quota_spend_failed", from: "running", to: "blocked" },
    ]);
    const after = await t.db.todo.findUniqueOrThrow({ where: { id: todo.id } });
    expect(after).toMatchObject({ state: "blocked", lastResult: "quota_spend_failed", values: { name: "Ada" } });
    expect(await t.db.quotaSpend.count({ where: { goalId: goal.id } })).toBe(0);
    // The Turn records the kind as it ended; a repeat returns it.
    const again = await recordTurnResult(t.db, { ...ref, idempotencyKey: turnKey, kind: "validated_progress", summary: "filled the form", spend: { key: rid("k"), tokens: 500 } });
    expect(again).toMatchObject({ kind: "quota_spend_failed", duplicate: true });
    expect(again.transitions).toEqual(r.transitions);
  });

  it("a stale holder cannot record a result", async () => {
    const clock = manualClock(new Date("2026-11-29T07:00:00Z"));
    const { ref, todo } = await running({ clock });
    clock.advance(60_001);
    const e = await recordTurnResult(t.db, { ...ref, idempotencyKey: rid("turn"), kind: "validated_completion", summary: "done" }, { clock }).catch((x: StateError) => x);
    expect((e as StateError).code).toBe("CONFLICT");
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: todo.id } })).state).toBe("running");
  });
});

describe("turn route", () => {
  const base: TurnSnapshot = {
    goalStatus: "active",
    todo: { state: "running", attempts: 0, lastResult: null, inputs: [], values: {} },
    doneValues: {},
    lease: { ownerId: "a1", expired: false },
    agentId: "a1",
    openGates: 0,
    quota: { decision: "run" },
    maxAttempts: 5,
  };
  type Over = Omit<Partial<TurnSnapshot>, "todo"> & { todo?: Partial<TurnSnapshot["todo"]> };
  const cases: [string, Over, (typeof TURN_ROUTES)[number]][] = [
    ["held and clear", {}, "ready_for_host"],
    ["last turn needs repair", { todo: { lastResult: "validation_failed" } }, "repair_required"],
    ["out of attempts", { todo: { attempts: 5 } }, "replan_required"],
    ["failed todo", { todo: { state: "failed" } }, "replan_required"],
    ["open gate", { openGates: 1 }, "user_action_required"],
    ["held by someone else", { lease: { ownerId: "a2", expired: false } }, "wait"],
    ["throttled", { quota: { decision: "skip", reason: "throttled" } }, "wait"],
    ["exhausted", { quota: { decision: "skip", reason: "exhausted" } }, "blocked"],
    ["paused goal", { goalStatus: "paused" }, "blocked"],
    ["blocked todo", { todo: { state: "blocked" } }, "blocked"],
    ["missing declared input", { todo: { inputs: ["date"] } }, "contract_error"],
    ["held state without a lease", { lease: null }, "contract_error"],
    ["cancelled goal", { goalStatus: "cancelled" }, "blocked"],
    ["completed goal", { goalStatus: "completed" }, "blocked"],
    ["done todo", { todo: { state: "done" } }, "blocked"],
    ["superseded todo", { todo: { state: "superseded" } }, "blocked"],
    ["pending todo", { todo: { state: "pending" }, lease: null }, "wait"],
    ["own lease expired", { lease: { ownerId: "a1", expired: true } }, "contract_error"],
    ["last result being validated", { todo: { state: "validating" } }, "wait"],
    ["writeback failed last time", { todo: { lastResult: "writeback_failed" } }, "repair_required"],
    ["declared input present", { todo: { inputs: ["date"], values: { date: "Friday" } } }, "ready_for_host"],
    ["declared input a done todo of the goal gave", { todo: { inputs: ["date"] }, doneValues: { date: "Friday" } }, "ready_for_host"],
    ["one input given, one missing", { todo: { inputs: ["date", "time"] }, doneValues: { date: "Friday" } }, "contract_error"],
    ["gate beats a blocked todo", { openGates: 1, todo: { state: "blocked" } }, "user_action_required"],
    ["paused goal beats an open gate", { goalStatus: "paused", openGates: 2 }, "blocked"],
  ];
  for (const [name, over, route] of cases) {
    it(`${name} → ${route}`, () => {
      expect(decideTurnRoute({ ...base, ...over, todo: { ...base.todo, ...over.todo } }).route).toBe(route);
    });
  }

  it("names the inputs no done todo gave", () => {
    expect(decideTurnRoute({ ...base, todo: { ...base.todo, inputs: ["date", "time", "party"], values: { party: "4" } }, doneValues: { date: "Friday" } })).toEqual({
      route: "contract_error",
      reason: "inputs no done todo of the goal gave: time; replan so an earlier todo outputs them",
    });
  });

  it("finds a todo's inputs in the values of its goal's done todos", async () => {
    const goal = await seedGoal(t.db);
    const [pick] = await seedTodos(t.db, goal.id, 1, { title: "Pick a date", outputs: ["date"] });
    const [book] = await seedTodos(t.db, goal.id, 1, { title: "Book the table", inputs: ["date"] });
    const a = await seedAgent(t.db);
    const first = await claimTodo(t.db, { agentId: a.id, todoId: pick!.id });
    if (!first.claimed) throw new Error(first.reason);
    const ref = { todoId: pick!.id, agentId: a.id, leaseKey: first.lease.leaseKey };
    await startTodo(t.db, ref);
    // Before the first todo is done the second's input comes from nowhere.
    const second = await claimTodo(t.db, { agentId: a.id, todoId: book!.id });
    if (!second.claimed) throw new Error(second.reason);
    expect(await routeTurn(t.db, { todoId: book!.id, agentId: a.id })).toEqual({ route: "contract_error", reason: "inputs no done todo of the goal gave: date; replan so an earlier todo outputs them" });
    await recordTurnResult(t.db, { ...ref, idempotencyKey: rid("turn"), kind: "validated_completion", summary: "picked Friday", values: { date: "Friday" } });
    expect(await routeTurn(t.db, { todoId: book!.id, agentId: a.id })).toEqual({ route: "ready_for_host", reason: "held, unblocked, within quota" });
    // A done todo of another goal gives nothing.
    const other = await seedGoal(t.db);
    const [lonely] = await seedTodos(t.db, other.id, 1, { inputs: ["date"] });
    const c = await claimTodo(t.db, { agentId: a.id, todoId: lonely!.id });
    if (!c.claimed) throw new Error(c.reason);
    expect((await routeTurn(t.db, { todoId: lonely!.id, agentId: a.id })).route).toBe("contract_error");
  });

  it("is computed from database state", async () => {
    const { ref, goal, todo } = await running();
    expect((await routeTurn(t.db, { todoId: todo.id, agentId: ref.agentId })).route).toBe("ready_for_host");
    const other = await seedAgent(t.db);
    expect((await routeTurn(t.db, { todoId: todo.id, agentId: other.id })).route).toBe("wait");
    await seedGate(t.db, goal.id, { todoId: todo.id });
    expect(await routeTurn(t.db, { todoId: todo.id, agentId: ref.agentId })).toMatchObject({ route: "user_action_required" });

    const g2 = await seedGoal(t.db);
    const [needsDate] = await seedTodos(t.db, g2.id, 1, { inputs: ["date"] });
    const a = await seedAgent(t.db);
    await claimTodo(t.db, { agentId: a.id, todoId: needsDate!.id });
    expect((await routeTurn(t.db, { todoId: needsDate!.id, agentId: a.id })).route).toBe("contract_error");
  });
});
