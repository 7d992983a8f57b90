// One time source for the agent runtime and the state core. `now()` is wall-clock epoch milliseconds (what rows
// record); `monotonic()` only measures durations; `sleep` waits on the same clock, so a manual clock moves both.
// Without a clock, operators use the database's now() (one time source for every peer); tests pass a manual clock
// and move it instead of sleeping.
export interface Clock {
  /** Wall-clock time, epoch milliseconds. */
  now(): number;
  /** Milliseconds from an arbitrary origin that never goes backwards; for durations only. */
  monotonic(): number;
  /** Resolves after `ms` on this clock; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, Math.max(0, ms));
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

export interface ManualClock extends Clock {
  /** Moves wall-clock time to `at` (monotonic time moves by the same amount, never backwards). */
  set(at: Date | number): void;
  /** Moves both clocks forward and wakes every sleeper whose time has come. */
  advance(ms: number): void;
  /** How many sleeps are waiting (a test advances once the code under test is asleep). */
  readonly sleepers: number;
}

/** A clock that moves only when told to: sleeps resolve when `advance` reaches their deadline. */
export function manualClock(start: Date | number = 0): ManualClock {
  let wall = typeof start === "number" ? start : start.getTime();
  let mono = 0;
  const waiting = new Set<{ until: number; wake: () => void }>();
  const wakeDue = () => {
    for (const s of [...waiting].sort((a, b) => a.until - b.until)) if (s.until <= mono) s.wake();
  };
  return {
    now: () => wall,
    monotonic: () => mono,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(abortReason(signal));
        const sleeper = {
          until: mono + Math.max(0, ms),
          wake: () => {
            waiting.delete(sleeper);
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          waiting.delete(sleeper);
          reject(abortReason(signal!));
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        if (sleeper.until <= mono) return sleeper.wake();
        waiting.add(sleeper);
      });
    },
    set(at) {
      const next = typeof at === "number" ? at : at.getTime();
      if (next > wall) mono += next - wall;
      wall = next;
      wakeDue();
    },
    advance(ms) {
      wall += ms;
      mono += ms;
      wakeDue();
    },
    get sleepers() {
      return waiting.size;
    },
  };
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The sleep was aborted.", "AbortError");
}
