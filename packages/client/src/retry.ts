// Retrying API calls across a restart of the API or a network blip: exponential backoff with full jitter, for a
// bounded time, only for failures that retrying can fix (no answer, or a 5xx) and never for a 4xx (the input or the
// state is wrong; the same call gets the same answer). Writes a client may retry carry idempotency keys, so a repeat
// changes nothing; the few whose repeat is not a no-op are retried only when the request surely never arrived.
import { TRPCClientError } from "@trpc/client";
import type { Clock, Outage } from "@phoneloop/agent/ports";
import { networkReason } from "./errors.ts";

export interface RetryPolicy {
  /** Give up after this long (ms) since the first attempt. Default 30 000. */
  maxMs: number;
  /** First backoff ceiling (ms); it doubles per attempt up to capMs. Default 200. */
  baseMs: number;
  /** Largest backoff ceiling (ms). Default 5 000. */
  capMs: number;
  /** Jitter source in [0, 1). Default Math.random. */
  random: () => number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxMs: 30_000, baseMs: 200, capMs: 5_000, random: Math.random };

/** Procedures whose repeat is not a no-op (a second goal or run, a transition that already happened). */
const REPEAT_UNSAFE = new Set(["goal.create", "run.start", "run.finish", "todo.start", "todo.reopen", "lease.release"]);

/** Error codes of a request that never reached the API (nothing to repeat). */
const NOT_DELIVERED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * not_delivered: the request never reached the API; no_answer: it may have; server_error: a 5xx; busy: the API
 * refused it before doing anything and said when to come back (429 with Retry-After: a caller's uploads at once).
 */
export type Transience = "not_delivered" | "no_answer" | "server_error" | "busy" | null;

/** How a failed call failed, as far as retrying goes; null: do not retry (an answer that is not a 5xx). */
export function transienceOf(e: unknown): Transience {
  if (!(e instanceof TRPCClientError)) return null;
  const data = e.data as { httpStatus?: number; code?: string } | null | undefined;
  if (!data?.code) {
    // No tRPC answer: the connection failed, or a proxy in front answered (502/503/504) while the API was away.
    return NOT_DELIVERED.has(networkReason(e)) ? "not_delivered" : "no_answer";
  }
  if (data.httpStatus === 429 && retryAfterMsOf(e) !== null) return "busy";
  return typeof data.httpStatus === "number" && data.httpStatus >= 500 ? "server_error" : null;
}

/** The wait a busy answer asked for (its Retry-After), or null. */
export function retryAfterMsOf(e: unknown): number | null {
  const v = e instanceof TRPCClientError ? (e.data as { retryAfterMs?: unknown } | null | undefined)?.retryAfterMs : undefined;
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null;
}

export function mayRetry(procedure: string, t: Transience): boolean {
  if (t === null) return false;
  return t !== "no_answer" || !REPEAT_UNSAFE.has(procedure);
}

/** Full jitter: a random wait up to min(cap, base · 2^(attempt-1)). */
export function backoffMs(attempt: number, p: Pick<RetryPolicy, "baseMs" | "capMs" | "random">): number {
  return Math.floor(p.random() * Math.min(p.capMs, p.baseMs * 2 ** (attempt - 1)));
}

export interface RetryOutcome<T> {
  value: T;
  attempts: number;
}

/** A failed attempt that is tried again: which call, its attempt number, why it failed, the pause before the next. */
export interface RetryNotice {
  procedure: string;
  attempt: number;
  reason: string;
  waitMs: number;
}

/**
 * One outage as one call lived it, told once, when it is over — the agent port's Outage (one shape for the client
 * that reports it and the runtime that records it). A call whose first attempt is answered reports nothing. Times
 * are the injected clock's: `startedAt` its now(), `durationMs` its monotonic time from the first attempt's start (so
 * a request that hung until its deadline counts whole) to the answer or the last failure. Told synchronously, before
 * the call returns or throws; a listener that writes (an evidence row) should not make the caller wait for that write.
 */
export type OutageReport = Outage;

/** What a call's retries tell: each attempt tried again (onRetry), each outage once it ends (onOutage). */
export interface RetryHooks {
  onRetry?: (n: RetryNotice) => void;
  onOutage?: (r: OutageReport) => void;
}

/** Why an attempt failed, in a few words: the network's code, or the 5xx status and tRPC code. */
export function faultOf(e: unknown): string {
  if (transienceOf(e) === "server_error") {
    const data = (e as TRPCClientError<never>).data as unknown as { httpStatus?: number; code?: string };
    return `HTTP ${data.httpStatus} ${data.code}`;
  }
  return networkReason(e);
}

/** Runs `f` until it succeeds, fails in a way retrying cannot fix, or `maxMs` has passed; the last error is thrown with the attempt count. */
export async function withRetry<T>(procedure: string, f: () => Promise<T>, clock: Clock, policy: RetryPolicy, signal?: AbortSignal, hooks: RetryHooks = {}): Promise<T> {
  const started = clock.monotonic();
  const startedAt = clock.now();
  let first: string | null = null;
  let last = "";
  const report = (attempts: number, outcome: OutageReport["outcome"]) => {
    if (first === null || !hooks.onOutage) return;
    const r: OutageReport = { procedure, fault: first, lastFault: last, startedAt, durationMs: Math.round(clock.monotonic() - started), attempts, outcome };
    try {
      hooks.onOutage(r);
    } catch {
      // A listener's failure is its own: the call's outcome stands.
    }
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await f();
      report(attempt, "recovered");
      return value;
    } catch (e) {
      const elapsed = clock.monotonic() - started;
      const transient = transienceOf(e);
      if (transient === null) report(attempt, "recovered");
      else {
        first ??= faultOf(e);
        last = faultOf(e);
      }
      if (!mayRetry(procedure, transient) || elapsed >= policy.maxMs || signal?.aborted) {
        if (transient !== null) report(attempt, "gave_up");
        // How long it tried, for the message (errors.ts): retries, or a single attempt that hung (until its deadline).
        if (transient !== null && (attempt > 1 || elapsed >= 1_000) && e instanceof Error) Object.assign(e, { attempts: attempt, retriedMs: Math.round(elapsed) });
        throw e;
      }
      // A busy answer is tried again no sooner than it asked.
      const waitMs = Math.min(Math.max(backoffMs(attempt, policy), transient === "busy" ? (retryAfterMsOf(e) ?? 0) : 0), policy.maxMs - elapsed);
      hooks.onRetry?.({ procedure, attempt, reason: networkReason(e), waitMs });
      await clock.sleep(waitMs, signal).catch(() => undefined);
    }
  }
}
