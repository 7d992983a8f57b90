import { describe, expect, it } from "vitest";
import { manualClock, seedGate, seedGoal, seedMember, useTestDatabase } from "../../testing/index.ts";
import type { StateError } from "../../domain/errors.ts";
import { gateCategoryOf, gateTargetOf } from "../../domain/gate.ts";
import { approvalRules, setApprovalRule } from "../approval-rule/approval-rules.ts";
import { resolveGate } from "./resolve-gate.ts";
import { expireGates } from "./expire-gates.ts";
import { decideBatch } from "./decide-batch.ts";
import { gateDetail } from "../../projections/gate-detail.ts";
import { attentionQueue } from "../../projections/attention-queue.ts";
import type { OperatorContext } from "../operator.ts";

const t = useTestDatabase();

/** An approval the checkpoint opened for a payment in the shop app (what the runtime sends). */
const payment = (app = "com.shop", target = "pay_button") => ({
  question: "Tap Pay 21.00 USD in the shop app?",
  options: ["approve", "deny"],
  kind: "approval" as const,
  tier: "high_risk" as const,
  action: { type: "click", element: "7" },
  policy: { ruleId: "pane.amount", evidence: ['"Pay" confirms a screen showing 21.00 USD'], policyVersion: "builtin-test", kind: "money", approvalKey: `money|${app}|${target}` },
});

async function workspaceWithRule(rule: Partial<Parameters<typeof setApprovalRule>[1]> = {}, ctx?: OperatorContext) {
  const admin = await seedMember(t.db, "admin", undefined, "Ada Admin");
  const starter = await seedMember(t.db, "approver", admin.workspaceId, "Sam Starter");
  const [bea, cy] = await Promise.all([seedMember(t.db, "approver", admin.workspaceId, "Bea"), seedMember(t.db, "approver", admin.workspaceId, "Cy")]);
  await setApprovalRule(t.db, { workspaceId: admin.workspaceId, category: "money", approvalsNeeded: 2, starterMayApprove: false, ttlMs: null, afterExpiry: "deny", ...rule }, { actor: admin.userId, ...ctx });
  const goal = await seedGoal(t.db, { workspaceId: admin.workspaceId }, { actor: starter.userId, ...ctx });
  return { admin, starter, bea, cy, goal };
}

const decide = (gateId: string, userId: string, decision: "approve" | "deny" = "approve", ctx?: OperatorContext) =>
  resolveGate(t.db, { gateId, userId, decision, rationale: decision === "approve" ? "within the budget" : "not this one" }, ctx);

describe("approval categories and targets", () => {
  it("come from the policy's decision in one place: its kind, else its rule, else other; a question is other", () => {
    expect(gateCategoryOf({ kind: "approval", policy: { ruleId: "pane.inherit", kind: "destructive" } })).toBe("destructive");
    expect(gateCategoryOf({ kind: "approval", policy: { ruleId: "app.money-confirm" } })).toBe("money");
    expect(gateCategoryOf({ kind: "approval", policy: { ruleId: "pane.inherit", kind: "communication" } })).toBe("other");
    expect(gateCategoryOf({ kind: "question", policy: { ruleId: "action.ask_user", kind: "money" } })).toBe("other");
    expect(gateCategoryOf({ kind: "approval", policy: null })).toBe("other");
    expect(gateTargetOf({ kind: "approval", policy: { approvalKey: "money|com.shop|pay_button" } })).toBe("com.shop|pay_button");
    expect(gateTargetOf({ kind: "question", policy: { approvalKey: "question" } })).toBeNull();
  });

  it("a workspace without rules keeps today's behaviour; admins' rules are listed per category", async () => {
    const admin = await seedMember(t.db, "admin");
    const rules = await approvalRules(t.db, { workspaceId: admin.workspaceId });
    expect(rules.map((r) => [r.category, r.approvalsNeeded, r.starterMayApprove, r.ttlMs, r.afterExpiry])).toEqual([
      ["money", 1, true, null, "deny"],
      ["destructive", 1, true, null, "deny"],
      ["credentials", 1, true, null, "deny"],
      ["permission", 1, true, null, "deny"],
      ["other", 1, true, null, "deny"],
    ]);
    const bad = await setApprovalRule(t.db, { workspaceId: admin.workspaceId, category: "money", approvalsNeeded: 2, starterMayApprove: true, ttlMs: null, afterExpiry: "escalate" }).catch((e: StateError) => e);
    expect((bad as StateError).message).toContain("needs a time-to-live");
    await setApprovalRule(t.db, { workspaceId: admin.workspaceId, category: "money", approvalsNeeded: 2, starterMayApprove: false, ttlMs: 600_000, afterExpiry: "escalate" }, { actor: admin.userId });
    expect((await approvalRules(t.db, { workspaceId: admin.workspaceId }))[0]).toMatchObject({ category: "money", approvalsNeeded: 2, starterMayApprove: false, ttlMs: 600_000, afterExpiry: "escalate", updatedBy: admin.userId });
    expect(await t.db.event.count({ where: { workspaceId: admin.workspaceId, operator: "approvalRule.set" } })).toBe(1);
    // A one-approver gate (another category) resolves on its first approval, by anyone who may answer.
    const goal = await seedGoal(t.db, { workspaceId: admin.workspaceId }, { actor: admin.userId });
    const gate = await seedGate(t.db, goal.id, { ...payment(), policy: { ...payment().policy, kind: "destructive", approvalKey: "destructive|com.notes|delete" } });
    expect(gate).toMatchObject({ category: "destructive", approvalsNeeded: 1 });
    expect((await decide(gate.id, admin.userId)).status).toBe("approved");
  });
});

