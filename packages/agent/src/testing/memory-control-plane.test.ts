import { describe, expect, it } from "vitest";
import { MemoryControlPlane } from "./memory-control-plane.ts";
import { FakeClock } from "./fake-clock.ts";
import { ControlPlaneConflict } from "../ports.ts";

async function setup() {
  const clock = new FakeClock();
  const cp = new MemoryControlPlane({ clock });
  const o = await cp.createGoal({ goal: "g" });
  const todos = await cp.replanTodos({ goalId: o.goalId, idempotencyKey: "p", reason: "plan", ops: [{ op: "insert", todo: { todoId: "a", title: "A", kind: "executor" } }, { op: "insert", todo: { todoId: "b", title: "B", kind: "executor" } }] });
  return { clock, cp, o, todos };
}

describe("memory control plane (test double of the port)", () => {
  it("claims in order, with epochs; a held lease blocks others until it expires; a stale epoch is a conflict", async () => {
    const { clock, cp, o } = await setup();
    const l1 = (await cp.claim({ agentId: "x", goalId: o.goalId, capabilities: ["phone"], ttlMs: 1000 }))!;
    expect(l1).toMatchObject({ todoId: "a", epoch: 1 });
    expect(await cp.claim({ agentId: "y", goalId: o.goalId, capabilities: ["phone"], todoId: "a", ttlMs: 1000 })).toBeNull();
    expect(await cp.claim({ agentId: "y", goalId: o.goalId, capabilities: [], ttlMs: 1000 })).toBeNull();
    clock.advance(1001);
    const l2 = (await cp.claim({ agentId: "y", goalId: o.goalId, capabilities: ["phone"], todoId: "a", ttlMs: 1000 }))!;
    expect(l2.epoch).toBe(2);
    await expect(cp.appendEvidence({ idempotencyKey: "e", kind: "action", goalId: o.goalId, todoId: "a", lease: l1, summary: "late" })).rejects.toBeInstanceOf(ControlPlaneConflict);
    await expect(cp.renewLease(l1, 1000)).rejects.toBeInstanceOf(ControlPlaneConflict);
    expect((await cp.renewLease(l2, 5000)).expiresAt).toBe(clock.now() + 5000);
  });

  it("evidence and spends are idempotent; blobs are content-addressed", async () => {
    const { cp, o } = await setup();
    const blob = { bytes: new Uint8Array([1, 2, 3]), mime: "image/png" };
    const a = await cp.appendEvidence({ idempotencyKey: "k", kind: "observation", goalId: o.goalId, summary: "s", blob });
    const b = await cp.appendEvidence({ idempotencyKey: "k", kind: "observation", goalId: o.goalId, summary: "other" });
    expect(b).toEqual({ evidenceId: a.evidenceId, duplicate: true });
    await cp.appendEvidence({ idempotencyKey: "k2", kind: "observation", goalId: o.goalId, summary: "s", blob });
    expect(cp.blobs.size).toBe(1);
    expect([...cp.blobs.keys()][0]).toBe("039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81");
    cp.setQuota(o.goalId, { steps: 2 });
    await cp.spend("s1", { agentId: "x", goalId: o.goalId, steps: 1, tokens: 10, microUsd: 5 });
    expect(await cp.spend("s1", { agentId: "x", goalId: o.goalId, steps: 1, tokens: 10, microUsd: 5 })).toEqual({ spent: false, duplicate: true });
    expect(await cp.shouldRun({ agentId: "x", goalId: o.goalId })).toEqual({ run: true });
    await cp.spend("s2", { agentId: "x", goalId: o.goalId, steps: 1, tokens: 10, microUsd: 5 });
    expect(await cp.shouldRun({ agentId: "x", goalId: o.goalId })).toMatchObject({ run: false, reason: "exhausted" });
  });

  it("replans by insert, reorder and supersede with a reason — never delete", async () => {
    const { cp, o } = await setup();
    const after = await cp.replanTodos({ goalId: o.goalId, idempotencyKey: "r", reason: "stuck", ops: [{ op: "supersede", todoId: "a", reason: "scroll_streak", replacements: [{ todoId: "a2", title: "A via menu", kind: "executor" }] }, { op: "reorder", todoIds: ["b", "a2"] }] });
    expect(after.map((t) => `${t.todoId}:${t.status}`)).toEqual(["b:todo", "a2:todo", "a:superseded"]);
    expect(after.find((t) => t.todoId === "a")).toMatchObject({ supersedeReason: "scroll_streak", supersededBy: ["a2"] });
    expect(await cp.replanTodos({ goalId: o.goalId, idempotencyKey: "r", reason: "again", ops: [] })).toEqual(after);
  });

  it("gates: the todo waits with the question until the decision; waiting resolves with it", async () => {
    const { cp, o } = await setup();
    const { gateId } = await cp.openGate({ idempotencyKey: "g", goalId: o.goalId, todoId: "a", question: "Pay $21?", options: ["approve", "deny"], evidenceIds: [], answerRoles: ["owner"] });
    expect((await cp.openGate({ idempotencyKey: "g", goalId: o.goalId, todoId: "a", question: "dup", options: [], evidenceIds: [], answerRoles: [] })).gateId).toBe(gateId);
    expect(cp.todos.get("a")).toMatchObject({ status: "waiting" });
    expect(await cp.shouldRun({ agentId: "x", goalId: o.goalId, todoId: "a" })).toMatchObject({ run: false, reason: "gate_waiting" });
    const waiting = cp.waitForGate(gateId);
    cp.resolveGate(gateId, { decision: "deny", rationale: "no" });
    expect(await waiting).toEqual({ decision: "deny", rationale: "no" });
    expect(cp.todos.get("a")!.status).toBe("in_progress");
  });

  it("checkpoints round-trip as copies", async () => {
    const { cp } = await setup();
    const state = { node: "executor", n: 1 };
    await cp.saveCheckpoint("r1", state);
    state.n = 2;
    expect(await cp.loadCheckpoint("r1")).toEqual({ node: "executor", n: 1 });
    expect(await cp.loadCheckpoint("missing")).toBeNull();
  });
});
