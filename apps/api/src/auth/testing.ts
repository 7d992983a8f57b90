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

/** One tRPC call over HTTP with `headers` (a session cookie, a bearer token or none): its status and the error's message. */
export async function callOverHttp(apiUrl: string, path: string, input: unknown, headers: Record<string, string> = {}): Promise<{ status: number; data: unknown; message: string }> {
  const { appRouter } = await import("../root.ts");
  const proc = (appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)[path];
  if (!proc) throw new Error(`callOverHttp: no procedure ${path}`);
  const payload = JSON.stringify({ json: input });
  const url = `${apiUrl}/trpc/${path}`;
  if (proc._def.type === "subscription") return openStreamOverHttp(url, payload, headers);
  const res =
    proc._def.type === "mutation"
      ? await fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: payload })
      : await fetch(`${url}?input=${encodeURIComponent(payload)}`, { headers });
  const body = (await res.json()) as { result?: { data?: { json?: unknown } }; error?: { json?: { message?: string } } };
  return { status: res.status, data: body.result?.data?.json, message: body.error?.json?.message ?? "" };
}

/**
 * A subscription's answer: 200 at the first event it delivers (so give it a `lastEventId` before an event it may
 * read), else the status its error carries. tRPC writes "connected" before it knows either, so that says nothing.
 */
async function openStreamOverHttp(url: string, payload: string, headers: Record<string, string>): Promise<{ status: number; data: unknown; message: string }> {
  const ac = new AbortController();
  const res = await fetch(`${url}?input=${encodeURIComponent(payload)}`, { headers: { ...headers, accept: "text/event-stream" }, signal: ac.signal });
  if (!res.headers.get("content-type")?.includes("text/event-stream")) {
    const body = (await res.json()) as { error?: { json?: { message?: string } } };
    return { status: res.status, data: undefined, message: body.error?.json?.message ?? "" };
  }
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { status: 500, data: undefined, message: `the stream ended without an event: ${text}` };
      text += value;
      let end: number;
      while ((end = text.indexOf("\n\n")) >= 0) {
        const fields = Object.fromEntries(text.slice(0, end).split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trimStart()]));
        text = text.slice(end + 2);
        if (fields.event === "serialized-error") {
          const err = (JSON.parse(fields.data ?? "{}") as { json?: { message: string; data: { httpStatus: number } } }).json;
          return { status: err?.data.httpStatus ?? 500, data: undefined, message: err?.message ?? "" };
        }
        if (fields.event === undefined && fields.data !== undefined) return { status: 200, data: JSON.parse(fields.data) as unknown, message: "" };
      }
    }
  } finally {
    ac.abort();
  }
}
