// The holder's one-statement write path is fenced by the todo's version: when a lease moves (transfer, reclaim)
// at the same moment as the old holder writes, the write lands before the move or not at all.
import { describe, expect, it } from "vitest";
import { useTestDatabase, seedAgent, seedClaimed } from "../../testing/index.ts";
import { transferLease } from "./transfer-lease.ts";
import { startTodo } from "../todo/start-todo.ts";
import { writebackTodo } from "../todo/writeback-todo.ts";
import { cancelGoal } from "../goal/cancel-goal.ts";

const t = useTestDatabase({ poolSize: 20 });

describe("lease fencing under races", () => {
  it("no write of the old holder is accepted after a concurrent transfer commits", async () => {
    for (let round = 0; round < 10; round++) {
      const { todo, agent, claim } = await seedClaimed(t.db);
      const ref = { todoId: todo.id, agentId: agent.id, leaseKey: claim.lease.leaseKey };
      await startTodo(t.db, ref);
      const peer = await seedAgent(t.db);
      await Promise.allSettled([
        ...Array.from({ length: 4 }, (_, k) => writebackTodo(t.db, { ...ref, values: { [`w${k}`]: true } })),
        transferLease(t.db, { ...ref, toAgentId: peer.id }),
        ...Array.from({ length: 4 }, (_, k) => writebackTodo(t.db, { ...ref, values: { [`v${k}`]: true } })),
      ]);
      const events = await t.db.event.findMany({ where: { OR: [{ subjectId: todo.id }, { operator: "lease.transfer", payload: { path: ["todoId"], equals: todo.id } }] }, orderBy: { id: "asc" } });
      const transferAt = events.findIndex((e) => e.operator === "lease.transfer");
      expect(transferAt).toBeGreaterThan(-1);
      const late = events.slice(transferAt + 1).filter((e) => e.operator === "todo.writeback");
      expect(late).toEqual([]);
      const accepted = events.filter((e) => e.operator === "todo.writeback").length;
      const values = (await t.db.todo.findUniqueOrThrow({ where: { id: todo.id } })).values as Record<string, unknown>;
      expect(Object.keys(values)).toHaveLength(accepted);
    }
  });

  it("no write is accepted after the goal is cancelled", async () => {
    for (let round = 0; round < 10; round++) {
      const { goal, todo, agent, claim } = await seedClaimed(t.db);
      const ref = { todoId: todo.id, agentId: agent.id, leaseKey: claim.lease.leaseKey };
      await startTodo(t.db, ref);
      await Promise.allSettled([
        writebackTodo(t.db, { ...ref, values: { a: 1 } }),
        cancelGoal(t.db, { goalId: goal.id }),
        writebackTodo(t.db, { ...ref, values: { b: 1 } }),
      ]);
      const events = await t.db.event.findMany({ where: { goalId: goal.id }, orderBy: { id: "asc" } });
      const cancelAt = events.findIndex((e) => e.operator === "goal.cancel");
      expect(events.slice(cancelAt + 1).filter((e) => e.operator === "todo.writeback")).toEqual([]);
    }
  });
});
