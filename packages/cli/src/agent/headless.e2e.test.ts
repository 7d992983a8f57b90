// End to end against the real state core: the agent runtime with packages/client's ControlPlane, the real API over
// HTTP on a throwaway Postgres database, and a scripted OpenAI-compatible model server. Everything is asserted by
// reading the state core back through the API (board, evidence, runs, gates), never the client's own memory.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneConflict, WorkerKilled, createModels, runAgent, systemClock, type ControlPlane, type Device, type Lease, type Models } from "@phoneloop/agent";
import { nodeImages } from "@phoneloop/agent/node";
import { FakePhone, act, box, startScriptedModelServer, type FakeScreen, type ScriptEntry, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { agentTokenHeaders, signUpMember, useApiServer } from "@phoneloop/api/testing";
import { useTestDatabase } from "@phoneloop/state/testing";
import { createApiClient, createControlPlane, readBlob, type ApiClient } from "@phoneloop/client";
import { runHeadless } from "./compose.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let member: ApiClient;
let reader: ApiClient;
/** Issues an agent token of the test's workspace (what an operator gives a worker). */
let newToken: () => Promise<string>;
const servers: ScriptedModelServer[] = [];

beforeAll(async () => {
  const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin", name: "Olive Owner" });
  member = createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: admin.headers.cookie! } });
  newToken = async () => (await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId })).token;
  reader = createApiClient({ apiUrl: api.url, auth: { kind: "token", token: await newToken() } });
});
afterAll(async () => {
  for (const s of servers) await s.stop();
});

const planOf = (todos: { id: string; title: string }[]): ScriptEntry => ({
  text: JSON.stringify({ plan: "test plan", todos: todos.map((x) => ({ kind: "executor", inputs: [], outputs: [], ...x })) }),
});

/** Scripted planner, executor and summarizer, each by model name, behind the product's OpenAI client. */
async function scriptedModels(executor: ScriptEntry[], plan: ScriptEntry): Promise<{ models: Models; server: ScriptedModelServer }> {
  const server = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "planner-model", replies: [plan] },
      { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Report written." }) }], repeatLast: true },
      { match: (r) => r.model === "executor-model", replies: executor },
    ],
  });
  servers.push(server);
  const models = createModels({
    executor: { baseURL: server.baseURL, model: "executor-model", price: { inputPerMTok: 2.5, outputPerMTok: 10 } },
    planner: { baseURL: server.baseURL, model: "planner-model" },
    summarizer: { baseURL: server.baseURL, model: "summarizer-model" },
  });
  return { models, server };
}

/** Polls a read through the API until it yields a value (the state core is the only place to look). */
async function until<T>(what: string, read: () => Promise<T | undefined | null | false>, tries = 400): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await read();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const shop = (): Record<string, FakeScreen> => ({
  cart: {
    app: "com.example.shop",
    background: "#fafafa",
    elements: [
      { id: "item", text: "Wireless earbuds — $59", bounds: box(50, 100, 950, 300) },
      { id: "pay_button", text: "Pay", bounds: box(100, 850, 900, 950), clickable: true, onTap: "paid" },
    ],
  },
  paid: { app: "com.example.shop", background: "#0a0", elements: [{ id: "done", text: "Payment complete", bounds: box(100, 400, 900, 600) }] },
});

