// Every todo transition, written out here by hand from docs/concepts.md (not read from the product's table, so a
// wrong entry there fails a row): the pure table, then each move through its operator on real Postgres, and every
// illegal move rejected with ILLEGAL_TRANSITION naming the current state and the legal next steps.
import { describe, expect, it } from "vitest";
import { useTestDatabase, manualClock, seedAgent, seedGoal, seedTodos } from "../../testing/index.ts";
import { TODO_EVENTS, TODO_STATES, nextTodoState, type TodoEvent, type TodoState } from "../../domain/todo-transitions.ts";
import { StateError } from "../../domain/errors.ts";
import type { Agent, Todo } from "../../generated/prisma/client.ts";
import { claimTodo } from "./claim-todo.ts";
import { blockTodo } from "./block-todo.ts";
import { completeTodo } from "./complete-todo.ts";
import { failTodo } from "./fail-todo.ts";
import { reopenTodo } from "./reopen-todo.ts";
import { retryTodo } from "./retry-todo.ts";
import { startTodo } from "./start-todo.ts";
import { validateTodo } from "./validate-todo.ts";
import { writebackTodo } from "./writeback-todo.ts";
import { releaseLease } from "../lease/release-lease.ts";
import { replanTodos } from "./replan-todos.ts";

const t = useTestDatabase();

const clock = manualClock(new Date("2026-11-29T12:00:00Z"));
const ctx = { clock };

interface Fixture {
  todo: Todo;
  agent: Agent;
  other: Agent;
  leaseKey: string;
}

/** Brings a fresh todo to `state` through the operators themselves. */
async function driveTo(state: TodoState): Promise<Fixture> {
  const goal = await seedGoal(t.db, {}, ctx);
  const [todo] = await seedTodos(t.db, goal.id, 1, {}, ctx);
  const agent = await seedAgent(t.db, {}, ctx);
  const other = await seedAgent(t.db, {}, ctx);
  const ref = () => ({ todoId: todo!.id, agentId: agent.id, leaseKey: leaseKey });
  let leaseKey = "";
  if (["claimed", "running", "validating", "done", "failed"].includes(state)) {
    const c = await claimTodo(t.db, { agentId: agent.id, todoId: todo!.id }, ctx);
    if (!c.claimed) throw new Error(c.reason);
    leaseKey = c.lease.leaseKey;
  }
  if (state === "running" || state === "validating") await startTodo(t.db, ref(), ctx);
  if (state === "validating") await validateTodo(t.db, ref(), ctx);
  if (state === "done") await completeTodo(t.db, ref(), ctx);
  if (state === "failed") await failTodo(t.db, { ...ref(), reason: "the app refused the date" }, ctx);
  if (state === "blocked") await blockTodo(t.db, { todoId: todo!.id, reason: "needs a decision" }, ctx);
  if (state === "superseded") await replanTodos(t.db, { goalId: goal.id, idempotencyKey: `${todo!.id}:drop`, reason: "not needed", ops: [{ op: "supersede", todoId: todo!.id, reason: "not needed" }] }, ctx);
  const now = await t.db.todo.findUniqueOrThrow({ where: { id: todo!.id } });
  expect(now.state).toBe(state);
  return { todo: now, agent, other, leaseKey };
}

/** The operator that performs `event` (reclaim is claim on an expired lease; covered in the lease tests). */
async function perform(event: TodoEvent, f: Fixture): Promise<unknown> {
  const ref = { todoId: f.todo.id, agentId: f.agent.id, leaseKey: f.leaseKey || "none" };
  switch (event) {
    case "reclaim":
      throw new Error("reclaim is a claim after expiry; see the reclaim tests");
    case "claim":
      return claimTodo(t.db, { agentId: f.other.id, todoId: f.todo.id }, ctx);
    case "start":
      return startTodo(t.db, ref, ctx);
    case "validate":
      return validateTodo(t.db, ref, ctx);
    case "writeback":
      return writebackTodo(t.db, { ...ref, values: { table: "7" } }, ctx);
    case "complete":
      return completeTodo(t.db, ref, ctx);
    case "retry":
      return retryTodo(t.db, { ...ref, result: "validation_failed" }, ctx);
    case "fail":
      return failTodo(t.db, { ...ref, reason: "cannot be done" }, ctx);
    case "block":
      return blockTodo(t.db, { ...ref, reason: "a person must decide" }, ctx);
    case "release":
      return releaseLease(t.db, ref, ctx);
    case "reopen":
      return reopenTodo(t.db, { todoId: f.todo.id }, ctx);
    case "supersede":
      return replanTodos(t.db, { goalId: f.todo.goalId, idempotencyKey: `${f.todo.id}:replace`, reason: "replaced", ops: [{ op: "supersede", todoId: f.todo.id, reason: "replaced" }] }, ctx);
  }
}

