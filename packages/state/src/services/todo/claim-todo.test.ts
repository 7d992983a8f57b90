import { describe, expect, it } from "vitest";
import { useTestDatabase, manualClock, seedAgent, seedClaimed, seedGoal, seedTodos } from "../../testing/index.ts";
import { type StateError } from "../../domain/errors.ts";
import { claimTodo } from "./claim-todo.ts";
import { completeTodo } from "./complete-todo.ts";
import { startTodo } from "./start-todo.ts";
import { writebackTodo } from "./writeback-todo.ts";
import { pauseGoal } from "../goal/pause-goal.ts";

const t = useTestDatabase({ poolSize: 40 });

const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);

describe("claim (a named todo)", () => {
  it("claims a pending todo; a second claim of the held todo is a CONFLICT naming the holder", async () => {
    const goal = await seedGoal(t.db);
    const [todo] = await seedTodos(t.db, goal.id, 1);
    const [one, two] = [await seedAgent(t.db), await seedAgent(t.db)];
    const r = await claimTodo(t.db, { agentId: one.id, todoId: todo!.id });
    expect(r).toMatchObject({ claimed: true, todo: { id: todo!.id, state: "claimed" }, lease: { ownerId: one.id, epoch: 1 }, reclaimedFrom: null, duplicate: false });
    const e = await err(claimTodo(t.db, { agentId: two.id, todoId: todo!.id }));
    expect(e?.code).toBe("CONFLICT");
    expect(e?.details.currentHolder).toBe(one.id);
  });

  it("needs the todo's capabilities", async () => {
    const goal = await seedGoal(t.db);
    const [needsCamera] = await seedTodos(t.db, goal.id, 1, { requiredCapabilities: ["android", "camera"] });
    const basic = await seedAgent(t.db, { capabilities: ["android"] });
    const e = await err(claimTodo(t.db, { agentId: basic.id, todoId: needsCamera!.id }));
    expect(e?.code).toBe("FORBIDDEN");
    expect(e?.message).toContain("camera");
  });

  it("a retried claim with the same idempotency key returns the same lease", async () => {
    const goal = await seedGoal(t.db);
    const [todo] = await seedTodos(t.db, goal.id, 1);
    const agent = await seedAgent(t.db);
    const [a, b] = await Promise.all([
      claimTodo(t.db, { agentId: agent.id, todoId: todo!.id, idempotencyKey: `k-${goal.id}` }),
      claimTodo(t.db, { agentId: agent.id, todoId: todo!.id, idempotencyKey: `k-${goal.id}` }),
    ]);
    expect(a.claimed && b.claimed).toBe(true);
    if (a.claimed && b.claimed) expect(a.lease.id).toBe(b.lease.id);
    expect(await t.db.lease.count({ where: { todo: { goalId: goal.id } } })).toBe(1);
  });

  it("refuses paused goals and names unregistered agents", async () => {
    const goal = await seedGoal(t.db);
    const [todo] = await seedTodos(t.db, goal.id, 1);
    const agent = await seedAgent(t.db);
    await pauseGoal(t.db, { goalId: goal.id });
    expect((await err(claimTodo(t.db, { agentId: agent.id, todoId: todo!.id })))?.code).toBe("PRECONDITION_FAILED");
    expect((await err(claimTodo(t.db, { agentId: "agent_nobody", todoId: todo!.id })))?.code).toBe("NOT_FOUND");
  });

  it("rejects invalid input naming the field (a todo must be named: the next one is claimNext)", async () => {
    const e = await err(claimTodo(t.db, { agentId: "a", todoId: "t", ttlMs: -5 }));
    expect(e?.code).toBe("INVALID_INPUT");
    expect(e?.message).toContain("ttlMs");
    const none = await err(claimTodo(t.db, { agentId: "a" } as never));
    expect(none?.message).toContain("todoId");
  });
});