describe("a money gate needing 2 approvers", () => {
  it("stays open after one approval and resolves on the second; the Attention page and the gate say the same", async () => {
    const { goal, bea, cy } = await workspaceWithRule();
    const gate = await seedGate(t.db, goal.id, payment());
    expect(gate).toMatchObject({ category: "money", target: "com.shop|pay_button", approvalsNeeded: 2, starterMayApprove: false });
    expect((await decide(gate.id, bea.userId)).status).toBe("open");
    const detail = await gateDetail(t.db, { gateId: gate.id });
    expect(detail.status).toBe("open");
    expect(detail.approvals).toMatchObject({ approvalsNeeded: 2, approvedBy: [bea.userId], decisions: [{ userId: bea.userId, decision: "approve", rationale: "within the budget" }] });
    const queue = await attentionQueue(t.db, { workspaceId: goal.workspaceId, goalId: goal.id });
    const item = queue.items.find((x) => x.kind === "gate_waiting" && x.gateId === gate.id);
    expect(item && item.kind === "gate_waiting" ? item.approvals : null).toEqual(detail.approvals);
    expect(await t.db.event.count({ where: { subjectId: gate.id, operator: "gate.decide" } })).toBe(1);
    expect(await t.db.event.count({ where: { subjectId: gate.id, operator: "gate.resolve" } })).toBe(0);
    const done = await decide(gate.id, cy.userId);
    expect(done).toMatchObject({ status: "approved", resolvedBy: cy.userId });
    const ev = await t.db.event.findFirstOrThrow({ where: { subjectId: gate.id, operator: "gate.resolve" } });
    expect(ev.payload).toMatchObject({ approvedBy: [bea.userId, cy.userId], approvalsNeeded: 2 });
  });

  it("the same person approving twice counts once; a deny resolves it at once", async () => {
    const { goal, bea, cy } = await workspaceWithRule();
    const gate = await seedGate(t.db, goal.id, payment());
    await decide(gate.id, bea.userId);
    expect((await decide(gate.id, bea.userId)).status).toBe("open");
    expect(await t.db.gateDecision.count({ where: { gateId: gate.id } })).toBe(1);
    expect(await t.db.event.count({ where: { subjectId: gate.id, operator: "gate.decide" } })).toBe(1);
    const changed = await decide(gate.id, bea.userId, "deny").catch((e: StateError) => e);
    expect((changed as StateError).code).toBe("CONFLICT");
    expect((changed as StateError).message).toContain("one decision per person");
    expect(await decide(gate.id, cy.userId, "deny")).toMatchObject({ status: "denied", resolvedBy: cy.userId });
  });

  it("the run's starter cannot be the second approver when the rule says so (denying stays theirs)", async () => {
    const { goal, starter, bea } = await workspaceWithRule();
    const gate = await seedGate(t.db, goal.id, payment());
    await decide(gate.id, bea.userId);
    const e = await decide(gate.id, starter.userId).catch((x: StateError) => x);
    expect((e as StateError).code).toBe("FORBIDDEN");
    expect((e as StateError).message).toContain("someone else's approval");
    expect((await t.db.gate.findUniqueOrThrow({ where: { id: gate.id } })).status).toBe("open");
    expect(await decide(gate.id, starter.userId, "deny")).toMatchObject({ status: "denied" });
    // With the starter allowed, the same two approvals resolve it.
    const allowed = await workspaceWithRule({ starterMayApprove: true });
    const g2 = await seedGate(t.db, allowed.goal.id, payment());
    await decide(g2.id, allowed.bea.userId);
    expect((await decide(g2.id, allowed.starter.userId)).status).toBe("approved");
  });

  it("two people approving at the same moment resolve the gate exactly once", async () => {
    for (let round = 0; round < 5; round++) {
      const { goal, bea, cy } = await workspaceWithRule();
      const gate = await seedGate(t.db, goal.id, payment());
      const results = await Promise.allSettled([decide(gate.id, bea.userId), decide(gate.id, cy.userId)]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
      const statuses = results.map((r) => (r as PromiseFulfilledResult<{ status: string }>).value.status).sort();
      expect(statuses).toEqual(["approved", "open"]);
      expect(await t.db.event.count({ where: { subjectId: gate.id, operator: "gate.resolve" } })).toBe(1);
      expect(await t.db.event.count({ where: { subjectId: gate.id, operator: "gate.decide" } })).toBe(1);
    }
  });
});

describe("an expired gate", () => {
  it("is denied (expires) when its rule says deny", async () => {
    const clock = manualClock(new Date("2026-12-02T09:00:00Z"));
    const { goal } = await workspaceWithRule({ ttlMs: 600_000, afterExpiry: "deny" }, { clock });
    const gate = await seedGate(t.db, goal.id, payment(), { clock });
    expect(gate.expiresAt?.toISOString()).toBe("2026-12-02T09:10:00.000Z");
    clock.advance(600_000);
    expect(await expireGates(t.db, {}, { clock, actor: "reaper" })).toEqual({ gateIds: [gate.id], escalatedGateIds: [] });
    expect((await gateDetail(t.db, { gateId: gate.id })).status).toBe("expired");
  });

  it("escalates to the admins when its rule says so: only an admin answers it then, and the gate says so", async () => {
    const clock = manualClock(new Date("2026-12-02T09:00:00Z"));
    const { goal, admin, bea } = await workspaceWithRule({ ttlMs: 600_000, afterExpiry: "escalate", approvalsNeeded: 1 }, { clock });
    const gate = await seedGate(t.db, goal.id, payment(), { clock });
    clock.advance(600_000);
    expect(await expireGates(t.db, {}, { clock, actor: "reaper" })).toEqual({ gateIds: [], escalatedGateIds: [gate.id] });
    const detail = await gateDetail(t.db, { gateId: gate.id });
    expect(detail).toMatchObject({ status: "open", answerRoles: ["admin"], approvals: { escalatedAt: new Date("2026-12-02T09:10:00Z"), expiresAt: null } });
    expect(await t.db.event.count({ where: { subjectId: gate.id, operator: "gate.escalate" } })).toBe(1);
    // It does not expire or escalate again.
    clock.advance(600_000);
    expect(await expireGates(t.db, {}, { clock })).toEqual({ gateIds: [], escalatedGateIds: [] });
    const e = await decide(gate.id, bea.userId, "approve", { clock }).catch((x: StateError) => x);
    expect((e as StateError).code).toBe("FORBIDDEN");
    expect((e as StateError).message).toContain("escalated to the admins");
    expect(await decide(gate.id, admin.userId, "approve", { clock })).toMatchObject({ status: "approved", resolvedBy: admin.userId });
  });
});

describe("a batch decision", () => {
  it("decides the open gates of one category on one target across runs; another target is refused", async () => {
    const { goal, bea, cy } = await workspaceWithRule();
    const other = await seedGoal(t.db, { workspaceId: goal.workspaceId });
    const [a, b, c] = [await seedGate(t.db, goal.id, payment()), await seedGate(t.db, other.id, payment()), await seedGate(t.db, other.id, payment("com.shop", "tip_button"))];
    const detail = await gateDetail(t.db, { gateId: a.id });
    expect(detail.approvals.batchGateIds).toEqual([a.id, b.id]);
    const refused = await decideBatch(t.db, { userId: bea.userId, gateIds: [a.id, c.id], decision: "approve", rationale: "same shop" }).catch((e: StateError) => e);
    expect((refused as StateError).code).toBe("INVALID_INPUT");
    expect(await decideBatch(t.db, { userId: bea.userId, gateIds: [a.id, b.id], decision: "approve", rationale: "same shop" })).toEqual([
      { gateId: a.id, status: "open", error: null },
      { gateId: b.id, status: "open", error: null },
    ]);
    await decide(b.id, cy.userId);
    // The second batch: one gate already resolved is reported, the other decided.
    expect(await decideBatch(t.db, { userId: cy.userId, gateIds: [a.id, b.id], decision: "approve", rationale: "same shop" })).toEqual([
      { gateId: a.id, status: "approved", error: null },
      { gateId: b.id, status: null, error: expect.stringContaining("already approved") },
    ]);
    expect((await t.db.gate.findUniqueOrThrow({ where: { id: c.id } })).status).toBe("open");
  });
});
