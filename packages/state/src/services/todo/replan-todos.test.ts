import { describe, expect, it } from "vitest";
import { useTestDatabase, rid, seedAgent, seedGoal, seedTodos } from "../../testing/index.ts";
import { type StateError } from "../../domain/errors.ts";
import { replanTodos, type ReplanTodosInput } from "./replan-todos.ts";
import { claimTodo } from "./claim-todo.ts";
import { completeTodo } from "./complete-todo.ts";

const t = useTestDatabase();

const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);
const replan = (goalId: string, ops: ReplanTodosInput["ops"], idempotencyKey = rid("replan")) => replanTodos(t.db, { goalId, idempotencyKey, reason: "the plan changed", ops });
const live = (todos: { id: string; state: string }[]) => todos.filter((x) => x.state !== "superseded").map((x) => x.id);

describe("replan: add", () => {
  it("appends without `after`, inserts right after `after`; planner-chosen ids and kinds are kept", async () => {
    const goal = await seedGoal(t.db);
    const [a, b] = await seedTodos(t.db, goal.id, 2);
    const r = await replan(goal.id, [
      { op: "add", todo: { id: `${goal.id}-sum`, title: "Summarise the booking", kind: "host" } },
      { op: "add", todo: { id: `${goal.id}-call`, title: "Call the restaurant" }, after: a!.id },
    ]);
    expect(r.todos.map((x) => x.id)).toEqual([a!.id, `${goal.id}-call`, b!.id, `${goal.id}-sum`]);
    expect(r.todos.map((x) => x.position)).toEqual([0, 1, 2, 3]);
    expect(r.todos.find((x) => x.id === `${goal.id}-sum`)!.kind).toBe("host");
    expect(r.todos.find((x) => x.id === `${goal.id}-call`)!.kind).toBe("executor");
    expect(r.inserted).toEqual([`${goal.id}-sum`, `${goal.id}-call`]);
    expect(r.moved).toEqual([b!.id]);
    expect(r.duplicate).toBe(false);
  });

  it("an `after` that is not in the goal, or a new id that exists, names the op", async () => {
    const goal = await seedGoal(t.db);
    const [a] = await seedTodos(t.db, goal.id, 1);
    const e = await err(replan(goal.id, [{ op: "add", todo: { title: "X" }, after: "todo_nope" }]));
    expect(e?.code).toBe("INVALID_INPUT");
    expect(e?.message).toContain("ops.0.after");
    const dup = await err(replan(goal.id, [{ op: "add", todo: { id: a!.id, title: "Again" } }]));
    expect(dup?.message).toContain("ops.0.todo.id");
    expect(await t.db.todo.count({ where: { goalId: goal.id } })).toBe(1);
  });
});

describe("replan: reorder", () => {
  it("the named live todos take the slots they occupy, in the given order; others stay put", async () => {
    const goal = await seedGoal(t.db);
    const [a, b, c, d] = await seedTodos(t.db, goal.id, 4);
    const r = await replan(goal.id, [{ op: "reorder", todoIds: [d!.id, b!.id] }]);
    expect(r.todos.map((x) => x.id)).toEqual([a!.id, d!.id, c!.id, b!.id]);
    expect(r.moved.sort()).toEqual([b!.id, d!.id].sort());
  });

  it("refuses unknown, repeated or finished todos", async () => {
    const goal = await seedGoal(t.db);
    const [a, b] = await seedTodos(t.db, goal.id, 2);
    expect((await err(replan(goal.id, [{ op: "reorder", todoIds: ["todo_nope", a!.id] }])))?.message).toContain("ops.0.todoIds.0");
    expect((await err(replan(goal.id, [{ op: "reorder", todoIds: [a!.id, a!.id] }])))?.message).toContain("twice");
    const agent = await seedAgent(t.db);
    const c = await claimTodo(t.db, { agentId: agent.id, todoId: a!.id });
    if (!c.claimed) throw new Error(c.reason);
    await completeTodo(t.db, { todoId: a!.id, agentId: agent.id, leaseKey: c.lease.leaseKey });
    const done = await err(replan(goal.id, [{ op: "reorder", todoIds: [b!.id, a!.id] }]));
    expect(done?.code).toBe("INVALID_INPUT");
    expect(done?.message).toContain("is done");
  });
});