describe("lease expiry", () => {
  it("another agent reclaims; the old holder's writeback is rejected naming the new holder, and nothing it wrote is kept", async () => {
    const clock = manualClock(new Date("2026-11-29T10:00:00Z"));
    const ctx = { clock };
    const { todo, agent: old, claim } = await seedClaimed(t.db, ctx, 30_000);
    const oldRef = { todoId: todo.id, agentId: old.id, leaseKey: claim.lease.leaseKey };
    await startTodo(t.db, oldRef, ctx);
    await writebackTodo(t.db, { ...oldRef, values: { step: "opened app" } }, ctx);

    clock.advance(30_001);
    // Expired but not yet reclaimed: the old holder is already fenced off.
    const early = await err(writebackTodo(t.db, { ...oldRef, values: { step: "late write" } }, ctx));
    expect(early?.code).toBe("CONFLICT");
    expect(early?.message).toMatch(/expired/);

    const peer = await seedAgent(t.db, {}, ctx);
    const re = await claimTodo(t.db, { agentId: peer.id, todoId: todo.id }, ctx);
    expect(re.claimed).toBe(true);
    if (!re.claimed) return;
    expect(re.todo.id).toBe(todo.id);
    expect(re.reclaimedFrom).toBe(old.id);
    expect(re.lease.epoch).toBe(claim.lease.epoch + 1);

    const late = await err(completeTodo(t.db, { ...oldRef, values: { step: "old holder says done" } }, ctx));
    expect(late?.code).toBe("CONFLICT");
    expect(late?.details.currentHolder).toBe(peer.id);
    expect(late?.message).toContain(`held by ${peer.id}`);

    const { appendEvidence } = await import("../evidence/append-evidence.ts");
    const lateEvidence = await err(
      appendEvidence(t.db, { goalId: todo.goalId, todoId: todo.id, agentId: old.id, leaseKey: oldRef.leaseKey, kind: "observation", summary: "late screen", idempotencyKey: `${todo.id}-late` }, ctx),
    );
    expect(lateEvidence?.code).toBe("CONFLICT");
    expect(await t.db.evidence.count({ where: { todoId: todo.id } })).toBe(0);

    const now = await t.db.todo.findUniqueOrThrow({ where: { id: todo.id } });
    expect(now.state).toBe("claimed");
    expect(now.values).toEqual({ step: "opened app" });
    const leases = await t.db.lease.findMany({ where: { todoId: todo.id }, orderBy: { epoch: "asc" } });
    expect(leases.map((l) => [l.ownerId, l.status])).toEqual([
      [old.id, "expired"],
      [peer.id, "active"],
    ]);
    const events = await t.db.event.findMany({ where: { subjectId: todo.id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.operator)).toEqual(["todo.claim", "todo.start", "todo.writeback", "todo.claim"]);
  });

  it("an unexpired lease cannot be taken, and renew/transfer keep the todo fenced", async () => {
    const clock = manualClock(new Date("2026-11-29T11:00:00Z"));
    const ctx = { clock };
    const { todo, agent, claim } = await seedClaimed(t.db, ctx, 10_000);
    const peer = await seedAgent(t.db, {}, ctx);
    const [{ renewLease }, { transferLease }, { releaseLease }] = await Promise.all([import("../lease/renew-lease.ts"), import("../lease/transfer-lease.ts"), import("../lease/release-lease.ts")]);
    clock.advance(9_000);
    const renewed = await renewLease(t.db, { todoId: todo.id, agentId: agent.id, leaseKey: claim.lease.leaseKey }, ctx);
    expect(renewed.expiresAt.toISOString()).toBe("2026-11-29T11:00:19.000Z");
    expect(renewed.version).toBe(2);
    clock.advance(9_000);
    expect((await err(claimTodo(t.db, { agentId: peer.id, todoId: todo.id }, ctx)))?.code).toBe("CONFLICT");

    const moved = await transferLease(t.db, { todoId: todo.id, agentId: agent.id, leaseKey: claim.lease.leaseKey, toAgentId: peer.id }, ctx);
    expect(moved.ownerId).toBe(peer.id);
    expect(moved.leaseKey).not.toBe(claim.lease.leaseKey);
    const stale = await err(startTodo(t.db, { todoId: todo.id, agentId: agent.id, leaseKey: claim.lease.leaseKey }, ctx));
    expect(stale?.code).toBe("CONFLICT");
    expect(stale?.message).toContain("transferred");
    expect(stale?.details.currentHolder).toBe(peer.id);
    await startTodo(t.db, { todoId: todo.id, agentId: peer.id, leaseKey: moved.leaseKey }, ctx);
    const released = await releaseLease(t.db, { todoId: todo.id, agentId: peer.id, leaseKey: moved.leaseKey }, ctx);
    expect(released.todo.state).toBe("pending");
    clock.advance(100_000);
    const expiredRenew = await err(renewLease(t.db, { todoId: todo.id, agentId: peer.id, leaseKey: moved.leaseKey }, ctx));
    expect(expiredRenew?.code).toBe("CONFLICT");
  });
});
