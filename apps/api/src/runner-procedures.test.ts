// What the tab's runner asks of the API: the built-in tasks to start a goal from, a goal created with its quota in
// one call, a goal's runs with the lease a running run's agent still holds (what another tab may resume), and the
// workspace's agents with their heartbeat (the board's workers).
import { describe, expect, it } from "vitest";
import { claimNext, registerAgent, replanTodos, startRun } from "@phoneloop/state";
import { seedMember, seedWorkspace } from "@phoneloop/state/testing";
import type { Principal } from "./auth/principal.ts";
import { useCallers } from "./caller-testing.ts";

const callers = useCallers();
const { as, failure } = callers;

async function team(name: string) {
  const { workspace } = await seedWorkspace(callers.t().db, name);
  const operator = await seedMember(callers.t().db, "operator", workspace.id);
  const viewer = await seedMember(callers.t().db, "viewer", workspace.id);
  const member = (userId: string, role: "operator" | "viewer"): Principal => ({ kind: "member", userId, workspaceId: workspace.id, role, name: role, email: `${userId}@example.test` });
  return { ws: workspace.id, operator: as(member(operator.userId, "operator")), viewer: as(member(viewer.userId, "viewer")), operatorId: operator.userId };
}

describe("the runner's procedures", () => {
  it("task.list: the pack's tasks with their filled-in goal, checks and failure rules; the checkout one has a payment step", async () => {
    const a = await team("Tasks");
    const tasks = await a.viewer.task.list({});
    expect(tasks.length).toBeGreaterThan(20);
    const checkout = tasks.find((x) => x.id === "shop_checkout")!;
    expect(checkout.payment).toBe(true);
    expect(checkout.goal).toMatch(/Coffee beans 1kg/);
    expect(checkout.goal).not.toMatch(/\{item\}/);
    expect(checkout.checks.length).toBeGreaterThan(0);
    expect(tasks.find((x) => x.id === "settings_wifi_off")).toMatchObject({ payment: false, failIf: [expect.stringMatching(/airplane/)], apps: ["settings"] });
    expect(tasks.filter((x) => x.payment).map((x) => x.id)).toEqual(["shop_checkout"]);
  });

  it("goal.create with a quota: the goal and its cap in one call, by an operator; a bad cap creates nothing", async () => {
    const a = await team("Quota");
    const goal = await a.operator.goal.create({ title: "Wi-Fi off", objective: "Turn off Wi-Fi.", acceptance: ["Wi-Fi is off"], quota: { windowMs: 86_400_000, maxSteps: 12, maxMicroUsd: 500_000 } });
    const policy = await callers.t().db.quotaPolicy.findFirstOrThrow({ where: { goalId: goal.id } });
    expect(policy).toMatchObject({ scope: "goal", maxSteps: 12, maxTokens: null, maxMicroUsd: 500_000n, windowMs: 86_400_000n });

    const before = await callers.t().db.goal.count({ where: { workspaceId: a.ws } });
    const refused = await failure(a.operator.goal.create({ title: "No cap", objective: "x", quota: { windowMs: 1000 } }));
    expect(refused?.code).toBe("BAD_REQUEST");
    expect(refused?.message).toMatch(/quota caps steps, tokens or money/);
    expect(await callers.t().db.goal.count({ where: { workspaceId: a.ws } })).toBe(before);
    expect((await failure(a.viewer.goal.create({ title: "t", objective: "o", quota: { windowMs: 1000, maxSteps: 1 } })))?.code).toBe("FORBIDDEN");
  });

  it("goal.runs: newest first, with the lease a running run's agent holds on the goal's todo", async () => {
    const a = await team("Runs");
    const goal = await a.operator.goal.create({ title: "Two runs", objective: "Do a thing" });
    const agent = await registerAgent(callers.t().db, { id: `agent_runs_${Date.now()}`, workspaceId: a.ws, name: "tab", kind: "browser", capabilities: ["phone"] });
    await replanTodos(callers.t().db, { goalId: goal.id, idempotencyKey: "plan", reason: "test", ops: [{ op: "add", todo: { id: `todo_${goal.id}`, title: "the thing", requiredCapabilities: ["phone"] } }] });
    const run = await startRun(callers.t().db, { goalId: goal.id, agentId: agent.id });
    expect((await a.viewer.goal.runs({ goalId: goal.id })).items).toEqual([expect.objectContaining({ id: run.id, status: "running", agentId: agent.id, steps: 0, leaseUntil: null })]);

    const claim = await claimNext(callers.t().db, { goalId: goal.id, agentId: agent.id, ttlMs: 30_000 });
    expect(claim.claimed).toBe(true);
    const [listed] = (await a.viewer.goal.runs({ goalId: goal.id })).items;
    expect(listed!.leaseUntil).toBeInstanceOf(Date);
    expect(listed!.leaseUntil!.getTime()).toBe(claim.claimed ? claim.lease.expiresAt.getTime() : 0);

    const other = await team("Runs elsewhere");
    expect((await failure(other.viewer.goal.runs({ goalId: goal.id })))?.code).toBe("NOT_FOUND");

    // The board's workers: the agent, its phone, the todo it holds; another workspace does not see it.
    await callers.t().db.agent.update({ where: { id: agent.id }, data: { meta: { device: { serial: "emulator-5554", model: "Pixel 8" } } } });
    expect((await a.viewer.agent.list({})).items).toEqual([expect.objectContaining({ id: agent.id, kind: "browser", device: { serial: "emulator-5554", model: "Pixel 8" }, holding: 1 })]);
    expect((await other.viewer.agent.list({})).items.map((x) => x.id)).not.toContain(agent.id);
  });
});
