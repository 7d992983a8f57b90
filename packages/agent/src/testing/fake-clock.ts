// The core's Clock for runtime tests: time moves only when the test or a sleep moves it, so nothing waits on the wall
// clock. Unlike the core's manualClock (where a sleep waits for the test to advance), a sleep here advances time at
// once and is recorded: a run under test never stalls on its own backoff, and the test reads which sleeps it took.
import type { Clock } from "../ports.ts";

export class FakeClock implements Clock {
  private t: number;
  private mono = 0;
  readonly sleeps: number[] = [];
  constructor(start = Date.UTC(2026, 10, 29, 12, 0, 0)) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  monotonic(): number {
    return this.mono;
  }
  advance(ms: number): void {
    this.t += ms;
    this.mono += ms;
  }
  /** Sleeping advances the fake time at once. */
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.advance(ms);
  }
}
