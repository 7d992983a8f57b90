// Several API processes as one deployment: two real server processes (each its own pool) on one database, behind a
// loopback round-robin proxy (proxy-testing.ts: what nginx does with two upstreams). An agent (a real agent token,
// packages/client's control plane) registers, claims, and records its steps (write-ahead, screenshot upload,
// write-back with evidence, as an executor step writes them) with requests alternating between the processes, while a viewer follows the event
// stream on process B only: every Event exactly once, in order. Then process A is killed (SIGKILL) while it holds a
// step record: the client's retry lands on B and no step is lost or written twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leaseRefOf } from "@phoneloop/agent/ports";
import { createApiClient, createControlPlane, subscribeEvents, type StreamedEvent } from "@phoneloop/client";
import { issueAgentToken } from "@phoneloop/state";
import { rid, seedGoal, seedTodos, seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { startApiProcess, type ApiProcess } from "./api-process-testing.ts";
import { startRoundRobinProxy, type RoundRobinProxy } from "./proxy-testing.ts";

/** A 2×2 WebP, as the agent uploads a screenshot. */
const webp = () => Uint8Array.from(atob("UklGRjwAAABXRUJQVlA4IDAAAAAwAgCdASoCAAIAAUAmJaACdLoB+AH4AAToAAD+Ex/7B0P6rvvef/a0Bwar/RuAAAA="), (c) => c.charCodeAt(0));

const STEPS = 8;
const KILL_AT_STEP = 4;

describe("two API processes on one database", () => {
  const t = useTestDatabase();
  let a: ApiProcess;
  let b: ApiProcess;
  let proxy: RoundRobinProxy;

  beforeAll(async () => {
    [a, b] = await Promise.all([startApiProcess(t.url, { DATABASE_POOL_MAX: "4" }), startApiProcess(t.url, { DATABASE_POOL_MAX: "4" })]);
    proxy = await startRoundRobinProxy([a.url, b.url]);
  });
  afterAll(async () => {
    await new Promise<void>((r) => proxy?.server.close(() => r()));
    proxy?.server.closeAllConnections();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("an agent alternating between them is seen exactly once and in order on the other; killing one loses no step", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const goal = await seedGoal(t.db, { workspaceId: workspace.id });
    await seedTodos(t.db, goal.id, 1);
    const { token } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "fleet worker", issuedBy: admin.id });

    // The viewer: B only, from now on.
    const seen: StreamedEvent[] = [];
    const viewerErrors: unknown[] = [];
    const viewer = createApiClient({ apiUrl: b.url, auth: { kind: "token", token } });
    let started!: () => void;
    const live = new Promise<void>((r) => (started = r));
    const sub = subscribeEvents(viewer, {}, { onStarted: () => started(), onEvent: (e) => seen.push(e), onError: (e) => viewerErrors.push(e) });
    await live;
    const from = (await t.db.$queryRaw<{ from: bigint }[]>`SELECT coalesce(max(id), 0) AS "from" FROM "Event"`)[0]!.from;

    const client = createApiClient({ apiUrl: proxy.url, auth: { kind: "token", token } });
    const retried: string[] = [];
    const cp = createControlPlane(client, { apiUrl: proxy.url, retry: { maxMs: 30_000, baseMs: 50, capMs: 500 }, onRetry: (n) => retried.push(n.procedure) });
    const { agentId } = await cp.registerAgent({ id: rid("agent"), name: "fleet worker", kind: "headless", capabilities: ["phone"] });
    const claim = await cp.claimNext({ agentId, goalId: goal.id, ttlMs: 120_000 });
    if (!claim.claimed) throw new Error(`expected a claim, got ${claim.reason}`);
    const lease = leaseRefOf(claim.lease);
    const todoId = claim.todo.id;
    await cp.startTodo(lease);
    const run = await cp.startRun({ goalId: goal.id, agentId });

    let killed = false;
    for (let i = 0; i < STEPS; i++) {
      if (i === KILL_AT_STEP) {
        // The next step record A is handed is its last: A dies while it holds it (committed or not, unanswered).
        proxy.onForward = (k, path) => {
          if (k === 0 && path.includes("run.recordStep") && !killed) {
            killed = true;
            a.proc.kill("SIGKILL");
          }
        };
      }
      const action = { type: "click", element: String(i) };
      // Write-ahead: the action about to be taken, with the checkpoint.
      await cp.recordStep({
        runId: run.id,
        agentId,
        todoId,
        lease,
        evidence: [{ idempotencyKey: `${run.id}:act:${i}`, kind: "action", stepIndex: i, summary: `click [${i}]`, data: { action } }],
        checkpoint: { node: "executor", step: i, phase: "ahead" },
      });
      const { sha256 } = await cp.putBlob({ bytes: webp(), mime: "image/webp" });
      // Write-back: what the screen showed after it, the step row and the checkpoint.
      await cp.recordStep({
        runId: run.id,
        agentId,
        todoId,
        lease,
        evidence: [{ idempotencyKey: `${run.id}:obs:${i}`, kind: "observation", stepIndex: i, summary: `after click [${i}]`, data: { app: "com.example" }, blobSha256: sha256 }],
        step: { index: i, node: "executor", todoId, action, outcome: { outcome: "ok" }, anomalies: [], tokens: 100 + i },
        checkpoint: { node: "executor", step: i + 1, phase: "back" },
      });
      await cp.heartbeatAgent(agentId);
    }

    // A was killed mid-way and its retries landed on B.
    expect(killed).toBe(true);
    expect(await a.exited).toBeNull();
    expect(a.proc.signalCode).toBe("SIGKILL");
    expect(retried).toContain("run.recordStep");
    const upstreams = new Set(proxy.served.map((s) => s.upstream));
    expect(upstreams).toEqual(new Set([0, 1]));
    // Before the kill the requests alternated: neither process answered two in a row.
    const beforeKill = proxy.served.slice(0, 10).map((s) => s.upstream);
    expect(beforeKill).toEqual(beforeKill.map((_, n) => (beforeKill[0]! + n) % 2));

    // No step lost, none twice: every index once, each with its two pieces of evidence.
    const steps = await t.db.step.findMany({ where: { runId: run.id }, orderBy: { index: "asc" } });
    expect(steps.map((s) => s.index)).toEqual(Array.from({ length: STEPS }, (_, n) => n));
    const evidence = await t.db.evidence.findMany({ where: { runId: run.id } });
    expect(evidence).toHaveLength(2 * STEPS);
    expect((await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).checkpoint).toMatchObject({ step: STEPS, phase: "back" });

    // The viewer on B saw every Event of the workspace committed since it started, once each, in id order.
    const committed = async () =>
      (await t.db.event.findMany({ where: { workspaceId: workspace.id, id: { gt: from } }, orderBy: { id: "asc" }, select: { id: true } })).map((e) => e.id.toString());
    let expected = await committed();
    for (let n = 0; n < 200 && seen.length < expected.length; n++) {
      await new Promise((r) => setTimeout(r, 50));
      expected = await committed();
    }
    sub.unsubscribe();
    expect(viewerErrors).toEqual([]);
    expect(seen.map((e) => e.id)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(3 * STEPS);
    expect(seen.filter((e) => e.operator === "run.recordStep" || e.operator.startsWith("run.")).length).toBeGreaterThan(0);
  });
});
