// Every legal todo transition through its operator, and every illegal one rejected with ILLEGAL_TRANSITION
// naming the current state and the legal next steps.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, manualClock, seedAgent, seedGoal, seedTodos, type TestDatabase } from "../../testing/index.ts";
import { TODO_STATES, TODO_TRANSITIONS, legalTodoEvents, nextTodoState, type TodoEvent, type TodoState } from "../../domain/todo-transitions.ts";
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

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

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
  if (state === "superseded") await replanTodos(t.db, { goalId: goal.id, plan: [], supersede: [{ todoId: todo!.id, reason: "not needed" }] }, ctx);
  const now = await t.db.todo.findUniqueOrThrow({ where: { id: todo!.id } });
  expect(now.state).toBe(state);
  return { todo: now, agent, other, leaseKey };
}

/** The operator that performs `event` (reclaim is claim on an expired lease; covered in the lease tests). */
async function perform(event: Exclude<TodoEvent, "reclaim">, f: Fixture): Promise<unknown> {
  const ref = { todoId: f.todo.id, agentId: f.agent.id, leaseKey: f.leaseKey || "none" };
  switch (event) {
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
      return replanTodos(t.db, { goalId: f.todo.goalId, plan: [], supersede: [{ todoId: f.todo.id, reason: "replaced" }] }, ctx);
  }
}

const EVENTS = ["claim", "start", "validate", "writeback", "complete", "retry", "fail", "block", "release", "reopen", "supersede"] as const;
const HELD = ["claimed", "running", "validating"];

describe("todo transitions (table)", () => {
  it("names the current state and the legal next steps when a move is illegal", () => {
    expect(() => nextTodoState("done", "start", "t1")).toThrowError(/Cannot start t1: it is done\. done is final/);
    try {
      nextTodoState("pending", "complete", "t2");
    } catch (e) {
      expect(e).toBeInstanceOf(StateError);
      expect((e as StateError).code).toBe("ILLEGAL_TRANSITION");
      expect((e as StateError).message).toContain("From pending it may only: claim, block, supersede.");
      expect((e as StateError).details.legal).toEqual(legalTodoEvents("pending"));
    }
  });

  it("has an entry for every state and only known states as targets", () => {
    for (const s of TODO_STATES) for (const to of Object.values(TODO_TRANSITIONS[s])) expect(TODO_STATES).toContain(to);
  });
});

describe("todo transitions (operators on real Postgres)", () => {
  for (const from of TODO_STATES) {
    for (const event of EVENTS) {
      const to = TODO_TRANSITIONS[from][event];
      const heldClaim = event === "claim" && HELD.includes(from);
      const name = heldClaim ? `${from} --claim--> CONFLICT (held by another, lease unexpired)` : to ? `${from} --${event}--> ${to}` : `${from} --${event}--> ILLEGAL_TRANSITION`;
      it(name, async () => {
        const f = await driveTo(from);
        const eventsBefore = await t.db.event.count({ where: { subjectId: f.todo.id } });
        if (to && !heldClaim) {
          await perform(event, f);
          const after = await t.db.todo.findUniqueOrThrow({ where: { id: f.todo.id } });
          expect(after.state).toBe(to);
          expect(after.version).toBe(f.todo.version + (event === "supersede" ? 1 : 1));
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
  }
});

describe("reclaim: an expired holder's todo goes to the first eligible peer that claims it", () => {
  for (const from of HELD) {
    it(`${from} --reclaim--> ${TODO_TRANSITIONS[from as TodoState].reclaim}`, async () => {
      const f = await driveTo(from as TodoState);
      clock.advance(60_001);
      const r = await claimTodo(t.db, { agentId: f.other.id, todoId: f.todo.id }, ctx);
      expect(r.claimed && r.reclaimedFrom).toBe(f.agent.id);
      const after = await t.db.todo.findUniqueOrThrow({ where: { id: f.todo.id } });
      expect(after.state).toBe(TODO_TRANSITIONS[from as TodoState].reclaim);
      const ev = await t.db.event.findFirstOrThrow({ where: { subjectId: f.todo.id }, orderBy: { id: "desc" } });
      expect(ev.payload).toMatchObject({ from, to: "claimed", reclaimedFrom: f.agent.id });
    });
  }
});
