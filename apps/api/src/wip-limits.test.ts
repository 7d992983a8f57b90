// WIP limits through the API: an admin sets them, an operator or an agent cannot (403); values out of range are
// INVALID_INPUT naming the field; an agent's claim past the per-phone limit is refused with wip_limit; the board
// shows the lane's count and limit.
import { describe, expect, it } from "vitest";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { seedAgent, seedMember, seedTodos, seedWorkspace } from "@phoneloop/state/testing";
import type { Role } from "@phoneloop/state";
import type { Principal } from "./auth/principal.ts";
import { useCallers } from "./caller-testing.ts";

const callers = useCallers();
const { as, failure } = callers;

async function team(name: string) {
  const db = callers.t().db;
  const { workspace, admin } = await seedWorkspace(db, name);
  const operator = await seedMember(db, "operator", workspace.id, "Olu Operator");
  const member = (userId: string, role: Role): Principal => ({ kind: "member", userId, workspaceId: workspace.id, role, name: userId, email: `${userId}@example.test` });
  const phone = await seedAgent(db, { workspaceId: workspace.id, name: "Pixel 7" });
  const agent = as({ kind: "agent", agentId: phone.id, tokenId: `tok_${workspace.id}`, workspaceId: workspace.id, issuedBy: operator.userId, issuerRole: "operator", tab: false });
  return { ws: workspace.id, adminId: admin.id, phone, admin: as(member(admin.id, "admin")), operator: as(member(operator.userId, "operator")), agent };
}

const limits = { claimed: null, running: 2, validating: null, perAgent: 1 };

describe("WIP limits through the API", () => {
  it("an admin sets them; an operator or an agent is refused with 403; every member reads them", async () => {
    const a = await team("WIP A");
    for (const refused of [await failure(a.operator.wipLimits.set(limits)), await failure(a.agent.wipLimits.set(limits))]) {
      expect(refused?.code).toBe("FORBIDDEN");
      expect(getHTTPStatusCodeFromError(refused!)).toBe(403);
    }
    expect(await a.operator.wipLimits.get({})).toMatchObject({ running: null, perAgent: null, updatedBy: null });
    expect(await a.admin.wipLimits.set(limits)).toMatchObject({ ...limits, updatedBy: a.adminId });
    expect(await a.operator.wipLimits.get({})).toMatchObject(limits);
    // Another workspace keeps none.
    const b = await team("WIP B");
    expect((await b.admin.wipLimits.get({})).running).toBeNull();
  });

  it("a value out of range is INVALID_INPUT naming the field, and saves nothing", async () => {
    const a = await team("WIP C");
    for (const [field, value] of [["running", 0], ["perAgent", 2.5], ["validating", 1001]] as const) {
      const bad = await failure(a.admin.wipLimits.set({ ...limits, [field]: value }));
      expect(bad?.code).toBe("BAD_REQUEST");
      expect((bad?.cause as { code?: string } | undefined)?.code).toBe("INVALID_INPUT");
      expect(bad?.message).toContain(field);
    }
    expect((await a.admin.wipLimits.get({})).updatedBy).toBeNull();
  });

  it("an agent's claim past the per-phone limit is refused with wip_limit; the board shows the lane's count and limit", async () => {
    const a = await team("WIP D");
    await a.admin.wipLimits.set(limits);
    const goals = [];
    for (const title of ["Turn off Wi-Fi", "Turn on Bluetooth"]) {
      const goal = await a.operator.goal.create({ title, objective: `${title} in Settings.` });
      await seedTodos(callers.t().db, goal.id, 1);
      goals.push(goal);
    }
    const first = await a.agent.todo.claimNext({ agentId: a.phone.id });
    expect(first.claimed).toBe(true);
    const second = await a.agent.todo.claimNext({ agentId: a.phone.id });
    expect(second).toMatchObject({ claimed: false, refusal: "wip_limit" });
    expect(!second.claimed && second.reason).toContain("one phone may hold 1 at once");
    const board = await a.operator.board.get({ goalId: goals[0]!.id });
    expect(board.lanes.find((l) => l.state === "claimed")?.wip).toMatchObject({ count: 1, limit: null });
    expect(board.lanes.find((l) => l.state === "running")?.wip).toMatchObject({ count: 0, limit: 2 });
    expect(board.wip.agents).toEqual([{ agentId: a.phone.id, name: "Pixel 7", count: 1, limit: 1, atLimit: true }]);
  });
});
