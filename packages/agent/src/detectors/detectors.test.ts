// The detector rules one by one, on sample sequences (the graph tests run them through the executor).
import { describe, expect, it } from "vitest";
import { blockSignature, blocksChanged, detectAnomalies, detectCycle, detectRepetition, detectScreen, detectScrollStreak, sampleOf, screenSample, type ActionSample, type ScreenSample } from "./index.ts";
import type { Action } from "../actions/schema.ts";
import type { UiNode } from "../ports.ts";

const Z = "0".repeat(16);
const scr = (name: string, text = name): ScreenSample => ({ phash: Z, text });
const img = (hex: string): ScreenSample => ({ phash: hex.padEnd(16, "0"), text: "same" });
const tap = (target: string, screen: ScreenSample, x = 100): ActionSample => sampleOf({ type: "click", x: 1, y: 1 }, { x, y: 100 }, { target, screen });
const act = (a: Action, screen?: ScreenSample) => sampleOf(a, undefined, screen ? { screen } : {});
const scroll = () => act({ type: "scroll", direction: "down" });
const wait = () => act({ type: "wait", ms: 100 });

describe("repetition over (action, target, screen)", () => {
  it("the same tap on the same unchanged screen, five times, is a loop; the fourth is not yet", () => {
    const s = scr("a");
    expect(detectRepetition([tap("sync", s), tap("sync", s), tap("sync", s), tap("sync", s)])).toBeNull();
    expect(detectRepetition([tap("sync", s), tap("sync", s), tap("sync", s), tap("sync", s), tap("sync", s)])?.message).toMatch(/same click on "sync", and the screen \(image and text\) was the same/);
  });
  it("the same tap that changes the screen each time (Next, or a counter's text) is progress", () => {
    expect(detectRepetition([1, 2, 3, 4, 5].map((i) => tap("next", scr(`page${i}`))))).toBeNull();
    expect(detectRepetition([1, 2, 3, 4, 5].map((i) => tap("plus", { phash: Z, text: `qty ${i}` })))).toBeNull();
  });
});

describe("cycles of 2 to 4 over (action, target, screen)", () => {
  const [a, b, c, d] = [scr("a"), scr("b"), scr("c"), scr("d")];
  it.each([
    [2, [tap("x", a), tap("y", b), tap("x", a), tap("y", b)]],
    [3, [tap("x", a), tap("y", b), tap("z", c), tap("x", a), tap("y", b), tap("z", c)]],
    [4, [tap("w", a), tap("x", b), tap("y", c), tap("z", d), tap("w", a), tap("x", b), tap("y", c), tap("z", d)]],
  ])("length %i is flagged with the steps it went through", (len, seq) => {
    const found = detectCycle(seq as ActionSample[]);
    expect(found?.message).toMatch(new RegExp(`last ${2 * (len as number)} actions went twice through the cycle`));
    expect(found?.message).toContain('click on "x"');
  });
  it("the same actions on screens that move on are not a cycle", () => {
    expect(detectCycle([tap("x", scr("a1")), tap("y", scr("b1")), tap("z", scr("c1")), tap("x", scr("a2")), tap("y", scr("b2")), tap("z", scr("c2"))])).toBeNull();
  });
  it("a cycle of 5 is beyond the rule", () => {
    const s = ["a", "b", "c", "d", "e"].map((n) => scr(n));
    const seq = [...s, ...s].map((x, i) => tap(`t${i % 5}`, x));
    expect(detectCycle(seq)).toBeNull();
  });
});

