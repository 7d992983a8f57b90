// Approval rules through the API: an admin sets a category's rule (others are refused); a money gate the agent
// opens needs two distinct approvers and stays open after one; the run's starter cannot be the second when the
// rule says so; the reaper's pass denies or escalates an expired gate as configured, and an escalated gate is an
// admin's alone; a batch decision decides the gates of one category on one target across runs.
import { describe, expect, it } from "vitest";
import { seedMember, seedWorkspace, manualClock } from "@phoneloop/state/testing";
import type { Role } from "@phoneloop/state";
import type { Principal } from "./auth/principal.ts";
import { useCallers } from "./caller-testing.ts";
import { startReaper } from "./reaper.ts";

const callers = useCallers();
const { as, failure } = callers;

async function team(name: string) {
  const db = callers.t().db;
  const { workspace, admin } = await seedWorkspace(db, name);
  const [starter, bea, cy, viewer] = await Promise.all([
    seedMember(db, "operator", workspace.id, "Sam Starter"),
    seedMember(db, "approver", workspace.id, "Bea"),
    seedMember(db, "approver", workspace.id, "Cy"),
    seedMember(db, "viewer", workspace.id, "Vi"),
  ]);
  const member = (userId: string, role: Role): Principal => ({ kind: "member", userId, workspaceId: workspace.id, role, name: userId, email: `${userId}@example.test` });
  const agent = as({ kind: "agent", agentId: null, tokenId: `tok_${workspace.id}`, workspaceId: workspace.id, issuedBy: starter.userId, issuerRole: "operator", tab: false });
  return {
    ws: workspace.id,
    adminId: admin.id,
    ids: { starter: starter.userId, bea: bea.userId, cy: cy.userId },
    admin: as(member(admin.id, "admin")),
    starter: as(member(starter.userId, "operator")),
    bea: as(member(bea.userId, "approver")),
    cy: as(member(cy.userId, "approver")),
    viewer: as(member(viewer.userId, "viewer")),
    agent,
  };
}
type Team = Awaited<ReturnType<typeof team>>;

/** The starter's goal and the agent's money gate on it, as the runtime opens one for a Pay button in the shop app. */
async function moneyGate(a: Team, target = "pay_button") {
  const goal = await a.starter.goal.create({ title: "Buy the printer paper", objective: "Order two packs of A4 paper in the shop app." });
  const { gate } = await a.agent.gate.open({
    goalId: goal.id,
    question: "Tap Pay 21.00 USD in the shop app?",
    options: ["approve", "deny"],
    kind: "approval",
    tier: "high_risk",
    action: { type: "click", element: "7" },
    policy: { ruleId: "pane.amount", evidence: ['"Pay" confirms a screen showing 21.00 USD'], policyVersion: "builtin-test", kind: "money", approvalKey: `money|com.shop|${target}` },
  });
  return gate;
}

const rule = { category: "money" as const, approvalsNeeded: 2, starterMayApprove: false, ttlMs: null, afterExpiry: "deny" as const };

