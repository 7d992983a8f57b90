// The procedures the agent runtime calls, over real HTTP against real Postgres: the next todo in one call,
// replan ops, turn results, gates and run ends — each idempotent on its key where a client may retry it. The
// client acts as the runtime does: with an agent token, as the agent that token registered.
import { beforeAll, describe, expect, it } from "vitest";
import { TRPCClientError } from "@trpc/client";
import { issueAgentToken } from "@phoneloop/state";
import { rid, seedGoal as seedAnyGoal, seedTodos, seedWorkspace, useTestDatabase, type TestDatabase } from "@phoneloop/state/testing";
import { createApiClient } from "@phoneloop/client";
import { useApiServer } from "./use-api-server.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let client: ReturnType<typeof createApiClient>;
let workspaceId: string;
let agent: { id: string };
const seedGoal = (db: TestDatabase["db"]) => seedAnyGoal(db, { workspaceId });

beforeAll(async () => {
  const { workspace, admin } = await seedWorkspace(t.db);
  workspaceId = workspace.id;
  const { token } = await issueAgentToken(t.db, { workspaceId, name: "Runtime", issuedBy: admin.id });
  client = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
  agent = await client.agent.register.mutate({ id: rid("agent"), name: "Pixel", kind: "headless", capabilities: ["android"] });
});

async function failure(p: Promise<unknown>): Promise<{ status: number; message: string; stateCode: string | null }> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof TRPCClientError)) throw e;
    const data = e.data as { httpStatus: number; stateCode: string | null };
    return { status: data.httpStatus, message: e.message, stateCode: data.stateCode };
  }
  throw new Error("expected the call to fail");
}

describe("the runtime's procedures", () => {
  it("todo.claimNext → turn.route → turn.result (a repeat is a duplicate) → the next todo", async () => {
    const goal = await seedGoal(t.db);
    const [a, b] = await seedTodos(t.db, goal.id, 2);
    const claim = await client.todo.claimNext.mutate({ agentId: agent.id, goalId: goal.id, ttlMs: 60_000 });
    if (!claim.claimed) throw new Error(claim.reason);
    expect(claim).toMatchObject({ todo: { id: a!.id, kind: "executor" }, lease: { ownerId: agent.id, epoch: 1 }, reclaimedFrom: null });
    const ref = { todoId: a!.id, agentId: agent.id, leaseKey: claim.lease.leaseKey };
    await client.todo.start.mutate(ref);
    expect(await client.turn.route.mutate({ todoId: a!.id, agentId: agent.id })).toMatchObject({ route: "ready_for_host" });
    const key = rid("turn");
    const done = await client.turn.result.mutate({ ...ref, idempotencyKey: key, kind: "validated_completion", summary: "opened the app" });
    expect(done).toMatchObject({ kind: "validated_completion", duplicate: false, todo: { state: "done" } });
    const again = await client.turn.result.mutate({ ...ref, idempotencyKey: key, kind: "validated_completion", summary: "opened the app" });
    expect(again).toMatchObject({ kind: "validated_completion", duplicate: true });
    const next = await client.todo.claimNext.mutate({ agentId: agent.id, goalId: goal.id, ttlMs: 60_000 });
    expect(next.claimed && next.todo.id).toBe(b!.id);
    // The same agent asking again is a restarted worker: it takes its own lease over (a new epoch fences the old key).
    const again2 = await client.todo.claimNext.mutate({ agentId: agent.id, goalId: goal.id, ttlMs: 60_000 });
    expect(again2).toMatchObject({ claimed: true, todo: { id: b!.id }, lease: { epoch: 2 } });
  });

  it("todo.replan applies add/reorder/supersede in one call; a repeated key returns the stored result", async () => {
    const goal = await seedGoal(t.db);
    const [a, b] = await seedTodos(t.db, goal.id, 2);
    const input = {
      goalId: goal.id,
      idempotencyKey: rid("replan"),
      reason: "the app has a quicker path",
      ops: [
        { op: "supersede" as const, todoId: a!.id, reason: "stuck scrolling", replacements: [{ title: "Use the menu", kind: "executor" as const }] },
        { op: "add" as const, todo: { title: "Summarise the booking", kind: "host" as const } },
        { op: "reorder" as const, todoIds: [b!.id] },
      ],
    };
    const first = await client.todo.replan.mutate(input);
    expect(first.duplicate).toBe(false);
    expect(first.todos.filter((x) => x.state !== "superseded").map((x) => [x.title, x.kind])).toEqual([
      ["Use the menu", "executor"],
      ["Step 2", "executor"],
      ["Summarise the booking", "host"],
    ]);
    const again = await client.todo.replan.mutate(input);
    expect(again).toMatchObject({ duplicate: true, inserted: first.inserted, superseded: [a!.id] });
    const bad = await failure(client.todo.replan.mutate({ ...input, idempotencyKey: rid("replan"), ops: [{ op: "supersede", todoId: a!.id, reason: "again" }] }));
    expect(bad).toMatchObject({ status: 412, stateCode: "ILLEGAL_TRANSITION" });
    expect(bad.message).toContain("it is superseded");
  });

  it("gate.open with a used key returns the first gate; run.finish records the end reason", async () => {
    const goal = await seedGoal(t.db);
    const [a] = await seedTodos(t.db, goal.id, 1);
    const ask = { goalId: goal.id, todoId: a!.id, question: "Pay the 5 EUR deposit?", options: ["pay", "skip"], evidenceIds: [], idempotencyKey: rid("gate") };
    const one = await client.gate.open.mutate(ask);
    const two = await client.gate.open.mutate(ask);
    expect([one.created, two.created]).toEqual([true, false]);
    expect(two.gate.id).toBe(one.gate.id);
    const run = await client.run.start.mutate({ goalId: goal.id, agentId: agent.id });
    const finished = await client.run.finish.mutate({ runId: run.id, agentId: agent.id, status: "blocked", endReason: "gate_waiting", summary: "waits for the deposit answer" });
    expect(finished).toMatchObject({ status: "blocked", endReason: "gate_waiting" });
  });

  it("a run's end reason outside RUN_END_REASONS, or a turn without its key, is a 400 naming the field", async () => {
    const r1 = await failure(client.run.finish.mutate({ runId: "run_x", status: "failed", endReason: "gave_up" as never }));
    expect(r1.status).toBe(400);
    expect(r1.message).toContain("endReason");
    const r2 = await failure(client.turn.result.mutate({ todoId: "t", agentId: "a", leaseKey: "k", kind: "wait", summary: "s" } as never));
    expect(r2.status).toBe(400);
    expect(r2.message).toContain("idempotencyKey");
  });
});