describe("no change means neither the image nor the text changed", () => {
  it("three identical screenshots after taps are frozen; a text change or an image change is not", () => {
    const s = scr("a");
    expect(detectScreen([tap("sync", s), tap("sync", s)], s)?.kind).toBe("frozen_screen");
    expect(detectScreen([tap("sync", s), tap("sync", s)], s)?.message).toMatch(/Neither the screen's image nor its text changed over the last 3 screenshots, after click on "sync", click on "sync"/);
    expect(detectScreen([tap("plus", scr("a", "qty 1")), tap("plus", scr("a", "qty 2"))], scr("a", "qty 3"))).toBeNull();
    expect(detectScreen([tap("play", img("00")), tap("play", img("ff"))], img("0f00"))).toBeNull();
    expect(detectScreen([wait(), wait()].map((w) => ({ ...w, screen: s })), s)).toBeNull();
  });
  it("A-B-A-B screens oscillate", () => {
    const [a, b] = [scr("a"), scr("b")];
    expect(detectScreen([tap("open", a), tap("close", b), tap("open", a)], b)?.kind).toBe("oscillation");
  });
  it("the text digest comes from the UI tree and ignores the status bar", () => {
    const n = (text: string, pkg = "com.x", children: UiNode[] = []): UiNode => ({ index: 0, text, resourceId: "", className: "V", packageName: pkg, contentDesc: "", checkable: false, checked: false, clickable: false, enabled: true, focusable: false, focused: false, scrollable: false, longClickable: false, password: false, selected: false, bounds: { left: 0, top: 0, right: 1, bottom: 1 }, children });
    const at = (clock: string, qty: string) => screenSample(Z, n("", "com.x", [n(clock, "com.android.systemui"), n(qty)]));
    expect(at("10:01", "Qty 1")).toEqual(at("10:02", "Qty 1"));
    expect(at("10:01", "Qty 1")).not.toEqual(at("10:01", "Qty 2"));
  });
});

describe("scroll budget over a window", () => {
  it("nine scrolls interleaved with waits exceed the budget (waits do not count)", () => {
    const seq = Array.from({ length: 9 }, () => [scroll(), wait()]).flat().slice(0, -1);
    expect(detectScrollStreak(seq)?.message).toMatch(/^9 of the last 9 actions \(waits not counted\) were scrolls/);
    expect(detectScrollStreak(seq.slice(0, -2))).toBeNull();
  });
  it("taps between scrolls do not reset it: 9 scrolls among the last 12 actions", () => {
    const seq = [scroll(), scroll(), scroll(), tap("a", scr("a")), scroll(), scroll(), scroll(), tap("b", scr("b")), scroll(), scroll(), tap("c", scr("c")), scroll()];
    expect(detectScrollStreak(seq)?.message).toMatch(/^9 of the last 12 actions/);
    expect(detectAnomalies(seq, scr("z")).map((a) => a.kind)).toContain("scroll_streak");
  });
  it("reading a feed (scroll, open, back) stays within it", () => {
    const seq = Array.from({ length: 6 }, (_, i) => [scroll(), tap(`post${i}`, scr(`feed${i}`)), act({ type: "navigate_back" }, scr(`post${i}`))]).flat();
    expect(detectScrollStreak([...seq, scroll()])).toBeNull();
  });
});

describe("block signature: finer than the pHash", () => {
  /** A 32×32 luminance thumbnail of a white screen, with some cells painted. */
  const thumb = (paint: [number, number, number][] = []) => {
    const data = new Uint8Array(32 * 32).fill(250);
    for (const [x, y, v] of paint) data[y * 32 + x] = v;
    return { width: 32, height: 32, data };
  };
  it("a digit-sized change is a change; a cursor-sized one and the status bar row are not", () => {
    const base = blockSignature(thumb());
    expect(blocksChanged(base, blockSignature(thumb([[10, 12, 150]])))).toBe(true); // a quarter of a block darkens
    expect(blocksChanged(base, blockSignature(thumb([[10, 12, 240]])))).toBe(false); // a faint blink
    expect(blocksChanged(base, blockSignature(thumb([[30, 0, 0], [31, 1, 0]])))).toBe(false); // the clock in the status bar
  });
  it("the same pHash and text with changed blocks is not a frozen screen", () => {
    const a = blockSignature(thumb());
    const b = blockSignature(thumb([[10, 12, 150]]));
    const c = blockSignature(thumb([[10, 12, 60]]));
    const s = (blocks: string): ScreenSample => ({ phash: Z, text: "same", blocks });
    expect(detectScreen([tap("play", s(a)), tap("play", s(b))], s(c))).toBeNull();
    expect(detectScreen([tap("play", s(a)), tap("play", s(a))], s(a))?.kind).toBe("frozen_screen");
  });
});

