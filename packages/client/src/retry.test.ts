// The client's retries against the real API and Postgres: a call made while the API is down waits for it to come
// back on the same port and succeeds; the wait is bounded and then says how long it tried; a 4xx is never retried;
// each outage is reported once it is over, with its true duration on the injected clock.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock, type Clock } from "@phoneloop/agent/ports";
import { manualClock, type ManualClock } from "@phoneloop/state/domain";
import { createApiServer, type ApiServer } from "@phoneloop/api";
import { issueAgentToken } from "@phoneloop/state";
import { seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { createApiClient } from "./api-client.ts";
import { createControlPlane } from "./control-plane.ts";
import { API_UNREACHABLE, ControlPlaneError } from "./errors.ts";
import { backoffMs, transienceOf, type OutageReport } from "./retry.ts";

const t = useTestDatabase();
let api: ApiServer;
let token: string;

beforeAll(async () => {
  api = await createApiServer({ db: t.db, databaseUrl: t.url, port: 0, host: "127.0.0.1" });
  const { workspace, admin } = await seedWorkspace(t.db);
  token = (await issueAgentToken(t.db, { workspaceId: workspace.id, issuedBy: admin.id, name: "retry test" })).token;
});
afterAll(async () => {
  await api?.close();
});

/** The real clock, with every backoff counted, and a promise for the first one (the call has failed once). */
function countingClock(): Clock & { sleeps: number[]; firstSleep: Promise<void> } {
  let first!: () => void;
  const firstSleep = new Promise<void>((r) => (first = r));
  const sleeps: number[] = [];
  return {
    now: () => systemClock.now(),
    monotonic: () => systemClock.monotonic(),
    sleep: (ms, signal) => {
      sleeps.push(ms);
      first();
      return systemClock.sleep(ms, signal);
    },
    sleeps,
    firstSleep,
  };
}

/** A loopback URL whose port was free a moment ago (a listener opened and closed). */
async function freeUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

describe("retries while the API is away", () => {
  it("a call made while the API restarts waits for it on the same port and succeeds", async () => {
    const clock = countingClock();
    const cp = createControlPlane(createApiClient({ apiUrl: api.url, auth: { kind: "token", token } }), { apiUrl: api.url, clock, retry: { maxMs: 60_000, capMs: 200 } });
    const { agentId } = await cp.registerAgent({ name: "retrying worker", kind: "headless", capabilities: ["phone"] });
    const goal = await cp.createGoal({ objective: "Survive an API restart" });
    const port = api.port;
    await api.close();
    const pending = cp.listTodos(goal.id);
    await clock.firstSleep; // the call failed once (connection refused) and is backing off
    api = await createApiServer({ db: t.db, databaseUrl: t.url, port, host: "127.0.0.1" });
    expect(await pending).toEqual([]);
    expect(clock.sleeps.length).toBeGreaterThanOrEqual(1);
    await cp.heartbeatAgent(agentId);
  });

  it("gives up after maxMs with API_UNREACHABLE naming the attempts", async () => {
    const clock = countingClock();
    const down = await freeUrl(); // nothing listens there
    const cp = createControlPlane(createApiClient({ apiUrl: down, auth: { kind: "token", token } }), { apiUrl: down, clock, retry: { maxMs: 300, baseMs: 20, capMs: 50 } });
    const e = await cp.getGoal("goal_any").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ControlPlaneError);
    expect(e).toMatchObject({ code: API_UNREACHABLE });
    expect((e as Error).message).toMatch(/ECONNREFUSED; \d+ attempts over \d+\.\d s/);
    expect(clock.sleeps.length).toBeGreaterThanOrEqual(2);
  });

  it("a 4xx answer is final at once: never retried", async () => {
    const clock = countingClock();
    const cp = createControlPlane(createApiClient({ apiUrl: api.url, auth: { kind: "token", token } }), { apiUrl: api.url, clock });
    const e = await cp.reopenTodo({ todoId: "todo_missing", reason: "x" }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "NOT_FOUND" });
    expect(clock.sleeps).toEqual([]);
  });
});

/**
 * Moves the manual clock by `stepMs` whenever the call under test is asleep in its backoff, until `until` settles: the
 * clock then moved only in whole steps, so durations on it are exact.
 */
