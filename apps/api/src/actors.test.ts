// Who acts is the authenticated caller, never a header or a body field: over real HTTP with a real agent token,
// forged member/agent headers and actor fields change nothing in the event log; who may answer a gate is the
// workspace's rule (the opener's `answerRoles` is ignored); a viewer's forged answer is refused; an agent token acts
// only as its own agent and cannot take over another's id; a revoked token is anonymous.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueAgentToken, registerAgent, revokeAgentToken, TAB_TOKEN_IDLE_MS, type Role } from "@phoneloop/state";
import { rid, seedGate, seedGoal, seedMember, seedTodos, seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import type { Principal } from "./auth/principal.ts";
import { EventHub } from "./events.ts";
import { appRouter } from "./root.ts";
import { createCallerFactory, createTRPCContext } from "./trpc.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let hub: EventHub;
let ws: string;
let adminId: string;
let token: string;
let agentId: string;

beforeAll(async () => {
  hub = new EventHub({ databaseUrl: t.url });
  await hub.start();
  const seeded = await seedWorkspace(t.db, "Team");
  ws = seeded.workspace.id;
  adminId = seeded.admin.id;
  ({ token } = await issueAgentToken(t.db, { workspaceId: ws, name: "Worker", issuedBy: adminId }));
  agentId = rid("agent");
  const registered = await trpc("agent.register", { id: agentId, name: "Worker", kind: "headless", capabilities: ["android"] });
  expect(registered.status).toBe(200);
});
afterAll(async () => {
  await hub?.close();
});

/** A tRPC call over HTTP with the agent token and whatever else the attacker adds. */
async function trpc(path: string, json: unknown, headers: Record<string, string> = {}, bearer = token): Promise<{ status: number; body: { result?: { data: { json: unknown } }; error?: { json: { message: string; data: { code: string } } } } }> {
  const res = await fetch(`${api.url}/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${bearer}`, ...headers },
    body: JSON.stringify({ json }),
  });
  return { status: res.status, body: (await res.json()) as never };
}

const FORGED = { "x-phoneloop-member": "", "x-phoneloop-agent": "agent_mallory" };

function as(principal: Principal) {
  return createCallerFactory(appRouter)(createTRPCContext({ services: { db: t.db, events: hub }, principal }));
}
async function member(role: Role) {
  const m = await seedMember(t.db, role, ws);
  return { kind: "member", userId: m.userId, workspaceId: ws, role, name: m.name, email: m.email } as const;
}