// The whole table, one literal row per (state, event): the state it leads to, or null when it is illegal.
const TABLE: [TodoState, TodoEvent, TodoState | null][] = [
  ["pending", "claim", "claimed"],
  ["pending", "reclaim", null],
  ["pending", "start", null],
  ["pending", "validate", null],
  ["pending", "writeback", null],
  ["pending", "complete", null],
  ["pending", "retry", null],
  ["pending", "fail", null],
  ["pending", "block", "blocked"],
  ["pending", "release", null],
  ["pending", "reopen", null],
  ["pending", "supersede", "superseded"],

  ["claimed", "claim", null],
  ["claimed", "reclaim", "claimed"],
  ["claimed", "start", "running"],
  ["claimed", "validate", null],
  ["claimed", "writeback", null],
  ["claimed", "complete", "done"],
  ["claimed", "retry", null],
  ["claimed", "fail", "failed"],
  ["claimed", "block", "blocked"],
  ["claimed", "release", "pending"],
  ["claimed", "reopen", null],
  ["claimed", "supersede", null],

  ["running", "claim", null],
  ["running", "reclaim", "claimed"],
  ["running", "start", null],
  ["running", "validate", "validating"],
  ["running", "writeback", "running"],
  ["running", "complete", "done"],
  ["running", "retry", "running"],
  ["running", "fail", "failed"],
  ["running", "block", "blocked"],
  ["running", "release", "pending"],
  ["running", "reopen", null],
  ["running", "supersede", null],

  ["validating", "claim", null],
  ["validating", "reclaim", "claimed"],
  ["validating", "start", null],
  ["validating", "validate", null],
  ["validating", "writeback", "running"],
  ["validating", "complete", "done"],
  ["validating", "retry", "running"],
  ["validating", "fail", "failed"],
  ["validating", "block", "blocked"],
  ["validating", "release", "pending"],
  ["validating", "reopen", null],
  ["validating", "supersede", null],

  ["blocked", "claim", null],
  ["blocked", "reclaim", null],
  ["blocked", "start", null],
  ["blocked", "validate", null],
  ["blocked", "writeback", null],
  ["blocked", "complete", null],
  ["blocked", "retry", null],
  ["blocked", "fail", "failed"],
  ["blocked", "block", null],
  ["blocked", "release", null],
  ["blocked", "reopen", "pending"],
  ["blocked", "supersede", "superseded"],

  ["failed", "claim", null],
  ["failed", "reclaim", null],
  ["failed", "start", null],
  ["failed", "validate", null],
  ["failed", "writeback", null],
  ["failed", "complete", null],
  ["failed", "retry", null],
  ["failed", "fail", null],
  ["failed", "block", null],
  ["failed", "release", null],
  ["failed", "reopen", "pending"],
  ["failed", "supersede", "superseded"],

  ...(["done", "superseded"] as const).flatMap((s) =>
    (["claim", "reclaim", "start", "validate", "writeback", "complete", "retry", "fail", "block", "release", "reopen", "supersede"] as const).map(
      (e): [TodoState, TodoEvent, null] => [s, e, null],
    ),
  ),
];

const HELD = ["claimed", "running", "validating"];

