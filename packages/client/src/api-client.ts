// THE one tRPC client of the product (web app, CLI, headless agent, tests, benchmarks): batched queries and
// mutations over HTTP, the event stream over SSE, superjson on both, the caller's credentials on every request.
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { EventSource as EventSourcePonyfill } from "eventsource";
import superjson from "superjson";
import { credentialHeaders, TRPC_PATH, type AppRouter, type Credentials } from "@phoneloop/api/contract";

export type { Credentials } from "@phoneloop/api/contract";

export interface ApiClientInit {
  /** Base URL of the API, e.g. http://127.0.0.1:4000 (tRPC is under /trpc). */
  apiUrl: string;
  /** Who calls; a function is read on every request (a runner that registers later, a member who signs in). */
  credentials?: Credentials | (() => Credentials);
}

// Browsers (and Node ≥ 22) have EventSource; Node 20 does not, so the spec-compliant fetch-based ponyfill stands in.
const EventSourceImpl: typeof EventSourcePonyfill = (globalThis as unknown as { EventSource?: typeof EventSourcePonyfill }).EventSource ?? EventSourcePonyfill;

export function createApiClient(init: ApiClientInit) {
  const url = `${trimUrl(init.apiUrl)}${TRPC_PATH}`;
  const credentials = init.credentials ?? {};
  const headers = () => credentialHeaders(typeof credentials === "function" ? credentials() : credentials);
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({ url, transformer: superjson, EventSource: EventSourceImpl }),
        false: httpBatchLink({ url, transformer: superjson, headers, maxURLLength: 8000 }),
      }),
    ],
  });
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** The API's base URL without trailing slashes. */
export function trimUrl(apiUrl: string): string {
  return apiUrl.replace(/\/+$/, "");
}