describe("the actor is the caller", () => {
  it("forged member/agent headers and body fields (createdBy, workspaceId) change nothing in the event log", async () => {
    const elsewhere = await seedWorkspace(t.db, "Elsewhere");
    const headers = { ...FORGED, "x-phoneloop-member": adminId };
    const created = await trpc("goal.create", { title: "Book a table", objective: "Friday", createdBy: adminId, workspaceId: elsewhere.workspace.id }, headers);
    expect(created.status).toBe(200);
    const goalId = (created.body.result!.data.json as { id: string }).id;
    const goal = await t.db.goal.findUniqueOrThrow({ where: { id: goalId } });
    expect(goal).toMatchObject({ workspaceId: ws, createdBy: agentId });

    const gate = await trpc("gate.open", { goalId, question: "Pay the 5 EUR deposit?", answerRoles: ["viewer"], openedBy: adminId }, headers);
    expect(gate.status).toBe(200);
    const events = await t.db.event.findMany({ where: { goalId }, orderBy: { id: "asc" } });
    expect(events.map((e) => [e.operator, e.actor, e.workspaceId])).toEqual([
      ["goal.create", agentId, ws],
      ["gate.open", agentId, ws],
    ]);
  });

  it("an opener-chosen answer role is ignored: the workspace's rule (approver, admin) decides", async () => {
    const goal = await seedGoal(t.db, { workspaceId: ws });
    const opened = await trpc("gate.open", { goalId: goal.id, question: "Use the saved card?", answerRoles: ["viewer", "operator"] });
    const gateId = (opened.body.result!.data.json as { gate: { id: string } }).gate.id;
    expect((await t.db.gate.findUniqueOrThrow({ where: { id: gateId } })).answerRoles).toEqual(["approver", "admin"]);
    const operator = await member("operator");
    await expect(as(operator).gate.resolve({ gateId, decision: "approve", rationale: "fine" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const approver = await member("approver");
    expect(await as(approver).gate.resolve({ gateId, decision: "approve", rationale: "fine" })).toMatchObject({ status: "approved", resolvedBy: approver.userId });
  });

  it("a viewer's forged gate answer is refused and leaves the gate open", async () => {
    const goal = await seedGoal(t.db, { workspaceId: ws });
    const gate = await seedGate(t.db, goal.id);
    const viewer = await member("viewer");
    const forged = { gateId: gate.id, decision: "approve", rationale: "me", userId: adminId, memberId: adminId } as { gateId: string; decision: "approve"; rationale: string };
    await expect(as(viewer).gate.resolve(forged)).rejects.toMatchObject({ code: "FORBIDDEN" });
    // The old attack: any caller naming an admin's id in the member header.
    const overHttp = await trpc("gate.resolve", forged, { "x-phoneloop-member": adminId });
    expect(overHttp.status).toBe(403);
    expect(await t.db.gate.findUniqueOrThrow({ where: { id: gate.id } })).toMatchObject({ status: "open", resolvedBy: null });
    expect(await t.db.event.count({ where: { subjectId: gate.id, operator: "gate.resolve" } })).toBe(0);
  });

  it("an agent token acts only as its own agent", async () => {
    const goal = await seedGoal(t.db, { workspaceId: ws });
    const [todo] = await seedTodos(t.db, goal.id, 1);
    const other = await registerAgent(t.db, { id: rid("agent"), name: "Other", kind: "headless", capabilities: ["android"], workspaceId: ws });
    const claim = await trpc("todo.claim", { agentId: other.id, todoId: todo!.id });
    expect(claim.status).toBe(403);
    expect(claim.body.error!.json.message).toContain(agentId);
    expect((await t.db.todo.findUniqueOrThrow({ where: { id: todo!.id } })).state).toBe("pending");
  });

  it("registering can't take over another token's or workspace's agent: CONFLICT, and the agent is unchanged", async () => {
    const second = await issueAgentToken(t.db, { workspaceId: ws, name: "Second", issuedBy: adminId });
    const takeover = await trpc("agent.register", { id: agentId, name: "Mallory", kind: "browser", capabilities: [] }, {}, second.token);
    expect(takeover.status).toBe(409);
    const elsewhere = await seedWorkspace(t.db, "Elsewhere");
    const foreign = await issueAgentToken(t.db, { workspaceId: elsewhere.workspace.id, name: "Foreign", issuedBy: elsewhere.admin.id });
    expect((await trpc("agent.register", { id: agentId, name: "Mallory", kind: "browser" }, {}, foreign.token)).status).toBe(409);
    // The token is bound: it cannot register a second agent id either.
    expect((await trpc("agent.register", { id: rid("agent"), name: "Twin", kind: "headless" })).status).toBe(409);
    expect(await t.db.agent.findUniqueOrThrow({ where: { id: agentId } })).toMatchObject({ name: "Worker", kind: "headless", capabilities: ["android"], workspaceId: ws });
  });

  it("a revoked or unknown token is anonymous (401); its last use is recorded while it works", async () => {
    const minted = await issueAgentToken(t.db, { workspaceId: ws, name: "Short-lived", issuedBy: adminId });
    const read = await fetch(`${api.url}/trpc/board.goals?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, { headers: { authorization: `Bearer ${minted.token}` } });
    expect(read.status).toBe(200);
    expect((await t.db.agentToken.findUniqueOrThrow({ where: { id: minted.tokenId } })).lastUsedAt).not.toBeNull();
    await revokeAgentToken(t.db, { workspaceId: ws, tokenId: minted.tokenId });
    expect((await trpc("goal.create", { title: "x", objective: "y" }, {}, minted.token)).status).toBe(401);
    expect((await trpc("goal.create", { title: "x", objective: "y" }, {}, "plt_not-a-token")).status).toBe(401);
  });

  it("a tab's token expires once unused for its idle timeout (401 from then on); a worker's token lasts until revoked", async () => {
    const operator = as(await member("operator"));
    const tab = await operator.agentToken.mintForTab({ name: "Browser tab" });
    const worker = await operator.agentToken.issue({ name: "Lab worker" });
    expect(tab.idleTimeoutMs).toBe(TAB_TOKEN_IDLE_MS);
    expect(worker.idleTimeoutMs).toBeNull();
    const listed = (await operator.agentToken.list({})).items;
    const expiresAt = listed.find((x) => x.id === tab.tokenId)!.expiresAt!;
    expect(Math.abs(expiresAt.getTime() - (Date.now() + TAB_TOKEN_IDLE_MS))).toBeLessThan(60_000);
    expect(listed.find((x) => x.id === worker.tokenId)!.expiresAt).toBeNull();
    const read = (bearer: string) => fetch(`${api.url}/trpc/board.goals?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, { headers: { authorization: `Bearer ${bearer}` } });
    expect((await read(tab.token)).status).toBe(200);
    // The tab closed and nothing used its token for the idle timeout (both made and last used that long ago).
    const past = new Date(Date.now() - TAB_TOKEN_IDLE_MS - 1_000);
    await t.db.agentToken.updateMany({ where: { id: { in: [tab.tokenId, worker.tokenId] } }, data: { createdAt: past, lastUsedAt: past } });
    expect((await read(tab.token)).status).toBe(401);
    expect((await trpc("goal.create", { title: "x", objective: "y" }, {}, tab.token)).status).toBe(401);
    expect((await read(worker.token)).status).toBe(200);
  });
});