describe("replan: supersede", () => {
  it("supersedes with a reason; replacements take its place and the first becomes supersededById", async () => {
    const goal = await seedGoal(t.db);
    const [a, b, c] = await seedTodos(t.db, goal.id, 3);
    const r = await replan(goal.id, [
      { op: "supersede", todoId: b!.id, reason: "the app books directly; no call needed", replacements: [{ id: `${goal.id}-b1`, title: "Open the booking tab" }, { id: `${goal.id}-b2`, title: "Pick 19:00" }] },
    ]);
    expect(r.todos.map((x) => x.id)).toEqual([a!.id, b!.id, `${goal.id}-b1`, `${goal.id}-b2`, c!.id]);
    expect(live(r.todos)).toEqual([a!.id, `${goal.id}-b1`, `${goal.id}-b2`, c!.id]);
    expect(r.todos.find((x) => x.id === b!.id)).toMatchObject({ state: "superseded", reason: "the app books directly; no call needed", supersededById: `${goal.id}-b1` });
    expect(r.superseded).toEqual([b!.id]);
    expect(await t.db.event.count({ where: { goalId: goal.id, operator: "todo.replan" } })).toBe(1);
  });

  it("superseding a done todo is ILLEGAL_TRANSITION naming its state; nothing of the call is applied", async () => {
    const goal = await seedGoal(t.db);
    const [a, b] = await seedTodos(t.db, goal.id, 2);
    const agent = await seedAgent(t.db);
    const c = await claimTodo(t.db, { agentId: agent.id, todoId: a!.id });
    if (!c.claimed) throw new Error(c.reason);
    await completeTodo(t.db, { todoId: a!.id, agentId: agent.id, leaseKey: c.lease.leaseKey });
    const e = await err(replan(goal.id, [{ op: "add", todo: { title: "Extra" } }, { op: "supersede", todoId: a!.id, reason: "redo it" }]));
    expect(e?.code).toBe("ILLEGAL_TRANSITION");
    expect(e?.message).toContain("it is done");
    const after = await t.db.todo.findMany({ where: { goalId: goal.id }, orderBy: { position: "asc" } });
    expect(after.map((x) => [x.id, x.state])).toEqual([
      [a!.id, "done"],
      [b!.id, "pending"],
    ]);
  });

  it("cannot supersede a todo someone holds", async () => {
    const goal = await seedGoal(t.db);
    const [a] = await seedTodos(t.db, goal.id, 1);
    const agent = await seedAgent(t.db);
    await claimTodo(t.db, { agentId: agent.id, todoId: a!.id });
    const e = await err(replan(goal.id, [{ op: "supersede", todoId: a!.id, reason: "x" }]));
    expect(e?.code).toBe("ILLEGAL_TRANSITION");
    expect(e?.message).toContain("it is claimed");
  });
});

describe("replan: one transaction, idempotent", () => {
  it("all ops of a call apply together, in order, with one event", async () => {
    const goal = await seedGoal(t.db);
    const [a, b] = await seedTodos(t.db, goal.id, 2);
    const r = await replan(goal.id, [
      { op: "supersede", todoId: a!.id, reason: "stuck scrolling", replacements: [{ id: `${goal.id}-a2`, title: "Use the menu instead" }] },
      { op: "reorder", todoIds: [b!.id, `${goal.id}-a2`] },
      { op: "add", todo: { title: "Confirm by SMS" }, after: b!.id },
    ]);
    expect(live(r.todos)).toEqual([b!.id, r.inserted[1], `${goal.id}-a2`]);
    expect(await t.db.event.count({ where: { goalId: goal.id, operator: "todo.replan" } })).toBe(1);
  });

  it("a repeated key returns the stored result with duplicate: true and changes nothing; concurrent repeats too", async () => {
    const goal = await seedGoal(t.db);
    const [a] = await seedTodos(t.db, goal.id, 1);
    const key = rid("replan");
    const ops: ReplanTodosInput["ops"] = [{ op: "add", todo: { title: "Confirm by SMS" }, after: a!.id }];
    const [one, two] = await Promise.all([replan(goal.id, ops, key), replan(goal.id, ops, key)]);
    expect([one.duplicate, two.duplicate].sort()).toEqual([false, true]);
    expect(one.inserted).toEqual(two.inserted);
    const three = await replan(goal.id, ops, key);
    expect(three).toMatchObject({ duplicate: true, inserted: one.inserted, moved: [], superseded: [] });
    expect(await t.db.todo.count({ where: { goalId: goal.id } })).toBe(2);
    expect(await t.db.event.count({ where: { goalId: goal.id, operator: "todo.replan" } })).toBe(1);
    expect(await t.db.replan.count({ where: { idempotencyKey: key } })).toBe(1);
    const elsewhere = await seedGoal(t.db);
    expect((await err(replan(elsewhere.id, ops, key)))?.code).toBe("CONFLICT");
  });
});
