// The event stream across an API process's graceful shutdown: two API servers on one database behind a round-robin
// proxy; the stream opens on A, A shuts down (its stream ends with SERVICE_UNAVAILABLE, which httpSubscriptionLink
// takes as "reconnect": its EventSource connects again with the last event id), and the proxy sends the new connection
// to B: every event once, in order, no error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer, type ApiServer } from "@phoneloop/api";
import { agentTokenHeaders, signUpMember, startRoundRobinProxy, useApiServer, type RoundRobinProxy } from "@phoneloop/api/testing";
import { useTestDatabase } from "@phoneloop/state/testing";
import { createApiClient } from "./api-client.ts";
import { subscribeEvents, type StreamedEvent } from "./events.ts";

const t = useTestDatabase();
const b = useApiServer(t);
let a: ApiServer;
let proxy: RoundRobinProxy;
let workspaceId: string;
let token: string;

beforeAll(async () => {
  a = await createApiServer({ db: t.db, databaseUrl: t.url, port: 0, host: "127.0.0.1" });
  proxy = await startRoundRobinProxy([a.url, b.url]);
  const admin = await signUpMember({ db: t.db, auth: b.auth }, { role: "admin" });
  workspaceId = admin.workspaceId;
  token = (await agentTokenHeaders(t.db, { workspaceId, issuedBy: admin.userId })).token;
});
afterAll(async () => {
  await new Promise<void>((r) => proxy.server.close(() => r()));
  proxy.server.closeAllConnections();
});

const commit = async (subjectId: string) => (await t.db.event.create({ data: { workspaceId, operator: "test.touch", actor: "test", subjectId } })).id.toString();

describe("subscribeEvents", () => {
  it("resumes on another process after the one serving it shuts down, losing and repeating nothing", async () => {
    const seen: StreamedEvent[] = [];
    const errors: unknown[] = [];
    let starts = 0;
    const waiters: (() => void)[] = [];
    const changed = () => waiters.splice(0).forEach((w) => w());
    const until = async (f: () => boolean) => {
      while (!f()) await new Promise<void>((r) => waiters.push(r));
    };
    const sub = subscribeEvents(createApiClient({ apiUrl: proxy.url, auth: { kind: "token", token } }), {}, {
      onStarted: () => (starts++, changed()),
      onEvent: (e) => (seen.push(e), changed()),
      onError: (e) => (errors.push(e), changed()),
    });
    try {
      await until(() => starts === 1);
      const first = await commit("first");
      await until(() => seen.length === 1);

      await a.close({ graceMs: 5_000 });
      // Committed while no process serves the stream: delivered from the backlog once it is open again.
      const second = await commit("second");
      await until(() => starts === 2 || errors.length > 0);
      const third = await commit("third");
      await until(() => seen.length >= 3 || errors.length > 0);

      expect(errors).toEqual([]);
      expect(seen.map((e) => e.id)).toEqual([first, second, third]);
      expect(proxy.served.filter((s) => s.path.endsWith("event.stream")).map((s) => s.upstream)).toEqual([0, 1]);
    } finally {
      sub.unsubscribe();
    }
  });
});