describe("todo transitions (table)", () => {
  it("the rows cover every state and event once", () => {
    expect(TABLE).toHaveLength(8 * 12);
    expect(new Set(TABLE.map(([s, e]) => `${s}/${e}`)).size).toBe(8 * 12);
    expect([...TODO_STATES].sort()).toEqual(["blocked", "claimed", "done", "failed", "pending", "running", "superseded", "validating"]);
    expect([...TODO_EVENTS].sort()).toEqual(["block", "claim", "complete", "fail", "reclaim", "release", "reopen", "retry", "start", "supersede", "validate", "writeback"]);
  });

  for (const [from, event, to] of TABLE) {
    it(`nextTodoState(${from}, ${event}) → ${to ?? "ILLEGAL_TRANSITION"}`, () => {
      if (to) expect(nextTodoState(from, event, "t")).toBe(to);
      else expect(() => nextTodoState(from, event, "t")).toThrowError(expect.objectContaining({ code: "ILLEGAL_TRANSITION" }));
    });
  }

  it("names the current state and the legal next steps when a move is illegal", () => {
    expect(() => nextTodoState("done", "start", "t1")).toThrowError(/Cannot start t1: it is done\. done is final/);
    const e = (() => {
      try {
        nextTodoState("pending", "complete", "t2");
      } catch (x) {
        return x as StateError;
      }
    })();
    expect(e).toBeInstanceOf(StateError);
    expect(e?.code).toBe("ILLEGAL_TRANSITION");
    expect(e?.message).toContain("From pending it may only: claim, block, supersede.");
    expect(e?.details.legal).toEqual(["claim", "block", "supersede"]);
  });
});

describe("todo transitions (operators on real Postgres)", () => {
  for (const [from, event, to] of TABLE) {
    if (event === "reclaim") continue; // claim on an expired lease: below
    const heldClaim = event === "claim" && HELD.includes(from);
    const name = heldClaim ? `${from} --claim--> CONFLICT (held by another, lease unexpired)` : to ? `${from} --${event}--> ${to}` : `${from} --${event}--> ILLEGAL_TRANSITION`;
    it(name, async () => {
      const f = await driveTo(from);
      const eventsBefore = await t.db.event.count({ where: { subjectId: f.todo.id } });
      if (to && !heldClaim) {
        await perform(event, f);
        const after = await t.db.todo.findUniqueOrThrow({ where: { id: f.todo.id } });
        expect(after.state).toBe(to);
        expect(after.version).toBe(f.todo.version + 1);
        if (event === "retry") expect(after.attempts).toBe(f.todo.attempts + 1);
        if (!HELD.includes(to)) expect(await t.db.lease.count({ where: { todoId: f.todo.id, status: "active" } })).toBe(0);
      } else {
        const err = await perform(event, f).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(StateError);
        expect((err as StateError).code).toBe(heldClaim ? "CONFLICT" : "ILLEGAL_TRANSITION");
        if (!heldClaim) expect((err as StateError).message).toContain(`it is ${from}`);
        if (heldClaim) expect((err as StateError).details.currentHolder).toBe(f.agent.id);
        const after = await t.db.todo.findUniqueOrThrow({ where: { id: f.todo.id } });
        expect(after.state).toBe(from);
        expect(await t.db.event.count({ where: { subjectId: f.todo.id } })).toBe(eventsBefore);
      }
    });
  }
});

describe("reclaim: an expired holder's todo goes to the first eligible peer that claims it", () => {
  for (const from of HELD) {
    it(`${from} --reclaim--> claimed`, async () => {
      const f = await driveTo(from as TodoState);
      clock.advance(60_001);
      const r = await claimTodo(t.db, { agentId: f.other.id, todoId: f.todo.id }, ctx);
      expect(r.claimed && r.reclaimedFrom).toBe(f.agent.id);
      const after = await t.db.todo.findUniqueOrThrow({ where: { id: f.todo.id } });
      expect(after.state).toBe("claimed");
      const ev = await t.db.event.findFirstOrThrow({ where: { subjectId: f.todo.id }, orderBy: { id: "desc" } });
      expect(ev.payload).toMatchObject({ from, to: "claimed", reclaimedFrom: f.agent.id });
    });
  }
});
