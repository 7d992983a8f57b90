// Every request the client makes ends by its deadline, whatever the runtime's signal plumbing does: one plain timer
// per request, cleared when the request settles, aborting an AbortController that also follows the caller's signal
// (its listener removed on settle, so a long-lived caller signal collects nothing).
//
// Why not AbortSignal.any([signal, AbortSignal.timeout(ms)]): on Node 20 the combined signal holds its sources only
// weakly and nothing else holds the timeout signal, so once a garbage collection has run the timeout never fires and a
// request to a stuck API or database waits for good (seen: 105–130 s instead of 30 s). A timer's callback holds its
// controller strongly until it fires or is cleared.

/** The deadline's abort reason: which request, and how long it was given. Named like the platform's TimeoutError. */
export class DeadlineExceeded extends Error {
  override readonly name = "TimeoutError";
  /** The code networkReason (errors.ts) reports and retry.ts treats as a request that got no answer. */
  readonly code = "ETIMEDOUT";
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} got no answer within ${formatSeconds(ms)} and was abandoned: the API, or the database behind it, is stuck or unreachable. If this keeps happening, check that the API is running and what its log says about its database.`);
  }
}

/** One request's deadline. Call `settle()` once the request is over, however it ended; calling it again does nothing. */
export interface Deadline {
  /** Aborts with a DeadlineExceeded after the deadline, or with the caller's reason when the caller's signal aborts first. */
  signal: AbortSignal;
  /** Clears the timer only: the request may go on for good (a stream), still following the caller's signal. */
  disarm(): void;
  /** Clears the timer and stops following the caller's signal. */
  settle(): void;
}

export function startDeadline(ms: number, what: string, caller?: AbortSignal | null): Deadline {
  const controller = new AbortController();
  const follow = () => controller.abort(caller?.reason);
  const timer = setTimeout(() => controller.abort(new DeadlineExceeded(what, ms)), ms);
  if (caller?.aborted) follow();
  else caller?.addEventListener("abort", follow, { once: true });
  return {
    signal: controller.signal,
    disarm: () => clearTimeout(timer),
    settle() {
      clearTimeout(timer);
      caller?.removeEventListener("abort", follow);
    },
  };
}

export interface DeadlineFetchOptions {
  /**
   * "body" (default): the deadline covers the whole exchange, the response's body read to its end (a stuck server can
   * send headers and then nothing). "headers": only until the response starts — for a stream that stays open by
   * design (the event stream), whose connecting must still end.
   */
  until?: "body" | "headers";
}

/** `inner` with a deadline of `ms` on every request (see startDeadline); the caller's own signal still aborts it. */
export function deadlineFetch(inner: typeof fetch, ms: number, opts: DeadlineFetchOptions = {}): typeof fetch {
  return async (input, init) => {
    const deadline = startDeadline(ms, requestName(input, init), init?.signal);
    let res: Response;
    try {
      res = await inner(input, { ...init, signal: deadline.signal });
    } catch (e) {
      deadline.settle();
      throw e;
    }
    if (!res.body) {
      deadline.settle();
      return res;
    }
    if (opts.until === "headers") deadline.disarm();
    // The same response, its body passed through so the deadline settles when the body ends.
    const out = new Response(settlingAtEnd(res.body, deadline.settle), { status: res.status, statusText: res.statusText, headers: res.headers });
    Object.defineProperties(out, { url: { value: res.url }, redirected: { value: res.redirected } });
    return out;
  };
}

/** The same bytes; `settle` runs once the reader has them all, the stream failed (the deadline's abort too) or the reader cancelled it. */
function settlingAtEnd(body: ReadableStream<Uint8Array>, settle: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(out) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          settle();
          out.close();
        } else out.enqueue(value);
      } catch (e) {
        settle();
        out.error(e);
      }
    },
    cancel(reason) {
      settle();
      return reader.cancel(reason);
    },
  });
}

/** "POST http://host/trpc/run.recordStep" — the request named in the deadline's message (no query: it may carry input). */
function requestName(input: Parameters<typeof fetch>[0], init: RequestInit | undefined): string {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const method = init?.method ?? (typeof input === "object" && "method" in input ? input.method : "GET");
  return `${method.toUpperCase()} ${url.split("?")[0]}`;
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${ms} ms`;
}
