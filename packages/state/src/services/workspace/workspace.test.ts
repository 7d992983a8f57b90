import { describe, expect, it } from "vitest";
import { useTestDatabase, manualClock, rid, seedAgent, seedGoal, seedMember, seedTodos, seedUser, seedWorkspace } from "../../testing/index.ts";
import type { StateError } from "../../domain/errors.ts";
import { claimNext } from "../todo/claim-next.ts";
import { appendEvidence } from "../evidence/append-evidence.ts";
import { spendQuota } from "../quota/spend-quota.ts";
import { registerAgent } from "../agent/register-agent.ts";
import { putBlob } from "../blob/put-blob.ts";
import { getBlob } from "../blob/read-blob.ts";
import { goalList } from "../../projections/goal-list.ts";
import { addMember, listMembers, removeMember, setMemberRole } from "./members.ts";
import { agentTokenStanding, issueAgentToken, LAST_USED_RESOLUTION_MS, listAgentTokens, reassignAgentToken, revokeAgentToken, verifyAgentToken } from "./agent-tokens.ts";
import { TAB_TOKEN_IDLE_MS } from "../../domain/agent-tokens.ts";
import { scopeToWorkspace } from "./scope.ts";

const t = useTestDatabase();

const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);

describe("workspaces and members", () => {
  it("a workspace starts with its admin; members are added once; the last admin stays admin", async () => {
    const { workspace, admin } = await seedWorkspace(t.db, "Team");
    expect((await listMembers(t.db, { workspaceId: workspace.id })).items.map((m) => [m.userId, m.role])).toEqual([[admin.id, "admin"]]);
    const sam = await seedUser(t.db, "Sam");
    await addMember(t.db, { workspaceId: workspace.id, userId: sam.id, role: "viewer" });
    expect((await err(addMember(t.db, { workspaceId: workspace.id, userId: sam.id, role: "operator" })))?.code).toBe("CONFLICT");
    expect((await err(setMemberRole(t.db, { workspaceId: workspace.id, userId: admin.id, role: "viewer" })))?.code).toBe("PRECONDITION_FAILED");
    expect((await err(removeMember(t.db, { workspaceId: workspace.id, userId: admin.id })))?.code).toBe("PRECONDITION_FAILED");
    await setMemberRole(t.db, { workspaceId: workspace.id, userId: sam.id, role: "admin" });
    await setMemberRole(t.db, { workspaceId: workspace.id, userId: admin.id, role: "approver" });
    const other = await seedWorkspace(t.db, "Other");
    expect((await err(setMemberRole(t.db, { workspaceId: other.workspace.id, userId: sam.id, role: "viewer" })))?.code).toBe("NOT_FOUND");
    const events = await t.db.event.findMany({ where: { workspaceId: workspace.id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.operator)).toEqual(["workspace.create", "member.add", "member.setRole", "member.setRole"]);
  });

  it("lists and claims see only their workspace", async () => {
    const a = await seedWorkspace(t.db, "A");
    const b = await seedWorkspace(t.db, "B");
    const goalA = await seedGoal(t.db, { workspaceId: a.workspace.id });
    await seedTodos(t.db, goalA.id, 1);
    expect((await goalList(t.db, { workspaceId: b.workspace.id })).items.map((g) => g.id)).not.toContain(goalA.id);
    const agentB = await seedAgent(t.db, { workspaceId: b.workspace.id });
    expect(await claimNext(t.db, { agentId: agentB.id })).toMatchObject({ claimed: false });
    const agentA = await seedAgent(t.db, { workspaceId: a.workspace.id });
    expect(await claimNext(t.db, { agentId: agentA.id, goalId: goalA.id })).toMatchObject({ claimed: true });
  });

  it("scopeToWorkspace: a row of another workspace is NOT_FOUND, as is a blob it never stored", async () => {
    const a = await seedWorkspace(t.db, "A");
    const b = await seedWorkspace(t.db, "B");
    const goalA = await seedGoal(t.db, { workspaceId: a.workspace.id });
    const [todoA] = await seedTodos(t.db, goalA.id, 1);
    await expect(scopeToWorkspace(t.db, a.workspace.id, { goalId: goalA.id, todoId: todoA!.id })).resolves.toBeUndefined();
    for (const input of [{ goalId: goalA.id }, { todoId: todoA!.id }]) {
      const e = await err(scopeToWorkspace(t.db, b.workspace.id, input));
      expect(e?.code).toBe("NOT_FOUND");
      expect(e?.message).toMatch(/does not exist/);
    }
    const blob = await putBlob(t.db, { bytes: Buffer.from(`bytes ${rid("b")}`), mime: "text/plain", workspaceId: a.workspace.id });
    expect((await err(scopeToWorkspace(t.db, b.workspace.id, { blobSha256: blob.sha256 })))?.code).toBe("NOT_FOUND");
    expect(await getBlob(t.db, blob.sha256, { workspaceId: b.workspace.id })).toBeNull();
    expect(await getBlob(t.db, blob.sha256, { workspaceId: a.workspace.id })).not.toBeNull();
    // Found once, a row is found again (its workspace never changes); a blob's ownership can end, so it is asked anew.
    await scopeToWorkspace(t.db, a.workspace.id, { goalId: goalA.id, blobSha256: blob.sha256 });
    await t.db.workspaceBlob.deleteMany({ where: { sha256: blob.sha256, workspaceId: a.workspace.id } });
    await expect(scopeToWorkspace(t.db, a.workspace.id, { goalId: goalA.id })).resolves.toBeUndefined();
    expect((await err(scopeToWorkspace(t.db, a.workspace.id, { goalId: goalA.id, blobSha256: blob.sha256 })))?.code).toBe("NOT_FOUND");
  });

  it("an idempotency key is the workspace's: another workspace's use of it neither takes it nor shows its row", async () => {
    const goalA = await seedGoal(t.db, { workspaceId: (await seedWorkspace(t.db, "A")).workspace.id });
    const goalB = await seedGoal(t.db, { workspaceId: (await seedWorkspace(t.db, "B")).workspace.id });
    const key = rid("ev");
    await appendEvidence(t.db, { goalId: goalA.id, kind: "observation", summary: "the bank balance screen", idempotencyKey: key });
    const b = await appendEvidence(t.db, { goalId: goalB.id, kind: "observation", summary: "probe", idempotencyKey: key });
    expect(b).toMatchObject({ created: true, evidence: { goalId: goalB.id, workspaceId: goalB.workspaceId, summary: "probe" } });
    expect(JSON.stringify(b)).not.toContain("bank balance");
    // Within one workspace the key is still one row's: another goal of B reusing it is CONFLICT, naming nothing of A.
    const goalB2 = await seedGoal(t.db, { workspaceId: goalB.workspaceId });
    const e = await err(appendEvidence(t.db, { goalId: goalB2.id, kind: "observation", summary: "again", idempotencyKey: key }));
    expect(e?.code).toBe("CONFLICT");
    expect(JSON.stringify(e)).not.toContain("bank balance");
    const agentA = await seedAgent(t.db, { workspaceId: goalA.workspaceId });
    const agentB = await seedAgent(t.db, { workspaceId: goalB.workspaceId });
    const spendKey = rid("sp");
    await spendQuota(t.db, { key: spendKey, goalId: goalA.id, agentId: agentA.id, steps: 1 });
    expect(await spendQuota(t.db, { key: spendKey, goalId: goalB.id, agentId: agentB.id, steps: 1 })).toMatchObject({ duplicate: false, spend: { goalId: goalB.id } });
    expect((await err(spendQuota(t.db, { key: spendKey, goalId: goalB2.id, agentId: agentB.id, steps: 1 })))?.code).toBe("CONFLICT");
  });
});

describe("agent tokens", () => {
  it("only the hash is stored; verify records the use; a revoked token verifies to null", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const { token, tokenId } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "Worker", issuedBy: admin.id });
    expect(token).toMatch(/^plt_[A-Za-z0-9_-]{43}$/);
    const row = await t.db.agentToken.findUniqueOrThrow({ where: { id: tokenId } });
    expect(JSON.stringify(row)).not.toContain(token.slice(4));
    expect(row.lastUsedAt).toBeNull();
    expect(await verifyAgentToken(t.db, token)).toEqual({ tokenId, workspaceId: workspace.id, agentId: null, issuedBy: admin.id, issuerRole: "admin", tab: false });
    expect((await listAgentTokens(t.db, { workspaceId: workspace.id })).items[0]).toMatchObject({ id: tokenId, name: "Worker", lastUsedAt: expect.any(Date), revokedAt: null });
    expect(await verifyAgentToken(t.db, `${token}x`)).toBeNull();
    const operator = await seedMember(t.db, "operator", workspace.id);
    expect((await err(revokeAgentToken(t.db, { workspaceId: workspace.id, tokenId, issuedBy: operator.userId })))?.code).toBe("NOT_FOUND");
    await revokeAgentToken(t.db, { workspaceId: workspace.id, tokenId });
    expect(await verifyAgentToken(t.db, token)).toBeNull();
    expect((await listAgentTokens(t.db, { workspaceId: workspace.id })).items[0]).toMatchObject({ id: tokenId, revokedReason: "revoked" });
  });

  it("a token carries its issuer's current role and ends with the issuer's membership (revoked, issuer_removed)", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const operator = await seedMember(t.db, "operator", workspace.id);
    const { token, tokenId } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "Worker", issuedBy: operator.userId });
    expect(await verifyAgentToken(t.db, token)).toMatchObject({ issuedBy: operator.userId, issuerRole: "operator" });
    await setMemberRole(t.db, { workspaceId: workspace.id, userId: operator.userId, role: "viewer" });
    expect(await verifyAgentToken(t.db, token)).toMatchObject({ issuerRole: "viewer" });
    const kept = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "Kept", issuedBy: operator.userId });
    await reassignAgentToken(t.db, { workspaceId: workspace.id, tokenId: kept.tokenId, userId: admin.id });
    await removeMember(t.db, { workspaceId: workspace.id, userId: operator.userId });
    expect(await verifyAgentToken(t.db, token)).toBeNull();
    expect(await agentTokenStanding(t.db, tokenId)).toBeNull();
    const listed = (await listAgentTokens(t.db, { workspaceId: workspace.id })).items;
    expect(listed.find((x) => x.id === tokenId)).toMatchObject({ revokedAt: expect.any(Date), revokedReason: "issuer_removed" });
    expect(await verifyAgentToken(t.db, kept.token)).toMatchObject({ issuedBy: admin.id, issuerRole: "admin" });
    expect((await err(reassignAgentToken(t.db, { workspaceId: workspace.id, tokenId, userId: admin.id })))?.code).toBe("PRECONDITION_FAILED");
  });

  it("records its last use to the minute: a token at work moves lastUsedAt once a minute, not on every request", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const { token, tokenId } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "Busy", issuedBy: admin.id });
    const clock = manualClock(new Date("2026-11-30T10:00:00Z"));
    const lastUsed = async () => (await t.db.agentToken.findUniqueOrThrow({ where: { id: tokenId } })).lastUsedAt?.toISOString();
    expect(await verifyAgentToken(t.db, token, { clock })).toMatchObject({ tokenId });
    expect(await lastUsed()).toBe("2026-11-30T10:00:00.000Z");
    clock.advance(LAST_USED_RESOLUTION_MS - 1);
    expect(await verifyAgentToken(t.db, token, { clock })).toMatchObject({ tokenId });
    expect(await lastUsed()).toBe("2026-11-30T10:00:00.000Z");
    clock.advance(1);
    expect(await verifyAgentToken(t.db, token, { clock })).toMatchObject({ tokenId });
    expect(await lastUsed()).toBe("2026-11-30T10:01:00.000Z");
    await revokeAgentToken(t.db, { workspaceId: workspace.id, tokenId });
    clock.advance(5 * LAST_USED_RESOLUTION_MS);
    expect(await verifyAgentToken(t.db, token, { clock })).toBeNull();
    expect(await lastUsed()).toBe("2026-11-30T10:01:00.000Z");
  });

  it("a token with an idle timeout (a tab's) stays valid while used and expires once unused that long; one without lasts", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const clock = manualClock(new Date("2026-11-30T10:00:00Z"));
    const tab = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "Browser tab", issuedBy: admin.id, idleTimeoutMs: TAB_TOKEN_IDLE_MS }, { clock });
    const worker = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "Worker", issuedBy: admin.id }, { clock });
    const view = async (tokenId: string) => (await listAgentTokens(t.db, { workspaceId: workspace.id })).items.find((x) => x.id === tokenId)!;
    expect((await view(tab.tokenId)).expiresAt?.toISOString()).toBe(new Date(Date.parse("2026-11-30T10:00:00Z") + TAB_TOKEN_IDLE_MS).toISOString());
    expect((await view(worker.tokenId)).expiresAt).toBeNull();
    // Used every 11 hours for three days: each use moves the expiry on.
    for (let i = 0; i < 7; i++) {
      clock.advance(11 * 60 * 60_000);
      expect(await verifyAgentToken(t.db, tab.token, { clock })).toMatchObject({ tokenId: tab.tokenId });
    }
    expect((await view(tab.tokenId)).expiresAt?.getTime()).toBe(clock.now() + TAB_TOKEN_IDLE_MS);
    // Unused for its timeout (the tab was closed): refused from then on, and the list says when it expired.
    clock.advance(TAB_TOKEN_IDLE_MS - LAST_USED_RESOLUTION_MS);
    expect(await verifyAgentToken(t.db, tab.token, { clock })).toMatchObject({ tokenId: tab.tokenId });
    clock.advance(TAB_TOKEN_IDLE_MS);
    expect(await verifyAgentToken(t.db, tab.token, { clock })).toBeNull();
    clock.advance(TAB_TOKEN_IDLE_MS + 1);
    expect(await verifyAgentToken(t.db, tab.token, { clock })).toBeNull();
    expect((await view(tab.tokenId)).expiresAt!.getTime()).toBeLessThan(clock.now());
    // A worker's token has no idle timeout: a month unused, it still works.
    expect(await verifyAgentToken(t.db, worker.token, { clock })).toMatchObject({ tokenId: worker.tokenId });
    // The timeout is bounded: not shorter than two minutes of last-use resolution, not longer than 30 days.
    for (const idleTimeoutMs of [0, LAST_USED_RESOLUTION_MS, 31 * 24 * 60 * 60_000, 1.5 * 60 * 60_000 + 0.5]) {
      expect((await err(issueAgentToken(t.db, { workspaceId: workspace.id, name: "Bad", issuedBy: admin.id, idleTimeoutMs })))?.code).toBe("INVALID_INPUT");
    }
  });

  it("binds to the agent it registers first: no second agent, no takeover by another token or workspace", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const one = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "One", issuedBy: admin.id });
    const two = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "Two", issuedBy: admin.id });
    const id = rid("agent");
    const base = { id, name: "Pixel", kind: "headless" as const, capabilities: ["android"], workspaceId: workspace.id };
    await registerAgent(t.db, { ...base, tokenId: one.tokenId });
    expect(await verifyAgentToken(t.db, one.token)).toMatchObject({ agentId: id });
    await registerAgent(t.db, { ...base, name: "Pixel 8", tokenId: one.tokenId }); // the same agent again: an update
    expect((await err(registerAgent(t.db, { ...base, kind: "browser", capabilities: [], tokenId: two.tokenId })))?.code).toBe("CONFLICT");
    expect((await err(registerAgent(t.db, { ...base, capabilities: [] })))?.code).toBe("CONFLICT");
    expect((await err(registerAgent(t.db, { ...base, id: rid("agent"), tokenId: one.tokenId })))?.code).toBe("CONFLICT");
    const other = await seedWorkspace(t.db);
    expect((await err(registerAgent(t.db, { ...base, workspaceId: other.workspace.id })))?.code).toBe("CONFLICT");
    expect(await t.db.agent.findUniqueOrThrow({ where: { id } })).toMatchObject({ name: "Pixel 8", kind: "headless", capabilities: ["android"], workspaceId: workspace.id });
  });
});
