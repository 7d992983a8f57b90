// The CLI calls the same operators as the web app, through the API over HTTP.
import { createTRPCClient, httpLink } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "@phoneloop/api";

// Mirrors apps/api's header names; the CLI imports only types from the API, never its server code.
export const MEMBER_HEADER = "x-phoneloop-member";
export const AGENT_HEADER = "x-phoneloop-agent";

export interface Caller {
  agent?: string | undefined;
  member?: string | undefined;
}

export function createCliClient(apiUrl: string, who: Caller) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${apiUrl.replace(/\/+$/, "")}/trpc`,
        transformer: superjson,
        headers: () => ({
          ...(who.member ? { [MEMBER_HEADER]: who.member } : {}),
          ...(who.agent ? { [AGENT_HEADER]: who.agent } : {}),
        }),
      }),
    ],
  });
}
export type CliClient = ReturnType<typeof createCliClient>;
