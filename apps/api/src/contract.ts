// All a client may know of the API, browser-safe: where tRPC and /health live, who the caller is and how that is
// sent (one pair of functions, so replacing these headers with sessions or agent tokens is one edit), and the
// router's type. Nothing here imports server code at runtime.
export type { AppRouter, RouterInputs, RouterOutputs } from "./root.ts";
export type { StreamedEvent } from "./events.ts";
export type { Health } from "./health.ts";

export const TRPC_PATH = "/trpc";
export const HEALTH_PATH = "/health";

export const MEMBER_HEADER = "x-phoneloop-member";
export const AGENT_HEADER = "x-phoneloop-agent";

/** Who calls: an agent (a worker or a browser tab's runner), a team member, or both. */
export interface Credentials {
  agentId?: string | undefined;
  memberId?: string | undefined;
}

/** The request headers that carry the credentials (the client side). */
export function credentialHeaders(c: Credentials): Record<string, string> {
  return {
    ...(c.memberId ? { [MEMBER_HEADER]: c.memberId } : {}),
    ...(c.agentId ? { [AGENT_HEADER]: c.agentId } : {}),
  };
}

/** The credentials a request carries (the server side). */
export function credentialsOf(headers: Headers): { agentId: string | null; memberId: string | null } {
  return {
    memberId: headers.get(MEMBER_HEADER)?.trim() || null,
    agentId: headers.get(AGENT_HEADER)?.trim() || null,
  };
}
