// All a client may know of the API, browser-safe: where tRPC, /health and the account routes live, how a caller
// proves who it is, and the router's type. Nothing here imports server code at runtime.
export type { AppRouter, RouterInputs, RouterOutputs } from "./root.ts";
export type { StreamedEvent } from "./events.ts";
export type { Health } from "./health.ts";
/** What evidence rows and steps hold (one schema per evidence kind): the core's, browser-safe. */
export {
  EVIDENCE_DATA,
  RecordedAction,
  ListedElement,
  PendingGate,
  pendingGateOf,
  readEvidenceData,
  type EvidenceData,
  type PolicyRecord,
  type GatePolicy,
  type StepAction,
  type StepOutcome,
} from "@phoneloop/state/domain";

export const TRPC_PATH = "/trpc";
/** Calls one tRPC request may batch; more are refused (413). The client's batches hold at most this many. */
export const MAX_BATCH_CALLS = 50;
export const HEALTH_PATH = "/health";
/** Liveness (the process answers; no database) and readiness (this process should get traffic: database, migrations, event reader, not draining) for a load balancer's probes. */
export const LIVEZ_PATH = "/livez";
export const READYZ_PATH = "/readyz";

/** better-auth's routes (sign-in, sign-out, session) and the product's account routes (setup, invite, me). */
export const AUTH_PATH = "/api/auth";
export const ACCOUNT_PATH = "/api/account";
/** Picks one of the signed-in person's workspaces; without it, their oldest membership. */
export const WORKSPACE_HEADER = "x-phoneloop-workspace";

/**
 * How a client proves who it is: the session cookie (a browser sends its own with `credentials: "include"`; a Node
 * caller — tests — passes the cookie header it got at sign-in), or an agent token (`plt_…`, as `Authorization: Bearer`).
 */
export type ClientAuth = { kind: "cookie"; cookie?: string } | { kind: "token"; token: string } | { kind: "none" };

/** Stored blobs (screenshots) by sha256, as plain cacheable URLs for <img>. */
export const BLOB_PATH = "/blobs";
/** A share link's page has no session: it passes its token as `?share=` so its run's screenshots load. */
export const BLOB_SHARE_PARAM = "share";

/** The URL of one blob, e.g. for <img src>. */
export function blobUrl(apiUrl: string, sha256: string, share?: string): string {
  return `${apiUrl.replace(/\/+$/, "")}${BLOB_PATH}/${sha256}${share ? `?${BLOB_SHARE_PARAM}=${encodeURIComponent(share)}` : ""}`;
}
