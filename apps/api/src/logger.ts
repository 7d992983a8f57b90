// The API's one logger: pino, JSON lines on stdout. A line carries the request id (also sent back as the
// x-request-id response header, so a person can quote it) and the run id when the request names one. What a line
// never carries: input values, headers, cookies, tokens or an error's message (a database error's message quotes
// the statement's parameters, a validation message may quote the value). A failure is one line: the procedure or
// route, its status and code, the names of the fields at fault, and for a 500 the error's type, code and stack frames.
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { pino, type DestinationStream, type Logger } from "pino";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { TRPCError } from "@trpc/server";
import { isStateError } from "@phoneloop/state";
import { inputIssues } from "./errors.ts";

export type ApiLogger = Logger;

export const REQUEST_ID_HEADER = "x-request-id";

/** `destination` defaults to stdout; tests pass a stream to read the lines. */
export function createApiLogger(opts: { destination?: DestinationStream; level?: pino.LevelWithSilent } = {}): ApiLogger {
  return pino(
    {
      base: { service: "phoneloop-api" },
      level: opts.level ?? "info",
      // Belt and braces: should a header or credential object ever be passed to a line, its secrets are cut.
      redact: {
        paths: ["headers.authorization", "headers.cookie", "headers['x-phoneloop-share']", "*.apiKey", "*.token", "*.password", "*.secret"],
        censor: "[redacted]",
      },
    },
    opts.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/** A logger that writes nothing (tests and embedders that pass none). */
export const silentLogger: ApiLogger = pino({ level: "silent" });

const requestIds = new WeakMap<IncomingMessage, string>();

/** The request's id: made on first use, the same for every procedure of a batch. */
export function requestIdOf(req: IncomingMessage): string {
  let id = requestIds.get(req);
  if (!id) {
    id = randomUUID();
    requestIds.set(req, id);
  }
  return id;
}

/** What a line may say about an error: its type, its code and where it was thrown — never its message. */
export function errorFields(e: unknown): { type: string; code?: string; frames?: string[] } {
  if (!(e instanceof Error)) return { type: typeof e };
  const code = (e as { code?: unknown }).code;
  const frames = (e.stack ?? "")
    .split("\n")
    .filter((l) => /^\s+at /.test(l))
    .slice(0, 12)
    .map((l) => l.trim());
  return { type: e.name || e.constructor.name, ...(typeof code === "string" ? { code } : {}), ...(frames.length ? { frames } : {}) };
}

/** A run id the request names (a header, or the procedure input's runId), for the line's runId. */
export function runIdOf(req: IncomingMessage | undefined, input: unknown): string | undefined {
  const fromInput = input !== null && typeof input === "object" ? (input as { runId?: unknown }).runId : undefined;
  if (typeof fromInput === "string" && /^[\w-]{1,200}$/.test(fromInput)) return fromInput;
  const header = req?.headers["x-phoneloop-run"];
  return typeof header === "string" && /^[\w-]{1,200}$/.test(header) ? header : undefined;
}

/** One line for a failed procedure: warn for the caller's mistakes (4xx), error for the API's (5xx). */
export function logProcedureFailure(log: ApiLogger, f: { error: TRPCError; path: string | undefined; type: string; req: IncomingMessage | undefined; input: unknown }): void {
  const status = getHTTPStatusCodeFromError(f.error);
  const state = isStateError(f.error.cause) ? f.error.cause : undefined;
  const issues = f.error.code === "BAD_REQUEST" && !state ? inputIssues(f.error.cause) : state?.code === "INVALID_INPUT" ? inputIssues(state.details) : undefined;
  const runId = runIdOf(f.req, f.input);
  const line = {
    reqId: f.req ? requestIdOf(f.req) : undefined,
    ...(runId ? { runId } : {}),
    procedure: f.path ?? "(unknown)",
    type: f.type,
    status,
    code: state?.code ?? f.error.code,
    ...(issues?.length ? { fields: issues.map((i) => i.path) } : {}),
    ...(status >= 500 ? { err: errorFields(f.error.cause ?? f.error) } : {}),
  };
  if (status >= 500) log.error(line, "procedure failed");
  else log.warn(line, "procedure refused");
}