function drive(clock: ManualClock, until: Promise<unknown>, stepMs = 1_000): Promise<void> {
  let done = false;
  void until.finally(() => (done = true));
  return (async () => {
    while (!done) {
      if (clock.sleepers > 0) clock.advance(stepMs);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
}

/** Retries that never pause for nothing (a jitter of 0 would retry without the clock moving). */
const STEADY = { baseMs: 200, capMs: 800, random: () => 0.5 };

/** In front of the API: swallows the first request (taken, never answered) and passes the rest on to the API. */
async function swallowFirst(apiUrl: string, onSwallowed: () => void): Promise<{ url: string; server: Server }> {
  let first = true;
  const server = createServer((req: IncomingMessage, res) => {
    if (first) {
      first = false;
      onSwallowed();
      return;
    }
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => k !== "host" && k !== "connection" && typeof v === "string")) as Record<string, string>;
      const upstream = await fetch(`${apiUrl}${req.url}`, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    })().catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("each outage is reported once it is over, with its true duration", () => {
  it("the API restarted: recovered, what failed, when it started, how long, how many attempts", async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1, 12));
    const reports: OutageReport[] = [];
    const cp = createControlPlane(createApiClient({ apiUrl: api.url, auth: { kind: "token", token } }), { apiUrl: api.url, clock, retry: { ...STEADY, maxMs: 600_000 }, onOutage: (r) => reports.push(r) });
    const goal = await cp.createGoal({ objective: "Outlast an API restart" });
    expect(reports).toEqual([]); // answered at once: no outage
    const port = api.port;
    await api.close();
    const startedAt = clock.now();
    const start = clock.monotonic();
    const pending = cp.listTodos(goal.id);
    await expect.poll(() => clock.sleepers).toBe(1); // the first attempt was refused; the call backs off
    api = await createApiServer({ db: t.db, databaseUrl: t.url, port, host: "127.0.0.1" });
    await drive(clock, pending);
    expect(await pending).toEqual([]);
    expect(reports).toEqual([{ procedure: "todo.list", fault: "ECONNREFUSED", lastFault: "ECONNREFUSED", startedAt, durationMs: clock.monotonic() - start, attempts: 2, outcome: "recovered" }]);
    expect(reports[0]!.durationMs).toBe(1_000); // one backoff on the clock, nothing else moved it
  });

  it("a request that hung until its deadline counts whole: the outage starts with that attempt", async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1, 12));
    // While the first request hangs, 130 s pass on the clock (what a stuck database cost in the fault drills).
    const front = await swallowFirst(api.url, () => clock.advance(130_000));
    try {
      const reports: OutageReport[] = [];
      const cp = createControlPlane(createApiClient({ apiUrl: front.url, auth: { kind: "token", token }, requestTimeoutMs: 300 }), { apiUrl: front.url, clock, retry: { ...STEADY, maxMs: 600_000 }, onOutage: (r) => reports.push(r) });
      const pending = cp.getGoal("goal_missing");
      await drive(clock, pending);
      expect(await pending).toBeNull();
      expect(reports).toMatchObject([{ procedure: "goal.get", fault: "ETIMEDOUT", lastFault: "ETIMEDOUT", durationMs: 131_000, attempts: 2, outcome: "recovered" }]);
    } finally {
      front.server.closeAllConnections();
      await new Promise<void>((r) => front.server.close(() => r()));
    }
  });

  it("one request that hung past the retries' time: gave_up after 1 attempt, its whole hang in the report and the error", async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1, 12));
    const front = await swallowFirst(api.url, () => clock.advance(130_000));
    try {
      const reports: OutageReport[] = [];
      const cp = createControlPlane(createApiClient({ apiUrl: front.url, auth: { kind: "token", token }, requestTimeoutMs: 300 }), { apiUrl: front.url, clock, retry: { ...STEADY, maxMs: 30_000 }, onOutage: (r) => reports.push(r) });
      const e = await cp.heartbeatAgent("agent_any").catch((x: unknown) => x);
      expect(e).toMatchObject({ code: API_UNREACHABLE, message: expect.stringMatching(/\(ETIMEDOUT; 1 attempt over 130\.0 s\)/) });
      expect(reports).toMatchObject([{ procedure: "agent.heartbeat", fault: "ETIMEDOUT", durationMs: 130_000, attempts: 1, outcome: "gave_up" }]);
    } finally {
      front.server.closeAllConnections();
      await new Promise<void>((r) => front.server.close(() => r()));
    }
  });

  it("retries that run out: gave_up, and the error still says how long it tried", async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1, 12));
    const down = await freeUrl();
    const reports: OutageReport[] = [];
    const cp = createControlPlane(createApiClient({ apiUrl: down, auth: { kind: "token", token } }), { apiUrl: down, clock, retry: { ...STEADY, maxMs: 3_000 }, onOutage: (r) => reports.push(r) });
    const pending = cp.heartbeatAgent("agent_any").catch((x: unknown) => x);
    await drive(clock, pending);
    expect(await pending).toMatchObject({ code: API_UNREACHABLE, message: expect.stringMatching(/ECONNREFUSED; 4 attempts over 3\.0 s/) });
    expect(reports).toMatchObject([{ procedure: "agent.heartbeat", fault: "ECONNREFUSED", durationMs: 3_000, attempts: 4, outcome: "gave_up" }]);
  });

  it("a 4xx ends no outage it did not follow: nothing is reported", async () => {
    const reports: OutageReport[] = [];
    const cp = createControlPlane(createApiClient({ apiUrl: api.url, auth: { kind: "token", token } }), { apiUrl: api.url, onOutage: (r) => reports.push(r) });
    await expect(cp.reopenTodo({ todoId: "todo_missing", reason: "x" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(reports).toEqual([]);
  });
});

describe("backoff", () => {
  it("full jitter under a doubling ceiling capped at capMs; a non-tRPC error is not transient", () => {
    const p = { baseMs: 100, capMs: 1_000 };
    expect([1, 2, 3, 4, 5, 10].map((a) => backoffMs(a, { ...p, random: () => 0.999999 }))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffMs(3, { ...p, random: () => 0 })).toBe(0);
    expect(transienceOf(new Error("boom"))).toBeNull();
  });
});
