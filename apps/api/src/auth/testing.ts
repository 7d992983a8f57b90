// Test helpers that go through the real auth path: a person signed up through better-auth (their session cookie
// as request headers) with a membership made by the state core's operators, and an agent token's headers.
import { randomBytes } from "node:crypto";
import { addMember, createWorkspace, issueAgentToken, type Db, type Role } from "@phoneloop/state";
import type { Auth } from "./auth.ts";

export interface SignedUpMember {
  userId: string;
  workspaceId: string;
  role: Role;
  email: string;
  password: string;
  /** Send these with a request to act as this person (the session cookie). */
  headers: Record<string, string>;
}

/** A new person with `role` in `workspaceId`, or in a new workspace (made by a new admin) when none is named. */
export async function signUpMember(services: { db: Db; auth: Auth }, opts: { workspaceId?: string; role: Role; name?: string }): Promise<SignedUpMember> {
  const email = `p${randomBytes(6).toString("hex")}@example.test`;
  const password = `pw-${randomBytes(9).toString("base64url")}`;
  const { headers, response } = await services.auth.api.signUpEmail({ body: { name: opts.name ?? `A ${opts.role}`, email, password }, returnHeaders: true });
  const userId = response.user.id;
  let workspaceId = opts.workspaceId;
  if (!workspaceId && opts.role === "admin") {
    workspaceId = (await createWorkspace(services.db, { name: "Test team", adminUserId: userId })).workspace.id;
  } else {
    if (!workspaceId) workspaceId = (await signUpMember(services, { role: "admin" })).workspaceId;
    await addMember(services.db, { workspaceId, userId, role: opts.role });
  }
  const cookie = headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { userId, workspaceId, role: opts.role, email, password, headers: { cookie } };
}

/** An agent token of `workspaceId` and the header that sends it. */
export async function agentTokenHeaders(db: Db, opts: { workspaceId: string; issuedBy: string; name?: string }): Promise<{ token: string; tokenId: string; headers: Record<string, string> }> {
  const issued = await issueAgentToken(db, { workspaceId: opts.workspaceId, issuedBy: opts.issuedBy, name: opts.name ?? "test agent" });
  return { ...issued, headers: { authorization: `Bearer ${issued.token}` } };
}
