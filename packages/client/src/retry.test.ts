// The client's retries against the real API and Postgres: a call made while the API is down waits for it to come
// back on the same port and succeeds; the wait is bounded and then says how long it tried; a 4xx is never retried.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock, type Clock } from "@phoneloop/agent/ports";
import { createApiServer, type ApiServer } from "@phoneloop/api";
import { issueAgentToken } from "@phoneloop/state";
import { seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { createApiClient } from "./api-client.ts";
import { createControlPlane } from "./control-plane.ts";
import { API_UNREACHABLE, ControlPlaneError } from "./errors.ts";
import { backoffMs, transienceOf } from "./retry.ts";

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

describe("backoff", () => {
  it("full jitter under a doubling ceiling capped at capMs; a non-tRPC error is not transient", () => {
    const p = { baseMs: 100, capMs: 1_000 };
    expect([1, 2, 3, 4, 5, 10].map((a) => backoffMs(a, { ...p, random: () => 0.999999 }))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffMs(3, { ...p, random: () => 0 })).toBe(0);
    expect(transienceOf(new Error("boom"))).toBeNull();
  });
});
