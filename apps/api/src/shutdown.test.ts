// Graceful shutdown of a real API process (server.ts in its own process, on its own pool): SIGTERM while a request
// waits on the database and an event stream is open. The request completes, a new connection is refused, the stream
// ends cleanly with the typed "resume elsewhere" answer, and the process exits 0. And the probes: /livez asks
// nothing, /readyz asks what /health does and turns 503 while the process shuts down.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiClient } from "@phoneloop/client";
import { issueAgentToken, poolOf, registerAgent } from "@phoneloop/state";
import { rid, seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { startApiProcess, type ApiProcess } from "./api-process-testing.ts";
import { checkReadiness, SHUTDOWN_PROBLEM, type Readiness } from "./health.ts";
import { EventHub } from "./events.ts";
import { useApiServer } from "./use-api-server.ts";

/** An event stream opened the way httpSubscriptionLink opens it: everything it sent, and whether it ended cleanly. */
async function openStream(url: string, token: string) {
  const input = encodeURIComponent(JSON.stringify({ json: {} }));
  const res = await fetch(`${url}/trpc/event.stream?input=${input}`, { headers: { accept: "text/event-stream", authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let waiters: (() => void)[] = [];
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return "clean end" as const;
      text += decoder.decode(value, { stream: true });
      for (const w of waiters) w();
      waiters = [];
    }
  })();
  const until = async (s: string) => {
    while (!text.includes(s)) await new Promise<void>((r) => waiters.push(r));
  };
  return { ended, until, text: () => text };
}

describe("SIGTERM on a real API process", () => {
  const t = useTestDatabase();
  let api: ApiProcess;
  let token: string;
  let agentId: string;

  beforeAll(async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const issued = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "shutdown worker", issuedBy: admin.id });
    token = issued.token;
    agentId = (await registerAgent(t.db, { id: rid("agent"), name: "shutdown worker", kind: "headless", workspaceId: workspace.id, tokenId: issued.tokenId })).id;
    api = await startApiProcess(t.url, { SHUTDOWN_GRACE_MS: "30000", DATABASE_POOL_MAX: "3" });
  });
  afterAll(async () => {
    await api?.stop();
  });

  it("finishes the request in flight, refuses a new connection, ends the event stream cleanly and exits 0", async () => {
    const ready = await fetch(`${api.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, checks: { shuttingDown: false, database: true, migrations: true, events: true }, problems: [] });
    expect((await fetch(`${api.url}/livez`)).status).toBe(200);

    const stream = await openStream(api.url, token);
    await stream.until("connected");

    // The slow request: the agent's heartbeat waits on a lock this test holds on its row.
    const lock = await poolOf(t.db)!.connect();
    await lock.query("BEGIN");
    await lock.query(`SELECT 1 FROM "Agent" WHERE id = $1 FOR UPDATE`, [agentId]);
    const client = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
    const heartbeat = client.agent.heartbeat.mutate({ agentId });
    for (;;) {
      const waiting = await t.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%Agent%'`;
      if (waiting[0]!.n > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    api.proc.kill("SIGTERM");
    // The stream is told to resume elsewhere (a serialized tRPC error, SERVICE_UNAVAILABLE) and ends cleanly.
    expect(await stream.ended).toBe("clean end");
    expect(stream.text()).toContain("serialized-error");
    expect(stream.text()).toContain("SERVICE_UNAVAILABLE");
    expect(stream.text()).toContain("resume after your last event id");
    // A new connection is refused while the request is still in flight.
    const refused = await fetch(`${api.url}/livez`).then(
      () => "answered",
      (e: unknown) => String((e as { cause?: { code?: string } }).cause?.code),
    );
    expect(refused).toBe("ECONNREFUSED");
    expect(api.proc.exitCode).toBeNull();

    await lock.query("COMMIT");
    lock.release();
    await expect(heartbeat).resolves.toBeDefined();
    expect(await api.exited).toBe(0);
    expect(api.output()).toContain("shut down: exiting");
  });
});

describe("the probes in process", () => {
  const t = useTestDatabase();
  const api = useApiServer(t);

  it("/livez answers without the database, /readyz with the checks and no version", async () => {
    const live = await fetch(`${api.url}/livez`);
    expect([live.status, await live.json()]).toEqual([200, { live: true }]);
    const ready = await fetch(`${api.url}/readyz`);
    const text = await ready.text();
    expect(ready.status).toBe(200);
    expect(text).not.toContain("version");
    expect(JSON.parse(text)).toMatchObject({ ready: true, checks: { shuttingDown: false, database: true, migrations: true, events: true } });
  });

  it("a process shutting down is not ready, whatever its database says, and says so", async () => {
    const hub = new EventHub({ databaseUrl: t.url });
    await hub.start();
    try {
      const r: Readiness = await checkReadiness(t.db, hub, true);
      expect(r).toEqual({ ready: false, checks: { shuttingDown: true }, problems: [SHUTDOWN_PROBLEM] });
      expect((await checkReadiness(t.db, hub, false)).ready).toBe(true);
    } finally {
      await hub.close();
    }
  });
});