describe("headless run against the real API", () => {
  it("a tap on Pay waits at a gate until a member approves it through the API, then happens", async () => {
    const phone = new FakePhone(shop(), "cart");
    const { models } = await scriptedModels(
      [act({ type: "click", element: "2", intent: "pay for the order" }), act({ type: "status", status: "complete", summary: "paid" })],
      planOf([{ id: "pay", title: "Pay for the earbuds in the cart" }]),
    );
    const running = runHeadless({ apiUrl: api.url, agentToken: await newToken(), goal: "Buy the earbuds in the cart", device: phone, models, agentName: "e2e-worker" });

    // A member sees the gate on the attention queue, checks the phone was not touched, and approves.
    const gate = await until("the Pay gate", async () => (await reader.board.attention.query({})).items.find((a) => a.kind === "gate_waiting" && /Pay/.test(a.question)));
    const gateId = gate.kind === "gate_waiting" ? gate.gateId : "";
    const open = await reader.gate.get.query({ gateId });
    expect(open.status).toBe("open");
    expect(open.status === "open" && open.question).toMatch(/high-risk/);
    expect(open.status === "open" && open.options).toEqual(["approve", "deny"]);
    expect(phone.actions().filter((c) => c.op === "tap")).toHaveLength(0);
    await member.gate.resolve.mutate({ gateId, decision: "approve", rationale: "I want the earbuds" });

    const out = await running;
    expect(out.status).toBe("completed");
    expect(phone.actions().filter((c) => c.op === "tap")).toHaveLength(1);
    expect(phone.current).toBe("paid");

    expect(await reader.gate.get.query({ gateId })).toMatchObject({ status: "approved", resolvedBy: expect.any(String), rationale: "I want the earbuds" });
    const board = await reader.board.get.query({ goalId: out.goalId });
    expect(board.lanes.find((l) => l.state === "done")!.cards.map((c) => c.title)).toEqual(["Pay for the earbuds in the cart"]);
    const evidence = (await reader.evidence.list.query({ goalId: out.goalId })).items;
    const decision = evidence.find((e) => e.kind === "gate_decision")!;
    expect(decision.data).toMatchObject({ gateId, status: "approved", tier: "high_risk", kind: "money" });
    // The gate's evidence is the screenshot the agent saw, stored content-addressed.
    const shot = evidence.find((e) => e.id === open.evidenceIds[0])!;
    expect(shot.kind).toBe("observation");
    expect(shot.blobSha256).toMatch(/^[0-9a-f]{64}$/);
    const blob = await readBlob(reader, shot.blobSha256!);
    expect(blob.mime).toBe(shot.blobMime);
    expect((await new Response(blob.body).arrayBuffer()).byteLength).toBeGreaterThan(1000);
    expect(evidence.some((e) => e.kind === "summary" && e.runId === out.runId)).toBe(true);
    const run = await reader.run.get.query({ runId: out.runId });
    expect(run.status).toBe("completed");
    expect(run.steps.map((s) => s.index)).toEqual([0, 1]);
  }, 120_000);

  it("a worker killed mid-run is resumed by another from the last checkpoint: no step repeated, no evidence lost", async () => {
    const ladder: Record<string, FakeScreen> = {};
    for (let i = 0; i < 8; i++)
      ladder[`p${i}`] = {
        app: "com.example.notes",
        background: ["#101", "#a11", "#1a1", "#11a", "#aa1", "#1aa", "#a1a", "#999"][i]!,
        elements: Array.from({ length: 8 }, (_, j) => ({ id: `b${j}`, text: `Item ${j}`, bounds: box(50, 100 * j + 50, 950, 100 * j + 120), clickable: true, onTap: `p${Math.min(7, i + 1)}` })),
      };
    const tapRow = (j: number) => act({ type: "click", x: 500, y: 100 * j + 85 });
    const phone = new FakePhone(ladder, "p0");
    const kill = new AbortController();
    let taps = 0;
    // Worker A dies right after its 3rd tap reached the phone, before it could record the step.
    const dying: Device = Object.assign(Object.create(phone) as FakePhone, {
      tap: async (p: { x: number; y: number }) => {
        await phone.tap(p);
        if (++taps === 3) kill.abort();
      },
    });
    const { models } = await scriptedModels(
      [tapRow(0), tapRow(1), tapRow(2), tapRow(3), tapRow(4), act({ type: "status", status: "complete" })],
      planOf([{ id: "open", title: "Open five items in order" }]),
    );
    // Worker A's port, recording the leases it took (what a late write of a dead worker would carry).
    const idA = "worker-a-e2e";
    const baseA = createControlPlane(createApiClient({ apiUrl: api.url, auth: { kind: "token", token: await newToken() } }), { apiUrl: api.url });
    const leasesA: Lease[] = [];
    const cpA: ControlPlane = Object.assign(Object.create(baseA) as ControlPlane, {
      claimNext: async (input: Parameters<ControlPlane["claimNext"]>[0]) => {
        const r = await baseA.claimNext(input);
        if (r.claimed) leasesA.push(r.lease);
        return r;
      },
    });
    // Short enough that worker B may take the todo over soon after A dies, long enough that A's steps renew it in time.
    const ttl = 12_000;
    const runA = runAgent(
      { device: dying, models, controlPlane: cpA, clock: systemClock, images: nodeImages },
      { goal: "Open five items in order", agent: { id: idA, name: "worker-a", kind: "headless", capabilities: ["phone"] }, kill: kill.signal, config: { leaseTtlMs: ttl } },
    );
    await expect(runA).rejects.toBeInstanceOf(WorkerKilled);

    const goals = (await reader.board.goals.query({})).items;
    const goalId = goals.find((g) => g.title === "Open five items in order")!.id;
    const runsBefore = (await reader.evidence.list.query({ goalId })).items.filter((e) => e.runId);
    const runId = runsBefore[0]!.runId!;
    const before = await reader.run.get.query({ runId });
    expect(before.steps.map((s) => s.index)).toEqual([0, 1]);
    const evidenceBefore = (await reader.evidence.list.query({ goalId })).items;
    const oldLeaseCard = (await reader.board.get.query({ goalId })).lanes.flatMap((l) => l.cards).find((c) => c.owner)!;
    expect(oldLeaseCard.owner!.agentId).toBe(idA);
    const oldLease = leasesA.at(-1)!;
    expect(oldLease.todoId).toBe(oldLeaseCard.id);

    // Worker A's lease must expire (by the state core's clock) before B may take the todo over.
    await until("A's lease to expire", async () => (await reader.board.attention.query({ goalId })).items.some((a) => a.kind === "lease_expired" && a.todoId === oldLeaseCard.id));
    const cpB = createControlPlane(createApiClient({ apiUrl: api.url, auth: { kind: "token", token: await newToken() } }), { apiUrl: api.url });
    const out = await runAgent(
      { device: phone, models, controlPlane: cpB, clock: systemClock, images: nodeImages },
      { runId, agent: { id: "worker-b-e2e", name: "worker-b", kind: "headless", capabilities: ["phone"] }, config: { leaseTtlMs: 60_000 } },
    );
    expect(out.resumed).toBe(true);
    expect(out.status).toBe("completed");
    expect(out.agentId).toBe("worker-b-e2e");

    // Every row tapped exactly once, in order: the interrupted 3rd tap was not repeated.
    const rows = phone.actions().filter((c) => c.op === "tap").map((c) => Math.floor(((c.args[0] as { y: number }).y / 2400) * 10));
    expect(rows).toEqual([0, 1, 2, 3, 4]);
    const run = await reader.run.get.query({ runId });
    expect(run.status).toBe("completed");
    expect(run.agentId).toBe(out.agentId);
    expect(run.steps.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect((run.steps[2]!.outcome as { outcome: string }).outcome).toMatch(/^outcome unknown: its record is missing/);
    // Nothing worker A wrote was lost or rewritten.
    const after = new Map((await reader.evidence.list.query({ goalId })).items.map((e) => [e.idempotencyKey, e]));
    for (const e of evidenceBefore) expect(after.get(e.idempotencyKey)).toMatchObject({ id: e.id, summary: e.summary, agentId: e.agentId });
    // One action evidence per performed step; the interrupted one has none (its outcome is unknown).
    const actionSteps = [...after.values()].filter((e) => e.kind === "action").map((e) => e.stepIndex);
    expect(actionSteps.sort()).toEqual([0, 1, 3, 4]);
    const board = await reader.board.get.query({ goalId });
    expect(board.lanes.find((l) => l.state === "done")!.cards.map((c) => c.id)).toEqual([oldLeaseCard.id]);

    // A late write by the dead worker is an explicit conflict, not a silent overwrite.
    const stale = await cpA
      .appendEvidence({ idempotencyKey: "late-write", kind: "action", goalId: goalId, todoId: oldLeaseCard.id, lease: { todoId: oldLease.todoId, agentId: idA, leaseKey: oldLease.leaseKey }, summary: "late", data: { action: { type: "navigate_back" } } })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ControlPlaneConflict);
    const staleCheckpoint = await cpA.saveCheckpoint({ runId, agentId: idA, checkpoint: { late: true } }).catch((e: unknown) => e);
    expect(staleCheckpoint).toBeInstanceOf(Error);
    expect(await reader.evidence.byKey.query({ idempotencyKey: "late-write" })).toBeNull();
  }, 240_000);
});
