// A typed client over real HTTP, the way the web app and CLI talk to the API; for tests.
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { EventSource } from "eventsource";
import superjson from "superjson";
import type { AppRouter } from "./root.ts";
import { AGENT_HEADER, MEMBER_HEADER } from "./trpc.ts";

export function testClient(baseUrl: string, who: { member?: string; agent?: string } = {}) {
  const url = `${baseUrl}/trpc`;
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({ url, transformer: superjson, EventSource }),
        false: httpLink({
          url,
          transformer: superjson,
          headers: () => ({
            ...(who.member ? { [MEMBER_HEADER]: who.member } : {}),
            ...(who.agent ? { [AGENT_HEADER]: who.agent } : {}),
          }),
        }),
      }),
    ],
  });
}