describe("approval rules through the API", () => {
  it("only an admin reads and sets them; the defaults are today's behaviour", async () => {
    const a = await team("Rules A");
    expect((await failure(a.bea.approvalRule.set(rule)))?.code).toBe("FORBIDDEN");
    expect((await failure(a.viewer.approvalRule.list({})))?.code).toBe("FORBIDDEN");
    expect((await failure(a.agent.approvalRule.list({})))?.code).toBe("FORBIDDEN");
    expect((await a.admin.approvalRule.list({})).every((r) => r.approvalsNeeded === 1 && r.starterMayApprove && r.ttlMs === null)).toBe(true);
    expect(await a.admin.approvalRule.set(rule)).toMatchObject({ ...rule, updatedBy: a.adminId });
    const bad = await failure(a.admin.approvalRule.set({ ...rule, afterExpiry: "escalate" }));
    expect(bad?.code).toBe("BAD_REQUEST");
    expect(bad?.message).toContain("needs a time-to-live");
    // Another workspace keeps its defaults.
    const b = await team("Rules B");
    expect((await b.admin.approvalRule.list({}))[0]).toMatchObject({ category: "money", approvalsNeeded: 1 });
  });

  it("a money gate needing 2 approvers stays open after one; the run's starter cannot be the second; a second approver resolves it", async () => {
    const a = await team("Rules C");
    await a.admin.approvalRule.set(rule);
    const gate = await moneyGate(a);
    expect((await a.bea.gate.resolve({ gateId: gate.id, decision: "approve", rationale: "the paper is on the budget" })).status).toBe("open");
    // The same person again counts once.
    expect((await a.bea.gate.resolve({ gateId: gate.id, decision: "approve", rationale: "again" })).status).toBe("open");
    const open = await a.viewer.gate.get({ gateId: gate.id });
    expect(open).toMatchObject({ status: "open", approvals: { category: "money", approvalsNeeded: 2, approvedBy: [a.ids.bea] } });
    const queue = await a.viewer.board.attention({});
    expect(queue.items.find((x) => x.kind === "gate_waiting" && x.gateId === gate.id)).toMatchObject({ approvals: { approvedBy: [a.ids.bea], approvalsNeeded: 2 } });
    const starterAsApprover = as({ kind: "member", userId: a.ids.starter, workspaceId: a.ws, role: "approver", name: "Sam", email: "sam@example.test" });
    await callers.t().db.membership.update({ where: { workspaceId_userId: { workspaceId: a.ws, userId: a.ids.starter } }, data: { role: "approver" } });
    const refused = await failure(starterAsApprover.gate.resolve({ gateId: gate.id, decision: "approve", rationale: "mine" }));
    expect(refused?.code).toBe("FORBIDDEN");
    expect(refused?.message).toContain("someone else's approval");
    expect(await a.cy.gate.resolve({ gateId: gate.id, decision: "approve", rationale: "ok" })).toMatchObject({ status: "approved", resolvedBy: a.ids.cy });
    expect(await a.agent.gate.get({ gateId: gate.id })).toMatchObject({ status: "approved", approvals: { approvedBy: [a.ids.bea, a.ids.cy] } });
  });

  it("two approvers at the same moment resolve the gate exactly once", async () => {
    const a = await team("Rules D");
    await a.admin.approvalRule.set({ ...rule, approvalsNeeded: 2 });
    const gate = await moneyGate(a);
    const both = await Promise.all([a.bea.gate.resolve({ gateId: gate.id, decision: "approve", rationale: "b" }), a.cy.gate.resolve({ gateId: gate.id, decision: "approve", rationale: "c" })]);
    expect(both.map((g) => g.status).sort()).toEqual(["approved", "open"]);
    expect(await callers.t().db.event.count({ where: { subjectId: gate.id, operator: "gate.resolve" } })).toBe(1);
  });

  it("the reaper's pass denies an expired gate, or escalates it to the admins, as configured", async () => {
    const a = await team("Rules E");
    const later = { clock: manualClock(new Date(Date.now() + 2 * 60 * 60 * 1000)) };
    const reaper = startReaper(callers.t().db, { intervalMs: 3_600_000, agentStaleMs: 30_000, ctx: later });
    try {
      await a.admin.approvalRule.set({ ...rule, approvalsNeeded: 1, ttlMs: 60_000, afterExpiry: "deny" });
      const denied = await moneyGate(a);
      expect((await reaper.tick()).expiredGateIds).toContain(denied.id);
      expect((await a.viewer.gate.get({ gateId: denied.id })).status).toBe("expired");

      await a.admin.approvalRule.set({ ...rule, approvalsNeeded: 1, ttlMs: 60_000, afterExpiry: "escalate" });
      const escalated = await moneyGate(a, "tip_button");
      expect((await reaper.tick()).expiredGateIds).not.toContain(escalated.id);
      const detail = await a.viewer.gate.get({ gateId: escalated.id });
      expect(detail).toMatchObject({ status: "open", answerRoles: ["admin"], approvals: { expiresAt: null } });
      expect(detail.approvals.escalatedAt).not.toBeNull();
      const notAdmin = await failure(a.bea.gate.resolve({ gateId: escalated.id, decision: "approve", rationale: "late" }));
      expect(notAdmin?.code).toBe("FORBIDDEN");
      expect(notAdmin?.message).toContain("escalated to the admins");
      expect(await a.admin.gate.resolve({ gateId: escalated.id, decision: "deny", rationale: "too late for this order" })).toMatchObject({ status: "denied" });
    } finally {
      await reaper.close();
    }
  });

  it("a batch decision decides the same-category, same-target gates of several runs; a viewer cannot", async () => {
    const a = await team("Rules F");
    const [g1, g2] = [await moneyGate(a), await moneyGate(a)];
    const other = await moneyGate(a, "tip_button");
    const batch = (await a.viewer.gate.get({ gateId: g1.id })).approvals.batchGateIds;
    expect(batch).toEqual([g1.id, g2.id]);
    expect((await failure(a.viewer.gate.decideBatch({ gateIds: batch, decision: "approve", rationale: "r" })))?.code).toBe("FORBIDDEN");
    expect((await failure(a.bea.gate.decideBatch({ gateIds: [g1.id, other.id], decision: "approve", rationale: "r" })))?.code).toBe("BAD_REQUEST");
    expect(await a.bea.gate.decideBatch({ gateIds: batch, decision: "approve", rationale: "the usual paper order" })).toEqual([
      { gateId: g1.id, status: "approved", error: null },
      { gateId: g2.id, status: "approved", error: null },
    ]);
    expect((await a.viewer.gate.get({ gateId: other.id })).status).toBe("open");
  });
});
