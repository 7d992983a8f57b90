// The realistic latency profile: a mid-range phone's delays, with jitter drawn from the seed.
import { afterEach, describe, expect, it, vi } from "vitest";
import { Latency } from "./latency.ts";
import { PhoneEngine } from "./engine.ts";
import { ManualClock } from "./testing.ts";

afterEach(() => {
  vi.useRealTimers();
});

describe("latency profile", () => {
  it("gives screencap -p several hundred ms, uiautomator dump over a second, input and launches their own, within ±jitter", () => {
    const l = new Latency("realistic", 7);
    for (let i = 0; i < 50; i++) {
      const png = l.delayFor(["screencap", "-p"]);
      expect(png).toBeGreaterThanOrEqual(337);
      expect(png).toBeLessThanOrEqual(563);
      expect(l.delayFor(["uiautomator", "dump", "/dev/tty"])).toBeGreaterThanOrEqual(960);
      expect(l.delayFor(["input", "tap", "5", "5"])).toBeGreaterThanOrEqual(224);
      expect(l.delayFor(["am", "start", "-n", "a/.B"])).toBeGreaterThanOrEqual(490);
    }
    expect(l.delayFor(["getprop", "ro.serialno"])).toBe(0);
    expect(new Latency("none", 7).delayFor(["screencap", "-p"])).toBe(0);
  });

  it("adds a swipe's own duration, as `input swipe` blocks for it on a phone", () => {
    const a = new Latency("realistic", 3);
    const b = new Latency("realistic", 3);
    expect(a.delayFor(["input", "swipe", "1", "2", "3", "4", "900"]) - b.delayFor(["input", "tap", "1", "2"])).toBe(900);
  });

  it("draws the same jitter for the same seed and a different one for another seed", () => {
    const run = (seed: number) => {
      const l = new Latency("realistic", seed);
      return Array.from({ length: 8 }, () => l.delayFor(["screencap", "-p"]));
    };
    expect(run(1)).toEqual(run(1));
    expect(run(1)).not.toEqual(run(2));
    expect(new Set(run(1)).size).toBeGreaterThan(1);
  });

  it("holds a shell command back for the drawn delay before it runs", async () => {
    vi.useFakeTimers();
    const engine = new PhoneEngine({ scenario: "social", seed: 5, clock: new ManualClock(), latency: "realistic" });
    const expected = new Latency("realistic", 5).delayFor(["screencap", "-p"]);
    let done = false;
    const p = engine.beforeCommand(["screencap", "-p"]).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(expected - 1);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
  });
});
