// Policy rules per workspace through the API: admins save versions, every member and agent of the workspace reads
// the one in force, another workspace's rules stay invisible, and the shape is the agent's policy schema.
import { describe, expect, it } from "vitest";
import { seedMember, seedWorkspace } from "@phoneloop/state/testing";
import type { Principal } from "./auth/principal.ts";
import { useCallers } from "./caller-testing.ts";

const callers = useCallers();
const { as, failure } = callers;

async function team(name: string) {
  const { workspace, admin } = await seedWorkspace(callers.t().db, name);
  const viewer = await seedMember(callers.t().db, "viewer", workspace.id);
  const member = (userId: string, role: "admin" | "viewer"): Principal => ({ kind: "member", userId, workspaceId: workspace.id, role, name: role, email: `${userId}@example.test` });
  return { ws: workspace.id, admin: as(member(admin.id, "admin")), viewer: as(member(viewer.userId, "viewer")), adminId: admin.id };
}

describe("policy rules through the API", () => {
  it("a viewer cannot save (403) but reads; an admin saves new versions; an agent reads the one in force", async () => {
    const a = await team("Policy A");
    expect(await a.viewer.policy.get({})).toBeNull();
    const refused = await failure(a.viewer.policy.save({ rules: { words: { money: ["zahlen"] } } }));
    expect(refused?.code).toBe("FORBIDDEN");
    expect(refused?.message).toMatch(/"admin" permission.*your role here is viewer/);
    expect(await callers.t().db.policyRules.count({ where: { workspaceId: a.ws } })).toBe(0);

    expect(await a.admin.policy.save({ rules: { words: { money: ["zahlen"] } } })).toMatchObject({ version: 1, createdBy: a.adminId });
    expect(await a.admin.policy.save({ rules: { words: { money: ["zahlen"] }, alwaysAsk: [{ app: "com.acme.hr", label: "Approve leave" }] } })).toMatchObject({ version: 2 });
    expect(await a.viewer.policy.get({})).toMatchObject({ version: 2, rules: { alwaysAsk: [{ app: "com.acme.hr", label: "Approve leave" }] } });
    const agent = as({ kind: "agent", agentId: null, tokenId: "tok_1", workspaceId: a.ws, issuedBy: a.adminId, issuerRole: "admin", tab: false });
    expect((await agent.policy.get({}))?.version).toBe(2);
    expect((await failure(agent.policy.save({ rules: {} })))?.code).toBe("FORBIDDEN");
  });

  it("another workspace's rules are invisible and its versions count on their own", async () => {
    const a = await team("Policy B1");
    const b = await team("Policy B2");
    await a.admin.policy.save({ rules: { words: { destructive: ["ausradieren"] } } });
    await a.admin.policy.save({ rules: { words: { destructive: ["ausradieren", "vaporize"] } } });
    expect(await b.viewer.policy.get({})).toBeNull();
    expect((await b.admin.policy.save({ rules: { neverAsk: [{ label: "Follow" }] } })).version).toBe(1);
    expect(await b.viewer.policy.get({})).toMatchObject({ version: 1, rules: { neverAsk: [{ label: "Follow" }] } });
    expect((await a.viewer.policy.get({}))?.version).toBe(2);
  });

  it("rules the agent's policy schema refuses are a 400 naming the field, and nothing is saved", async () => {
    const a = await team("Policy C");
    const bad = await failure(a.admin.policy.save({ rules: { words: { cash: ["x"] } } }));
    expect(bad?.code).toBe("BAD_REQUEST");
    expect(bad?.message).toMatch(/words.*cash.*Fix the listed fields and save again/);
    expect((await failure(a.admin.policy.save({ rules: { version: "mine" } })))?.code).toBe("BAD_REQUEST");
    expect((await failure(a.admin.policy.save({ rules: ["money"] as unknown as Record<string, unknown> })))?.code).toBe("BAD_REQUEST");
    expect(await a.admin.policy.get({})).toBeNull();
  });
});
