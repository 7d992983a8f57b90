// One error type for every failure the API reports: its state code (UPPER_SNAKE_CASE) and the API's own message,
// which says what happened and what to do. A lost lease or a taken todo is the port's ControlPlaneConflict.
import { TRPCClientError } from "@trpc/client";
import { API_UNREACHABLE, ControlPlaneConflict } from "@phoneloop/agent/ports";

export class ControlPlaneError extends Error {
  override readonly name = "ControlPlaneError";
  constructor(
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> | null = null,
  ) {
    super(message);
  }
}

export { API_UNREACHABLE };

/** The request never got an answer: the API is down, the URL is wrong, or the network is. */
export function apiUnreachable(apiUrl: string, cause: string): ControlPlaneError {
  return new ControlPlaneError(
    API_UNREACHABLE,
    `Cannot reach the PhoneLoop API at ${apiUrl} (${cause}). Start it with \`npm start\` (or DATABASE_URL=… npm run start --workspace @phoneloop/api), ` +
      `or point PHONELOOP_API_URL / --api-url at a running one.`,
  );
}

interface ErrorData {
  code?: string;
  stateCode?: string | null;
  details?: Record<string, unknown> | null;
}

/** Any error from a tRPC call as ControlPlaneError / ControlPlaneConflict; `what` names the call in the message. */
export function toControlPlaneError(e: unknown, apiUrl: string, what?: string): Error {
  if (e instanceof ControlPlaneError || e instanceof ControlPlaneConflict) return e;
  if (e instanceof TRPCClientError) {
    const data = e.data as ErrorData | null | undefined;
    const tried = e as { attempts?: number; retriedMs?: number };
    const retried = tried.attempts ? `; ${tried.attempts} attempt${tried.attempts === 1 ? "" : "s"} over ${((tried.retriedMs ?? 0) / 1000).toFixed(1)} s` : "";
    if (!data?.code) return apiUnreachable(apiUrl, `${networkReason(e)}${retried}`);
    const code = data.stateCode ?? data.code;
    const message = what ? `${what}: ${e.message}` : e.message;
    if (code === "CONFLICT") return new ControlPlaneConflict(message, data.details ?? null);
    return new ControlPlaneError(code, message, data.details ?? null);
  }
  return e instanceof Error ? e : new Error(String(e));
}

/** The code of an error as this package reports it (CONFLICT for a conflict), or undefined. */
export function codeOf(e: unknown): string | undefined {
  if (e instanceof ControlPlaneConflict) return "CONFLICT";
  if (e instanceof ControlPlaneError) return e.code;
  return undefined;
}

/** The most specific reason a request never got an answer (ECONNREFUSED, ENOTFOUND, …), digging through causes. */
export function networkReason(e: unknown): string {
  const seen: string[] = [];
  for (let c: unknown = e, depth = 0; c && depth < 6; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
    // The client's own per-request timeout (api-client.ts): the API took the request and did not answer in time.
    if ((c as { name?: unknown }).name === "TimeoutError") return "ETIMEDOUT";
    const errors = (c as { errors?: unknown[] }).errors;
    const inner = Array.isArray(errors) ? (errors[0] as { code?: unknown } | undefined)?.code : undefined;
    if (typeof inner === "string") return inner;
    if (c instanceof Error) seen.push(c.message);
  }
  return seen.at(-1) ?? String(e);
}
