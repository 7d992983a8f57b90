// THE one tRPC client of the product (web app, CLI, headless agent, tests, benchmarks): batched queries and
// mutations over HTTP, the event stream over SSE, superjson on both, the caller's credentials on every request.
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { EventSource as EventSourcePonyfill } from "eventsource";
import superjson from "superjson";
import { MAX_BATCH_CALLS, TRPC_PATH, type AppRouter, type ClientAuth } from "@phoneloop/api/contract";
import { deadlineFetch } from "./deadline.ts";

export type { ClientAuth } from "@phoneloop/api/contract";

export interface ApiClientInit {
  /** Base URL of the API, e.g. http://127.0.0.1:4000 (tRPC is under /trpc). */
  apiUrl: string;
  /** The web app's session cookie, or an agent token; a function is read on every request (a tab's token arrives
   * later). Default: none (only what anyone may call). */
  auth?: ClientAuth | (() => ClientAuth);
  /**
   * A query or mutation without an answer after this long (ms) is abandoned: the API, or the database behind it,
   * is stuck, and the caller's retries (retry.ts) try again instead of waiting for good. Blob uploads too; not the event
   * stream, which stays open (its connecting has the same deadline, until the stream starts). Every request has its
   * own timer (deadline.ts). Default 30 000.
   */
  requestTimeoutMs?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** The one place credentials go onto requests: every fetch of the client and its event stream goes through it. */
export function authorizedFetch(auth: ClientAuth | (() => ClientAuth)): typeof fetch {
  return (input, init) => {
    const a = typeof auth === "function" ? auth() : auth;
    const headers = new Headers(init?.headers);
    if (a.kind === "token") headers.set("authorization", `Bearer ${a.token}`);
    if (a.kind === "cookie" && a.cookie) headers.set("cookie", a.cookie);
    // The session cookie is the API's (another port of the same host): sent only when asked for.
    return fetch(input, { ...init, headers, ...(a.kind === "cookie" ? { credentials: "include" as const } : {}) });
  };
}

export function createApiClient(init: ApiClientInit) {
  const url = `${trimUrl(init.apiUrl)}${TRPC_PATH}`;
  const authFetch = authorizedFetch(init.auth ?? { kind: "none" });
  const timeoutMs = init.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const boundedFetch = deadlineFetch(authFetch, timeoutMs);
  const streamFetch = deadlineFetch(authFetch, timeoutMs, { until: "headers" });
  const client = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        // The fetch-based EventSource, so the stream carries the same credentials (a native one cannot send a token).
        true: httpSubscriptionLink({
          url,
          transformer: superjson,
          EventSource: EventSourcePonyfill,
          eventSourceOptions: () => ({ fetch: streamFetch, withCredentials: true }),
        }),
        // At most the API's batch size per request (more calls in one tick go in several requests).
        false: httpBatchLink({ url, transformer: superjson, fetch: boundedFetch, maxURLLength: 8000, maxItems: MAX_BATCH_CALLS }),
      }),
    ],
  });
  transports.set(client, { apiUrl: trimUrl(init.apiUrl), fetch: boundedFetch });
  return client;
}

/** Each client's API and credentialed fetch, for the plain-HTTP routes beside tRPC (blob uploads, blobs.ts). */
const transports = new WeakMap<object, { apiUrl: string; fetch: typeof fetch }>();

export function transportOf(client: object): { apiUrl: string; fetch: typeof fetch } {
  const t = transports.get(client);
  if (!t) throw new Error("This client was not made by createApiClient; make it there so blob uploads carry its credentials.");
  return t;
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** The API's base URL without trailing slashes. */
export function trimUrl(apiUrl: string): string {
  return apiUrl.replace(/\/+$/, "");
}
