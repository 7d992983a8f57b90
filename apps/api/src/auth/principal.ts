// Who calls the API. Every procedure's permission check and every Event's actor start from the Principal resolved
// here from the request's headers; a header or body field naming a member or agent is never trusted.
import { agentTokenStanding, membershipsOf, openShare, verifyAgentToken, type Db, type Role, type VerifiedAgentToken } from "@phoneloop/state";
import { WORKSPACE_HEADER } from "../contract.ts";
import type { SessionReader } from "./session-reader.ts";

export { ROLES, type Role } from "@phoneloop/state/domain";

export type Principal =
  | { kind: "member"; userId: string; workspaceId: string; role: Role; name: string; email: string }
  // agentId null until it registers; its power is at most issuerRole, the current role of the member who issued it.
  | { kind: "agent"; agentId: string | null; tokenId: string; workspaceId: string; issuedBy: string; issuerRole: Role; tab: boolean }
  | { kind: "share"; shareId: string; runId: string; workspaceId: string }
  | { kind: "anonymous" };

/** Agent tokens travel as `Authorization: Bearer plt_...`. */
export const AGENT_TOKEN_PREFIX = "plt_";
/** A share link's token, for blob reads of the shared run (share.open takes it as input instead). */
export const SHARE_HEADER = "x-phoneloop-share";
export { WORKSPACE_HEADER } from "../contract.ts";

export const ANONYMOUS: Principal = { kind: "anonymous" };

/** What resolving a principal needs of the API's services. */
export interface PrincipalServices {
  db: Db;
  auth: SessionReader;
}

/**
 * Resolves who calls: `Authorization: Bearer plt_...` (agent token), else the session cookie (member), else a share
 * token (only share procedures / blob reads accept it), else anonymous. A credential that does not verify is
 * anonymous (the permission check then answers 401 with what to do). An agent token works only while the member
 * who issued it is a member of its workspace, and carries that member's current role (permissions.ts bounds it).
 */
export async function resolvePrincipal(services: PrincipalServices, headers: Headers): Promise<Principal> {
  const bearer = bearerToken(headers);
  if (bearer?.startsWith(AGENT_TOKEN_PREFIX)) {
    const agent = await verifyAgentToken(services.db, bearer);
    return agent ? agentPrincipal(agent) : ANONYMOUS;
  }
  const session = await services.auth.sessionOf(headers);
  if (session) {
    const memberships = await membershipsOf(services.db, session.user.id);
    const wanted = headers.get(WORKSPACE_HEADER);
    const membership = wanted ? memberships.find((m) => m.workspaceId === wanted) : memberships[0];
    if (!membership) return ANONYMOUS;
    return {
      kind: "member",
      userId: session.user.id,
      workspaceId: membership.workspaceId,
      role: membership.role,
      name: session.user.name,
      email: session.user.email,
    };
  }
  const shareToken = headers.get(SHARE_HEADER);
  if (shareToken) {
    const share = await openShare(services.db, shareToken).catch(() => null);
    return share ? { kind: "share", shareId: share.shareId, runId: share.runId, workspaceId: share.workspaceId } : ANONYMOUS;
  }
  return ANONYMOUS;
}

function agentPrincipal(t: VerifiedAgentToken): Principal {
  return { kind: "agent", agentId: t.agentId, tokenId: t.tokenId, workspaceId: t.workspaceId, issuedBy: t.issuedBy, issuerRole: t.issuerRole, tab: t.tab };
}

/**
 * The same caller as it stands now, from current membership and tokens: a member with their current role (anonymous
 * once removed), an agent token with its issuer's current role (anonymous once revoked, expired or its issuer
 * removed). An open event stream re-decides its caller with this on every membership or token event.
 */
export async function currentPrincipal(db: Db, principal: Principal): Promise<Principal> {
  switch (principal.kind) {
    case "member": {
      const m = await db.membership.findUnique({ where: { workspaceId_userId: { workspaceId: principal.workspaceId, userId: principal.userId } }, select: { role: true } });
      return m ? { ...principal, role: m.role } : ANONYMOUS;
    }
    case "agent": {
      const t = await agentTokenStanding(db, principal.tokenId);
      return t ? agentPrincipal(t) : ANONYMOUS;
    }
    case "share": {
      const share = await db.share.findUnique({ where: { id: principal.shareId }, select: { revokedAt: true, expiresAt: true } });
      return share && !share.revokedAt && !(share.expiresAt && share.expiresAt <= new Date()) ? principal : ANONYMOUS;
    }
    case "anonymous":
      return principal;
  }
}

function bearerToken(headers: Headers): string | undefined {
  const value = headers.get("authorization");
  const match = value ? /^Bearer\s+(\S+)$/i.exec(value) : null;
  return match?.[1];
}

/** The id an Event records as its actor: the member's user id or the agent's id (its token id before it registers). */
export function actorOf(principal: Principal): string {
  switch (principal.kind) {
    case "member":
      return principal.userId;
    case "agent":
      return principal.agentId ?? `token:${principal.tokenId}`;
    case "share":
      return `share:${principal.shareId}`;
    case "anonymous":
      return "anonymous";
  }
}
