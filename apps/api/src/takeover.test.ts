// Take over and hand back through the API: an operator takes over a running run (the agent's next write is refused,
// its lease gone), acts on the phone as person steps (a secret typed is stored masked), and hands back (the todo is
// given back with a handoff saying what they did); the replay and a share link carry each step's actor. Agent
// tokens and viewers are refused; a second member's takeover is a CONFLICT naming who holds the phone.
import { describe, expect, it } from "vitest";
import { claimTodo, createShare, putBlob, startRun, startTodo, type Role } from "@phoneloop/state";
import { seedAgent, seedGoal, seedMember, seedTodos, seedWorkspace } from "@phoneloop/state/testing";
import type { Principal } from "./auth/principal.ts";
import { useCallers } from "./caller-testing.ts";

const callers = useCallers();
const { as, failure } = callers;

/** A team with a running run: its agent holds the run's todo; two operators, a viewer, an admin and the agent's token. */
async function runningRun(name: string) {
  const db = callers.t().db;
  const { workspace, admin } = await seedWorkspace(db, name);
  const [alice, bob, vi] = await Promise.all([
    seedMember(db, "operator", workspace.id, "Alice"),
    seedMember(db, "operator", workspace.id, "Bob"),
    seedMember(db, "viewer", workspace.id, "Vi"),
  ]);
  const member = (userId: string, role: Role): Principal => ({ kind: "member", userId, workspaceId: workspace.id, role, name: userId, email: `${userId}@example.test` });
  const goal = await seedGoal(db, { workspaceId: workspace.id, title: "Log in to the bank app", objective: "Open the bank app and read the balance." });
  const [todo] = await seedTodos(db, goal.id, 1);
  const agentRow = await seedAgent(db, { workspaceId: workspace.id });
  const claim = await claimTodo(db, { agentId: agentRow.id, todoId: todo!.id });
  if (!claim.claimed) throw new Error(claim.reason);
  await startTodo(db, { todoId: todo!.id, agentId: agentRow.id, leaseKey: claim.lease.leaseKey });
  const run = await startRun(db, { goalId: goal.id, todoId: todo!.id, agentId: agentRow.id });
  const shot = async (n: number) => (await putBlob(db, { bytes: new Uint8Array([0x89, 0x50, 0x4e, n]), mime: "image/png", workspaceId: workspace.id })).sha256;
  return {
    db,
    ws: workspace.id,
    adminId: admin.id,
    ids: { alice: alice.userId, bob: bob.userId },
    run,
    todo: todo!,
    agentId: agentRow.id,
    leaseKey: claim.lease.leaseKey,
    before: await shot(1),
    after: await shot(2),
    alice: as(member(alice.userId, "operator")),
    bob: as(member(bob.userId, "operator")),
    viewer: as(member(vi.userId, "viewer")),
    admin: as(member(admin.id, "admin")),
    agent: as({ kind: "agent", agentId: agentRow.id, tokenId: `tok_${workspace.id}`, workspaceId: workspace.id, issuedBy: alice.userId, issuerRole: "operator", tab: false }),
  };
}

