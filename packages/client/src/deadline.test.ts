// Every request of the client ends by its deadline, also after a garbage collection (on Node 20 a timeout signal
// combined with AbortSignal.any stopped firing once one had run): the real client against a server that takes each
// request and never answers. The assertions are about what the request rejects with, never about how fast.
import { getEventListeners } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import { TRPCClientError } from "@trpc/client";
import { createApiClient } from "./api-client.ts";
import { readBlob, uploadBlob } from "./blobs.ts";
import { DeadlineExceeded, deadlineFetch } from "./deadline.ts";
import { subscribeEvents } from "./events.ts";
import { checkApi } from "./health.ts";
import { API_UNREACHABLE, networkReason } from "./errors.ts";

// A real, full garbage collection on demand, without starting the worker with --expose-gc: the flag set at run time
// exposes gc() to a fresh context.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** A short deadline: the server never answers, so only the deadline ends each request. */
const DEADLINE_MS = 300;

interface Silent {
  url: string;
  /** Resolves with each request once the server has it (its headers read). */
  nextRequest(): Promise<IncomingMessage>;
}

let server: Server | undefined;

/** A server that takes every request and answers nothing; `respond` may start an answer and then go silent. */
async function silentServer(respond?: (res: ServerResponse) => void): Promise<Silent> {
  const waiting: ((req: IncomingMessage) => void)[] = [];
  const arrived: IncomingMessage[] = [];
  server = createServer((req, res) => {
    respond?.(res);
    const w = waiting.shift();
    if (w) w(req);
    else arrived.push(req);
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    nextRequest: () => {
      const ready = arrived.shift();
      return ready ? Promise.resolve(ready) : new Promise((r) => waiting.push(r));
    },
  };
}

afterEach(async () => {
  const s = server;
  server = undefined;
  if (!s) return;
  s.closeAllConnections();
  await new Promise<void>((r) => s.close(() => r()));
});

/** The request is with the server; collect garbage twice (the second run finalizes what the first found). */
async function collectGarbageOnceArrived(silent: Silent): Promise<void> {
  await silent.nextRequest();
  gc();
  await new Promise((r) => setImmediate(r));
  gc();
}

/** The DeadlineExceeded in an error's cause chain, if any. */
function deadlineIn(e: unknown): DeadlineExceeded | undefined {
  for (let c: unknown = e, depth = 0; c && depth < 6; c = (c as { cause?: unknown }).cause, depth++) {
    if (c instanceof DeadlineExceeded) return c;
  }
  return undefined;
}

describe("a request to a server that never answers is abandoned at its deadline, after a garbage collection too", () => {
  it("a batched query", async () => {
    const silent = await silentServer();
    const client = createApiClient({ apiUrl: silent.url, requestTimeoutMs: DEADLINE_MS });
    const pending = client.goal.get.query({ goalId: "goal_any" }).catch((e: unknown) => e);
    await collectGarbageOnceArrived(silent);
    const e = await pending;
    expect(e).toBeInstanceOf(TRPCClientError);
    expect(deadlineIn(e)).toMatchObject({ ms: DEADLINE_MS });
    expect(deadlineIn(e)?.message).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/trpc\/goal\.get got no answer within 300 ms and was abandoned/);
    // What the retries see: a request that got no answer (retry.ts), reported as ETIMEDOUT.
    expect(networkReason(e)).toBe("ETIMEDOUT");
  }, 20_000);

  it("a mutation", async () => {
    const silent = await silentServer();
    const client = createApiClient({ apiUrl: silent.url, requestTimeoutMs: DEADLINE_MS });
    const pending = client.agent.heartbeat.mutate({ agentId: "agent_any" }).catch((e: unknown) => e);
    await collectGarbageOnceArrived(silent);
    expect(deadlineIn(await pending)?.message).toMatch(/^POST .*\/trpc\/agent\.heartbeat got no answer/);
  }, 20_000);

  it("a blob upload and a blob read", async () => {
    const silent = await silentServer();
    const client = createApiClient({ apiUrl: silent.url, requestTimeoutMs: DEADLINE_MS });
    const upload = uploadBlob(client, { bytes: new Uint8Array([1, 2, 3]), mime: "image/png" }).catch((e: unknown) => e);
    await collectGarbageOnceArrived(silent);
    expect(deadlineIn(await upload)?.message).toMatch(/^POST .*\/blobs got no answer/);
    const read = readBlob(client, "a".repeat(64)).catch((e: unknown) => e);
    await collectGarbageOnceArrived(silent);
    expect(deadlineIn(await read)?.message).toMatch(/^GET .*\/blobs\/a{64} got no answer/);
  }, 20_000);

  it("the health check says the API cannot be reached, and why", async () => {
    const silent = await silentServer();
    const pending = checkApi(silent.url, DEADLINE_MS).catch((e: unknown) => e);
    await collectGarbageOnceArrived(silent);
    const e = await pending;
    expect(e).toMatchObject({ code: API_UNREACHABLE });
    expect((e as Error).message).toContain("(ETIMEDOUT)");
  }, 20_000);

  it("an answer that starts and then goes silent: the deadline covers the body too", async () => {
    const silent = await silentServer((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('[{"result":');
    });
    const client = createApiClient({ apiUrl: silent.url, requestTimeoutMs: DEADLINE_MS });
    const pending = client.goal.get.query({ goalId: "goal_any" }).catch((e: unknown) => e);
    await collectGarbageOnceArrived(silent);
    expect(deadlineIn(await pending)).toBeInstanceOf(DeadlineExceeded);
  }, 20_000);
});

