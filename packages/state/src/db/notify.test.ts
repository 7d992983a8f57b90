// Every Event is announced on phoneloop_events: by the trigger at commit, or — for the one-statement hot paths —
// right after their commit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { useTestDatabase, seedAgent, seedGoal, seedTodos } from "../testing/index.ts";
import { claimNext } from "../services/todo/claim-next.ts";
import { completeTodo } from "../services/todo/complete-todo.ts";

const t = useTestDatabase();
let listener: pg.Client;
const heard: string[] = [];
beforeAll(async () => {
  listener = new pg.Client({ connectionString: t.url });
  await listener.connect();
  listener.on("notification", (m) => m.payload && heard.push(m.payload));
  await listener.query("LISTEN phoneloop_events");
});
afterAll(async () => {
  await listener.end();
});

async function until(ids: string[]): Promise<void> {
  for (let i = 0; i < 200 && !ids.every((id) => heard.includes(id)); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("event announcements", () => {
  it("announce every event id exactly once, hot path or not", async () => {
    const goal = await seedGoal(t.db);
    await seedTodos(t.db, goal.id, 2);
    const agent = await seedAgent(t.db);
    const c = await claimNext(t.db, { agentId: agent.id, goalId: goal.id });
    if (!c.claimed) throw new Error("no claim");
    await completeTodo(t.db, { todoId: c.todo.id, agentId: agent.id, leaseKey: c.lease.leaseKey });
    // The same operators inside a caller's transaction leave the announcement to the trigger.
    await t.db.$transaction(async (tx) => {
      const c2 = await claimNext(tx, { agentId: agent.id, goalId: goal.id });
      if (!c2.claimed) throw new Error("no claim");
      await completeTodo(tx, { todoId: c2.todo.id, agentId: agent.id, leaseKey: c2.lease.leaseKey });
    });
    const ids = (await t.db.event.findMany({ where: { goalId: goal.id }, select: { id: true } })).map((e) => String(e.id));
    await until(ids);
    expect(ids.length).toBe(6);
    for (const id of ids) expect(heard.filter((h) => h === id)).toHaveLength(1);
  });
});
