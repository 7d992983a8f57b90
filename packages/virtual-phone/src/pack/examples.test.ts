// The example scenario file loads from disk and its task can be done through the UI.
import { describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { PhoneEngine } from "../engine.ts";
import { ManualClock, center, find, has, tapOn } from "../testing.ts";

const file = fileURLToPath(new URL("./examples/tip-calculator.json", import.meta.url));

describe("example scenario file", () => {
  it("loads by path and its task scores 1 when done", () => {
    const clock = new ManualClock();
    const phone = new PhoneEngine({ scenario: file, seed: 1, clock });
    expect(phone.scenario.name).toBe("tip-calculator");
    expect(phone.startTask("tips_save_20").goal).toBe("Save a 20% tip for a bill of 42.50.");
    expect(find(phone, "save").attrs.enabled).toBe("false");
    phone.tap(...center(find(phone, "bill")));
    phone.typeText("42.50");
    phone.key(4);
    tapOn(phone, "20%");
    tapOn(phone, "Save 20% tip");
    clock.advance(300);
    expect(phone.evaluate("tips_save_20")).toMatchObject({ score: 1 });
  });
});

describe("web-pages example: a WebView without accessibility nodes", () => {
  const pages = fileURLToPath(new URL("./examples/web-pages.json", import.meta.url));

  it.each(["en", "zh", "ja", "ar", "hi", "ko", "ru", "th", "he", "bn"])("draws the %s page and answers taps on it, while the dump shows only the WebView", (lang) => {
    const phone = new PhoneEngine({ scenario: pages, seed: 1, clock: new ManualClock() });
    expect(phone.runtime.openUrl(`https://pay.acme-store.example/${lang}`)).toBe(true);
    const dump = phone.uiDump();
    expect(dump).toMatch(/class="android\.webkit\.WebView"[^>]*\/>/);
    expect(dump).not.toContain("id/commit");
    // The page's own view tree still routes taps: its committing button navigates.
    const web = (n: { resId: string; bounds: number[]; children: unknown[] }, id: string): { bounds: number[] } | undefined =>
      n.resId.endsWith(`:id/${id}`) ? n : (n.children as (typeof n)[]).map((c) => web(c, id)).find(Boolean);
    const commit = web(phone.runtime.layout().dumpRoot, "commit")!;
    phone.tap((commit.bounds[0]! + commit.bounds[2]!) / 2, (commit.bounds[1]! + commit.bounds[3]!) / 2);
    expect(phone.runtime.state.log.some((e) => e.event === "paid" && (e as { lang?: string }).lang === lang)).toBe(true);
  });
});

describe("counter example: the phone counts what was done", () => {
  const counter = fileURLToPath(new URL("./examples/counter.json", import.meta.url));

  it("adds one per tap on +, on the screen and in the phone's state, and its task fails one tap over", () => {
    const phone = new PhoneEngine({ scenario: counter, seed: 1, clock: new ManualClock() });
    expect(phone.startTask("counter_reach").goal).toBe("Tap + until the counter reads 5.");
    expect(has(phone, "Count: 0")).toBe(true);
    for (let i = 0; i < 4; i++) tapOn(phone, "plus");
    expect(has(phone, "Count: 4")).toBe(true);
    expect(phone.state()).toMatchObject({ apps: { counter: { vars: { count: 4 } } } });
    expect(phone.evaluate("counter_reach")).toMatchObject({ score: 0 });
    tapOn(phone, "plus");
    expect(phone.evaluate("counter_reach")).toMatchObject({ score: 1 });
    tapOn(phone, "plus");
    expect(has(phone, "Count: 6")).toBe(true);
    expect(phone.evaluate("counter_reach")).toMatchObject({ score: 0, reason: expect.stringContaining("more times than the target") });
  });
});