describe("take over and hand back through the API", () => {
  it("taking over stops the agent: its todo is blocked in the gate's transaction and its next write is refused", async () => {
    const a = await runningRun("Takeover A");
    const { gateId, takenBy } = await a.alice.run.takeOver({ runId: a.run.id });
    expect(takenBy).toEqual({ id: a.ids.alice, name: "Alice" });
    expect((await a.db.todo.findUniqueOrThrow({ where: { id: a.todo.id } })).state).toBe("blocked");
    const late = await failure(
      a.agent.run.recordStep({
        runId: a.run.id, agentId: a.agentId, todoId: a.todo.id, leaseKey: a.leaseKey,
        evidence: [{ idempotencyKey: `${a.run.id}:late`, kind: "anomaly", summary: "still tapping", data: { kind: "no_change" } }],
      }),
    );
    expect(late?.code).toBe("CONFLICT");
    // The Attention page shows it as a takeover, held by Alice.
    const queue = await a.viewer.board.attention({});
    expect(queue.items.find((x) => x.kind === "gate_waiting" && x.gateId === gateId)).toMatchObject({ gateKind: "takeover", takeover: { runId: a.run.id, reason: null, takenBy: { id: a.ids.alice, name: "Alice" } } });
  });

  it("agent tokens and viewers get 403 on takeOver, recordPersonStep and handBack", async () => {
    const a = await runningRun("Takeover B");
    const step = { runId: a.run.id, gateId: "gate_none", action: { type: "back" as const }, screen: { width: 1080, height: 2400 }, beforeSha256: a.before, afterSha256: a.after };
    for (const caller of [a.agent, a.viewer]) {
      expect((await failure(caller.run.takeOver({ runId: a.run.id })))?.code).toBe("FORBIDDEN");
      expect((await failure(caller.run.recordPersonStep(step)))?.code).toBe("FORBIDDEN");
      expect((await failure(caller.run.handBack({ runId: a.run.id, gateId: "gate_none" })))?.code).toBe("FORBIDDEN");
    }
    expect(await a.db.gate.count({ where: { runId: a.run.id } })).toBe(0);
  });

  it("a second member's takeover of a taken run is a CONFLICT naming who holds the phone", async () => {
    const a = await runningRun("Takeover C");
    const { gateId } = await a.alice.run.takeOver({ runId: a.run.id });
    const second = await failure(a.bob.run.takeOver({ runId: a.run.id }));
    expect(second?.code).toBe("CONFLICT");
    expect(second?.message).toContain("Alice took over");
    expect((await a.alice.run.takeOver({ runId: a.run.id })).gateId).toBe(gateId);
  });

  it("the taker's steps are the person's in the replay and a share link, a secret masked; hand back gives the todo back with what they did", async () => {
    const a = await runningRun("Takeover D");
    const { gateId } = await a.alice.run.takeOver({ runId: a.run.id });
    const step = { runId: a.run.id, gateId, screen: { width: 1080, height: 2400 }, beforeSha256: a.before, afterSha256: a.after };
    expect((await failure(a.bob.run.recordPersonStep({ ...step, action: { type: "tap", x: 540, y: 600 } })))?.code).toBe("FORBIDDEN");
    await a.alice.run.recordPersonStep({ ...step, action: { type: "tap", x: 540, y: 600 } });
    await a.alice.run.recordPersonStep({ ...step, action: { type: "type", text: "s3cret-pin-4711" }, secret: true });
    const rows = await a.db.step.findMany({ where: { runId: a.run.id }, orderBy: { index: "asc" } });
    expect(JSON.stringify(rows)).not.toContain("s3cret");

    const steps = await a.viewer.run.steps({ runId: a.run.id });
    expect(steps.items.map((s) => [s.actor, s.action])).toEqual([
      [{ kind: "member", memberId: a.ids.alice, name: "Alice" }, { type: "tap", x: 500, y: 250 }],
      [{ kind: "member", memberId: a.ids.alice, name: "Alice" }, { type: "type", text: "••••••", masked: true }],
    ]);
    const { token } = await createShare(a.db, { workspaceId: a.ws, runId: a.run.id }, { actor: a.adminId });
    const shared = await as({ kind: "anonymous" }).share.steps({ token });
    expect(shared.items.map((s) => s.actor.kind)).toEqual(["member", "member"]);
    expect(JSON.stringify(shared)).not.toContain("s3cret");

    expect((await failure(a.bob.run.handBack({ runId: a.run.id, gateId })))?.code).toBe("FORBIDDEN");
    const back = await a.alice.run.handBack({ runId: a.run.id, gateId, note: "Logged in with the PIN." });
    expect(back.summary).toBe("A person took over: Alice did: tapped at (540, 600); typed a secret (••••••). Their note: Logged in with the PIN.");
    expect(back.gate.status).toBe("answered");
    expect((await a.db.todo.findUniqueOrThrow({ where: { id: a.todo.id } })).state).toBe("pending");
    const replay = await a.viewer.run.replay({ runId: a.run.id });
    expect(replay.timeline.find((e) => e.kind === "handoff")).toMatchObject({ id: back.handoffEvidenceId, summary: back.summary });
  });
});