describe("a stream that stays open by design", () => {
  it("the event stream's connecting is abandoned at its deadline and tried again", async () => {
    const silent = await silentServer();
    const client = createApiClient({ apiUrl: silent.url, requestTimeoutMs: DEADLINE_MS });
    const sub = subscribeEvents(client, {}, { onEvent: () => undefined });
    try {
      await collectGarbageOnceArrived(silent);
      // Only an abandoned first connection leads to a second: it would wait for good otherwise.
      const again = await silent.nextRequest();
      expect(again.headers.accept).toContain("text/event-stream");
    } finally {
      sub.unsubscribe();
    }
  }, 20_000);

  it("once it has started, a stream outlives the deadline (until: headers)", async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first ");
      // Long after the deadline would have fired (timers fire in order of their due time).
      setTimeout(() => res.end("second"), DEADLINE_MS * 3);
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const res = await deadlineFetch((input, init) => fetch(input, init), DEADLINE_MS, { until: "headers" })(url);
    gc();
    expect(await res.text()).toBe("first second");
  }, 20_000);
});

describe("the caller's signal", () => {
  it("aborts the request with the caller's reason, and once a request settles nothing listens on the caller's signal", async () => {
    const silent = await silentServer();
    const bounded = deadlineFetch((input, init) => fetch(input, init), 60_000);
    const caller = new AbortController();
    const stopped = bounded(silent.url, { signal: caller.signal }).catch((e: unknown) => e);
    await silent.nextRequest();
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(1);
    caller.abort(new Error("the caller stopped"));
    expect(await stopped).toMatchObject({ message: "the caller stopped" });
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);

    // A long-lived signal used for many requests that settle by their deadline keeps no listener of theirs.
    const shortBounded = deadlineFetch((input, init) => fetch(input, init), DEADLINE_MS);
    const longLived = new AbortController();
    const outcomes = await Promise.all([1, 2, 3].map(() => shortBounded(silent.url, { signal: longLived.signal }).catch((e: unknown) => e)));
    for (const o of outcomes) expect(o).toBeInstanceOf(DeadlineExceeded);
    expect(getEventListeners(longLived.signal, "abort")).toHaveLength(0);
  }, 20_000);

  it("a response read to its end leaves no listener either", async () => {
    server = createServer((_req, res) => res.end("done"));
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const caller = new AbortController();
    const res = await deadlineFetch((input, init) => fetch(input, init), 60_000)(url, { signal: caller.signal });
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(1); // the body is not read yet: still followed
    expect(await res.text()).toBe("done");
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  }, 20_000);
});
