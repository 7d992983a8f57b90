import { describe, expect, it } from "vitest";
import type { Page } from "../domain/page.ts";
import { useTestDatabase, manualClock, rid, seedGate, seedGoal, seedMember, seedTodos, seedWorkspace } from "../testing/index.ts";
import { attentionQueue } from "./attention-queue.ts";
import { evidenceList } from "./evidence-list.ts";
import { goalList } from "./goal-list.ts";
import { todoList } from "./todo-list.ts";
import { appendEvidence } from "../services/evidence/append-evidence.ts";
import { listMembers } from "../services/workspace/members.ts";
import { issueAgentToken, listAgentTokens, revokeAgentToken } from "../services/workspace/agent-tokens.ts";

const t = useTestDatabase();

/** Every page of a list, following nextCursor; also returns how many pages it took. */
async function allPages<T>(read: (cursor: string | undefined) => Promise<Page<T>>): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let pages = 0;
  for (let cursor: string | undefined; ; ) {
    const page = await read(cursor);
    pages++;
    items.push(...page.items);
    if (!page.nextCursor) return { items, pages };
    cursor = page.nextCursor;
  }
}

describe("cursor pagination", () => {
  it("todos: pages of `limit` in plan order, each once, the last page's nextCursor null; the default page is 100", async () => {
    const goal = await seedGoal(t.db);
    const todos = await seedTodos(t.db, goal.id, 7);
    const { items, pages } = await allPages((cursor) => todoList(t.db, { goalId: goal.id, cursor, limit: 3 }));
    expect(pages).toBe(3);
    expect(items.map((x) => x.id)).toEqual(todos.map((x) => x.id));
    const whole = await todoList(t.db, { goalId: goal.id });
    expect(whole.items).toHaveLength(7);
    expect(whole.nextCursor).toBeNull();
    await expect(todoList(t.db, { goalId: goal.id, limit: 501 })).rejects.toMatchObject({ code: "INVALID_INPUT" });

    const big = await seedGoal(t.db);
    await seedTodos(t.db, big.id, 101);
    const first = await todoList(t.db, { goalId: big.id });
    expect(first.items).toHaveLength(100);
    expect(first.nextCursor).toEqual(expect.any(String));
    expect((await todoList(t.db, { goalId: big.id, cursor: first.nextCursor! })).items).toHaveLength(1);
  });

  it("goals newest first and evidence oldest first page without gaps or repeats, though rows share a timestamp", async () => {
    const clock = manualClock(new Date("2026-11-30T06:00:00Z"));
    const { workspace } = await seedWorkspace(t.db);
    const goals = [];
    for (let k = 0; k < 5; k++) goals.push(await seedGoal(t.db, { workspaceId: workspace.id, title: `goal ${k}` }, { clock }));
    const listed = await allPages((cursor) => goalList(t.db, { workspaceId: workspace.id, cursor, limit: 2 }));
    expect(listed.pages).toBe(3);
    expect(new Set(listed.items.map((g) => g.id))).toEqual(new Set(goals.map((g) => g.id)));
    expect(listed.items).toHaveLength(5);

    const goal = goals[0]!;
    for (let k = 0; k < 6; k++) await appendEvidence(t.db, { goalId: goal.id, kind: "observation", summary: `obs ${k}`, idempotencyKey: rid("e") }, { clock });
    const evidence = await allPages((cursor) => evidenceList(t.db, { goalId: goal.id, cursor, limit: 4 }));
    expect(evidence.pages).toBe(2);
    expect(evidence.items.map((e) => e.summary).sort()).toEqual(["obs 0", "obs 1", "obs 2", "obs 3", "obs 4", "obs 5"]);
  });

  it("the attention queue and members page the same way", async () => {
    const goal = await seedGoal(t.db);
    const gates = [];
    for (let k = 0; k < 5; k++) gates.push(await seedGate(t.db, goal.id, { question: `question ${k}?` }));
    const queue = await allPages((cursor) => attentionQueue(t.db, { workspaceId: goal.workspaceId, goalId: goal.id, cursor, limit: 2 }));
    expect(queue.pages).toBe(3);
    expect(queue.items.map((x) => (x.kind === "gate_waiting" ? x.gateId : x.kind))).toEqual(gates.map((g) => g.id));

    const { workspace } = await seedWorkspace(t.db);
    for (let k = 0; k < 3; k++) await seedMember(t.db, "viewer", workspace.id, `Viewer ${k}`);
    const members = await allPages((cursor) => listMembers(t.db, { workspaceId: workspace.id, cursor, limit: 2 }));
    expect(members.pages).toBe(2);
    expect(members.items).toHaveLength(4);
    expect(new Set(members.items.map((m) => m.id)).size).toBe(4);
  });

  it("a page goes on after its cursor's row though that row was deleted: newest-first tokens, none lost, none repeated", async () => {
    const clock = manualClock(new Date("2026-11-30T06:00:00Z"));
    const { workspace, admin } = await seedWorkspace(t.db);
    for (let k = 0; k < 8; k++) {
      await issueAgentToken(t.db, { workspaceId: workspace.id, name: `token ${k}`, issuedBy: admin.id }, { clock });
      if (k % 3 === 2) clock.advance(1000); // some tokens share a createdAt: the id breaks the tie
    }
    const whole = (await listAgentTokens(t.db, { workspaceId: workspace.id })).items.map((x) => x.id);
    expect(whole).toHaveLength(8);

    const first = await listAgentTokens(t.db, { workspaceId: workspace.id, limit: 3 });
    expect(first.items.map((x) => x.id)).toEqual(whole.slice(0, 3));
    const gone = first.items[2]!.id;
    await revokeAgentToken(t.db, { workspaceId: workspace.id, tokenId: gone });
    await t.db.agentToken.delete({ where: { id: gone } });

    const rest = await allPages((cursor) => listAgentTokens(t.db, { workspaceId: workspace.id, cursor: cursor ?? first.nextCursor!, limit: 3 }));
    expect(rest.items.map((x) => x.id)).toEqual(whole.slice(3));
  });

  it("oldest-first todos (plan position, then time, then id) go on after a deleted cursor row, and after the next one deleted too", async () => {
    const goal = await seedGoal(t.db);
    const todos = await seedTodos(t.db, goal.id, 9);
    const first = await todoList(t.db, { goalId: goal.id, limit: 3 });
    expect(first.items.map((x) => x.id)).toEqual(todos.slice(0, 3).map((x) => x.id));
    await t.db.todo.delete({ where: { id: todos[2]!.id } });
    const second = await todoList(t.db, { goalId: goal.id, cursor: first.nextCursor!, limit: 3 });
    expect(second.items.map((x) => x.id)).toEqual(todos.slice(3, 6).map((x) => x.id));
    await t.db.todo.deleteMany({ where: { id: { in: [todos[5]!.id, todos[6]!.id] } } });
    const third = await todoList(t.db, { goalId: goal.id, cursor: second.nextCursor!, limit: 3 });
    expect(third.items.map((x) => x.id)).toEqual(todos.slice(7).map((x) => x.id));
    expect(third.nextCursor).toBeNull();
  });

  it("a cursor the list did not make is a 400-class error naming the cursor, never a server error", async () => {
    const goal = await seedGoal(t.db);
    await seedTodos(t.db, goal.id, 3);
    const todoCursor = (await todoList(t.db, { goalId: goal.id, limit: 1 })).nextCursor!;
    const encoded = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString("base64url");
    const bad = [
      "not a cursor",
      goal.id, // an id, as cursors once were
      todoCursor, // another list's cursor (three columns, not two)
      encoded(["2026-11-30T06:00:00.000Z", 5]), // an id that is no string
      encoded(["yesterday", "goal_1"]), // a time that is no timestamp
      encoded([{}, "goal_1"]),
    ];
    for (const cursor of bad) {
      await expect(goalList(t.db, { workspaceId: goal.workspaceId, cursor })).rejects.toMatchObject({
        code: "INVALID_INPUT",
        message: expect.stringMatching(/^cursor: .*pass back a nextCursor/),
      });
    }
    await expect(todoList(t.db, { goalId: goal.id, cursor: encoded([1.5, "2026-11-30T06:00:00.000Z", "todo_1"]) })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    expect((await todoList(t.db, { goalId: goal.id, cursor: todoCursor })).items).toHaveLength(2);
  });
});
