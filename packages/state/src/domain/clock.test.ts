import { describe, expect, it } from "vitest";
import { manualClock, systemClock } from "./clock.ts";

describe("manualClock", () => {
  it("moves wall and monotonic time only when told, and wakes sleepers whose time has come, in order", async () => {
    const clock = manualClock(new Date("2026-11-29T10:00:00Z"));
    expect(clock.now()).toBe(Date.parse("2026-11-29T10:00:00Z"));
    expect(clock.monotonic()).toBe(0);
    const woke: string[] = [];
    const late = clock.sleep(1_000).then(() => woke.push("late"));
    const soon = clock.sleep(200).then(() => woke.push("soon"));
    expect(clock.sleepers).toBe(2);
    clock.advance(199);
    await Promise.resolve();
    expect(woke).toEqual([]);
    clock.advance(1);
    await soon;
    expect(woke).toEqual(["soon"]);
    clock.advance(800);
    await late;
    expect(woke).toEqual(["soon", "late"]);
    expect(clock.monotonic()).toBe(1_000);
    expect(clock.now()).toBe(Date.parse("2026-11-29T10:00:01Z"));
  });

  it("an aborted sleep rejects with the signal's reason and stops waiting", async () => {
    const clock = manualClock();
    const ac = new AbortController();
    const sleeping = clock.sleep(5_000, ac.signal);
    ac.abort(new Error("stopped"));
    await expect(sleeping).rejects.toThrow("stopped");
    expect(clock.sleepers).toBe(0);
    await expect(clock.sleep(1, ac.signal)).rejects.toThrow("stopped");
  });

  it("set() moves wall time; monotonic time never goes backwards", () => {
    const clock = manualClock(1_000);
    clock.set(5_000);
    expect(clock.monotonic()).toBe(4_000);
    clock.set(2_000);
    expect(clock.now()).toBe(2_000);
    expect(clock.monotonic()).toBe(4_000);
  });
});

describe("systemClock", () => {
  it("a sleep of 0 resolves; an already aborted signal rejects", async () => {
    await expect(systemClock.sleep(0)).resolves.toBeUndefined();
    const ac = new AbortController();
    ac.abort(new Error("gone"));
    await expect(systemClock.sleep(10, ac.signal)).rejects.toThrow("gone");
    expect(systemClock.monotonic()).toBeGreaterThan(0);
  });
});
