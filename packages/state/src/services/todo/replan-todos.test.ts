import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, seedAgent, seedGoal, seedTodos, type TestDatabase } from "../../testing/index.ts";
import { type StateError } from "../../domain/errors.ts";
import { replanTodos } from "./replan-todos.ts";
import { claimTodo } from "./claim-todo.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);

describe("replan (write_todos)", () => {
  it("inserts, reorders and supersedes with a reason; ids stay stable; one event", async () => {
    const goal = await seedGoal(t.db);
    const [a, b, c] = await seedTodos(t.db, goal.id, 3);
    const r = await replanTodos(t.db, {
      goalId: goal.id,
      plan: [{ keep: c!.id }, { title: "Confirm the time with the restaurant" }, { keep: a!.id }],
      supersede: [{ todoId: b!.id, reason: "the app books directly; no call needed" }],
    });
    expect(r.inserted).toHaveLength(1);
    expect(r.moved.sort()).toEqual([a!.id, c!.id].sort());
    expect(r.superseded).toEqual([b!.id]);
    const live = r.todos.filter((x) => x.state !== "superseded");
    expect(live.map((x) => x.id)).toEqual([c!.id, r.inserted[0], a!.id]);
    const gone = r.todos.find((x) => x.id === b!.id)!;
    expect(gone).toMatchObject({ state: "superseded", reason: "the app books directly; no call needed" });
    expect(await t.db.event.count({ where: { goalId: goal.id, operator: "todo.replan" } })).toBe(1);
  });

  it("refuses to drop a todo silently", async () => {
    const goal = await seedGoal(t.db);
    const [a, b] = await seedTodos(t.db, goal.id, 2);
    const e = await err(replanTodos(t.db, { goalId: goal.id, plan: [{ keep: a!.id }] }));
    expect(e?.code).toBe("INVALID_INPUT");
    expect(e?.message).toContain(b!.id);
    expect(e?.message).toContain("without a reason");
    expect(await t.db.todo.count({ where: { goalId: goal.id, state: "pending" } })).toBe(2);
  });

  it("cannot supersede a todo someone holds", async () => {
    const goal = await seedGoal(t.db);
    const [a] = await seedTodos(t.db, goal.id, 1);
    const agent = await seedAgent(t.db);
    await claimTodo(t.db, { agentId: agent.id, todoId: a!.id });
    const e = await err(replanTodos(t.db, { goalId: goal.id, plan: [], supersede: [{ todoId: a!.id, reason: "x" }] }));
    expect(e?.code).toBe("ILLEGAL_TRANSITION");
    expect(e?.message).toContain("it is claimed");
  });

  it("rejects unknown or duplicated ids in the plan", async () => {
    const goal = await seedGoal(t.db);
    const [a] = await seedTodos(t.db, goal.id, 1);
    expect((await err(replanTodos(t.db, { goalId: goal.id, plan: [{ keep: "todo_nope" }, { keep: a!.id }] })))?.message).toContain("plan.0.keep");
    expect((await err(replanTodos(t.db, { goalId: goal.id, plan: [{ keep: a!.id }, { keep: a!.id }] })))?.message).toContain("twice");
  });
});
