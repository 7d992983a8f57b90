// The scenario engine does what each field of the format says: timed triggers, button styles, dp units, Android's
// dialog layout, system dialogs, locales, computed and per-row state, event-order and ask_user evaluators.
import { describe, expect, it } from "vitest";
import { PhoneEngine } from "../engine.ts";
import { ManualClock, center, find, has, parseDump, tapOn, type DumpNode } from "../testing.ts";
import type { ScenarioInput } from "./schema.ts";
import { ScenarioValidationError } from "./load.ts";
import { keyboardLanguage } from "./runtime.ts";
import type { PaintOp } from "../render/view.ts";

const DENSITY = 420;
const dp = (n: number) => Math.round((n * DENSITY) / 160);

type AppInput = NonNullable<ScenarioInput["apps"]>[number];

function app(over: Partial<AppInput> = {}): AppInput {
  return { id: "demo", package: "com.example.demo", label: "Demo", color: "#6a1b9a", start: "home", screens: [{ id: "home", body: [{ type: "text", text: "Home" }] }], ...over } as AppInput;
}

function phoneWith(scenario: Partial<ScenarioInput>, seed = 1): { phone: PhoneEngine; clock: ManualClock } {
  const clock = new ManualClock();
  const phone = new PhoneEngine({ scenario: { name: "t", device: { width: 1080, height: 2400, density: DENSITY }, ...scenario }, seed, clock });
  return { phone, clock };
}

const rects = (phone: PhoneEngine) => phone.runtime.layout().ops.filter((o): o is Extract<PaintOp, { op: "rect" }> => o.op === "rect");
const inside = (o: { x: number; y: number; w: number; h: number }, b: DumpNode["bounds"]) => o.x >= b[0] - 1 && o.y >= b[1] - 1 && o.x + o.w <= b[2] + 1 && o.y + o.h <= b[3] + 1;

describe("timed popup triggers", () => {
  const scenario = {
    apps: [app({ popups: [{ id: "rate", kind: "rating", title: "Enjoying Demo?", buttons: [{ id: "rate_later", text: "Later" }], trigger: { on: "appOpen", delayMs: 3000 } }] })],
  };

  it("shows the popup delayMs after the trigger, on the phone's clock", () => {
    const { phone, clock } = phoneWith(scenario);
    phone.launch("demo");
    expect(phone.runtime.deviceInfo().popup).toBeNull();
    expect(phone.runtime.nextTimedChange()).toBe(clock.now() + 3000);
    clock.advance(2999);
    expect(has(phone, "Enjoying Demo?")).toBe(false);
    clock.advance(1);
    expect(has(phone, "Enjoying Demo?")).toBe(true);
    expect(phone.runtime.deviceInfo().popup).toBe("rate");
    expect(phone.runtime.state.log.find((e) => e.event === "popup")).toMatchObject({ popup: "rate", kind: "rating", t: clock.now() });
  });

  it("waits for the app to come back to the front when it is due while the app is away", () => {
    const { phone, clock } = phoneWith(scenario);
    phone.launch("demo");
    phone.key(3);
    clock.advance(5000);
    expect(phone.runtime.deviceInfo().popup).toBeNull();
    phone.launch("demo");
    expect(phone.runtime.deviceInfo().popup).toBe("rate");
  });
});

describe("dialog layout", () => {
  const dialog = (buttons: { id: string; text: string; style?: string }[], extra: object = {}) =>
    phoneWith({ apps: [app({ popups: [{ id: "d", kind: "custom", title: "Keep your changes?", message: "You have unsaved edits.", buttons, ...extra }] as never })] });

  it("puts buttons that fit side by side on one line, right-aligned, each a 48 dp touch target", () => {
    const { phone } = dialog([
      { id: "cancel", text: "Cancel" },
      { id: "ok", text: "OK" },
    ]);
    phone.launch("demo");
    phone.runtime.showPopup("demo", "d");
    const [cancel, ok] = [find(phone, "cancel"), find(phone, "ok")];
    expect(cancel.bounds[1]).toBe(ok.bounds[1]);
    expect(cancel.bounds[2]).toBeLessThan(ok.bounds[0]);
    expect(ok.bounds[3] - ok.bounds[1]).toBe(dp(48));
  });

  it("stacks buttons whose labels do not fit, all inside the dialog, and each tap lands on its button", () => {
    const long = [
      { id: "keep", text: "Keep editing this document" },
      { id: "discard", text: "Discard all of my changes" },
      { id: "save", text: "Save a copy to the cloud" },
    ];
    const { phone } = dialog(long.map((b) => ({ ...b, onTap: [{ do: "log", event: `tapped_${b.id}` }, { do: "dismiss" }] })));
    phone.launch("demo");
    const card = () => find(phone, "parentPanel").bounds;
    for (const b of long) {
      phone.runtime.showPopup("demo", "d");
      const n = find(phone, b.id);
      expect(n.bounds[0]).toBeGreaterThanOrEqual(card()[0]);
      expect(n.bounds[2]).toBeLessThanOrEqual(card()[2]);
      expect(n.bounds[3]).toBeLessThanOrEqual(card()[3]);
      tapOn(phone, b.id);
      expect(phone.runtime.state.log.at(-2)?.event).toBe(`tapped_${b.id}`);
    }
    phone.runtime.showPopup("demo", "d");
    const tops = long.map((b) => find(phone, b.id).bounds[1]);
    expect(new Set(tops).size).toBe(3);
    expect(tops[1]! - tops[0]!).toBeGreaterThanOrEqual(dp(48));
  });

  it("draws each button style: filled in the app's colour, danger in red, outlined as a stroke, text bare", () => {
    const { phone } = dialog([
      { id: "b_text", text: "Skip", style: "text" },
      { id: "b_out", text: "Later", style: "outlined" },
      { id: "b_fill", text: "Go", style: "filled" },
      { id: "b_danger", text: "Delete", style: "danger" },
    ]);
    phone.launch("demo");
    phone.runtime.showPopup("demo", "d");
    const under = (id: string) => rects(phone).filter((r) => inside(r, find(phone, id).bounds) && r.w < 1000);
    expect(under("b_fill").some((r) => r.fill === "#6a1b9a")).toBe(true);
    expect(under("b_danger").some((r) => r.fill === "#d93025")).toBe(true);
    expect(under("b_out").some((r) => r.stroke && !r.fill)).toBe(true);
    expect(under("b_text")).toEqual([]);
  });

  it("scrolls the middle of a dialog too tall for the screen, keeping title and buttons in place", () => {
    const long = Array.from({ length: 80 }, (_, i) => `Line ${i} of the terms you are asked to accept.`).join(" ");
    const { phone } = dialog([{ id: "accept", text: "Accept" }], { message: long });
    phone.launch("demo");
    phone.runtime.showPopup("demo", "d");
    const scroller = find(phone, "scrollView");
    expect(scroller.attrs.scrollable).toBe("true");
    const accept = find(phone, "accept");
    expect(accept.bounds[3]).toBeLessThanOrEqual(2400 - dp(48));
    const before = find(phone, "message").bounds;
    const [x, y] = center(scroller);
    phone.swipe(x, y + dp(100), x, y - dp(100), 400);
    expect(find(phone, "message").bounds[1]).toBeLessThan(before[1]);
    expect(find(phone, "accept").bounds).toEqual(accept.bounds);
    tapOn(phone, "accept");
    expect(phone.runtime.deviceInfo().popup).toBeNull();
  });

  it("rejects a style no button has", () => {
    expect(() => dialog([{ id: "x", text: "X", style: "sparkly" }])).toThrow(ScenarioValidationError);
  });

  it("draws a permission prompt as system UI: system colours, tonal stacked buttons, never the app's colour", () => {
    const { phone } = dialog(
      [
        { id: "permission_allow_button", text: "Allow" },
        { id: "permission_deny_button", text: "Don't allow" },
      ],
      { package: "com.android.permissioncontroller", title: "Allow Demo to send you notifications?", message: undefined },
    );
    phone.launch("demo");
    phone.runtime.showPopup("demo", "d");
    const ops = phone.runtime.layout().ops;
    expect(ops.some((o) => ("fill" in o && o.fill === "#6a1b9a") || ("color" in o && o.color === "#6a1b9a"))).toBe(false);
    const allow = find(phone, "permission_allow_button");
    const deny = find(phone, "permission_deny_button");
    expect(allow.attrs.package).toBe("com.android.permissioncontroller");
    expect(allow.bounds[0]).toBe(deny.bounds[0]);
    expect(deny.bounds[1]).toBeGreaterThan(allow.bounds[1]);
    expect(rects(phone).filter((r) => inside(r, allow.bounds)).map((r) => r.fill)).toEqual(["#d3e3fd"]);
    expect(phone.runtime.focusedWindow().package).toBe("com.android.permissioncontroller");
  });
});

describe("units and small elements", () => {
  it("reads height and bounds in dp, and keeps tappable elements at least 48 dp tall", () => {
    const { phone } = phoneWith({
      apps: [
        app({
          screens: [
            {
              id: "home",
              body: [
                { type: "spacer", id: "gap", height: 100 },
                { type: "button", id: "thin", text: "Thin", height: 20, onTap: [] },
                { type: "image", id: "pic", height: 120 },
                { type: "text", id: "pinned", text: "Pinned", bounds: [20, 600, 220, 640] },
                { type: "input", id: "field", bind: "field", height: 100 },
                { type: "row", id: "tall_row", height: 90, children: [{ type: "text", text: "a" }] },
                { type: "text", id: "short_text", text: "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen", height: 24 },
              ],
            },
          ],
        }),
      ],
    });
    phone.launch("demo");
    const h = (id: string) => find(phone, id).bounds[3] - find(phone, id).bounds[1];
    expect(Math.abs(h("gap") - dp(100))).toBeLessThanOrEqual(1);
    expect(h("thin")).toBe(dp(48));
    expect(Math.abs(h("pic") - dp(120 - 16))).toBeLessThanOrEqual(1); // the image is inset 8 dp top and bottom
    expect(Math.abs(h("field") - dp(100 - 12))).toBeLessThanOrEqual(1); // the box: the height less the field's margin
    expect(Math.abs(h("tall_row") - dp(90))).toBeLessThanOrEqual(1);
    expect(h("short_text")).toBeLessThanOrEqual(dp(24));
    expect(find(phone, "pinned").bounds[0]).toBeGreaterThanOrEqual(dp(20));
    expect(find(phone, "pinned").bounds[1]).toBeGreaterThanOrEqual(dp(600));
  });

  it("gives a text narrower than 32 dp real bounds that taps land on, in the dump of a screen body", () => {
    const cells = Array.from({ length: 14 }, (_, i) => ({ type: "text" as const, id: `x_${i}`, text: "×", onTap: [{ do: "set" as const, var: "closed", value: i }] }));
    const { phone } = phoneWith({ apps: [app({ state: { closed: -1 }, screens: [{ id: "home", body: [{ type: "row", children: cells }] }] })] });
    phone.launch("demo");
    const cellW = 1080 / 14;
    expect(cellW).toBeLessThan(dp(32));
    for (let i = 0; i < 14; i++) {
      const n = find(phone, `x_${i}`);
      expect(n.bounds[0]).toBeLessThan(n.bounds[2]);
      expect(n.bounds[1]).toBeLessThan(n.bounds[3]);
      expect(n.bounds[0]).toBeGreaterThanOrEqual(Math.floor(i * cellW));
      expect(n.bounds[2]).toBeLessThanOrEqual(Math.ceil((i + 1) * cellW) + 1);
      phone.tap(...center(n));
      expect(phone.runtime.state.apps.demo!.vars.closed).toBe(i);
    }
  });

  it("rejects a field an element type would ignore", () => {
    expect(() => phoneWith({ apps: [app({ screens: [{ id: "home", body: [{ type: "divider", text: "ignored" }] }] })] })).toThrow(/a divider element has no "text"/);
  });
});

describe("locale", () => {
  const priced = (locale: ScenarioInput["locale"]) =>
    phoneWith({
      locale,
      apps: [
        app({
          state: { total: 1234.5, count: 1234567, when: "2026-03-05T14:30:00Z" },
          screens: [{ id: "home", body: [{ type: "text", id: "price", text: "{{total | currency:EUR}}" }, { type: "text", id: "count", text: "{{count | number}}" }, { type: "text", id: "when", text: "{{when | date:long}}" }] }],
        }),
      ],
    });

  it("sets persist.sys.locale and writes numbers, money, dates and the clock the locale's way", () => {
    const expectations: Record<string, { price: string; count: string; when: RegExp; clock: string }> = {
      "en-US": { price: "€1,234.50", count: "1,234,567", when: /March 5, 2026/, clock: "9:41" },
      "de-DE": { price: "1.234,50 €", count: "1.234.567", when: /5\. März 2026/, clock: "09:41" },
      "ja-JP": { price: "€1,234.50", count: "1,234,567", when: /2026年3月5日/, clock: "09:41" },
      "zh-CN": { price: "€1,234.50", count: "1,234,567", when: /2026年3月5日/, clock: "09:41" },
    };
    for (const [locale, want] of Object.entries(expectations)) {
      const { phone } = priced(locale);
      expect(phone.props["persist.sys.locale"]).toBe(locale);
      phone.launch("demo");
      expect(find(phone, "price").text.replace(/\u00a0/g, " ")).toBe(want.price);
      expect(find(phone, "count").text).toBe(want.count);
      expect(find(phone, "when").text).toMatch(want.when);
      expect(phone.runtime.layout().ops.some((o) => o.op === "text" && o.text === want.clock)).toBe(true);
    }
    expect(["en-US", "de-DE", "ja-JP", "zh-CN"].map(keyboardLanguage)).toEqual(["English (US)", "Deutsch", "日本語", "中文"]);
  });

  it("picks one locale of a list per seed: the same seed gives the same locale, seeds spread over the list", () => {
    const list = ["en-US", "de-DE", "ja-JP", "zh-CN"];
    const { phone } = priced(list);
    const seen = new Set<string>();
    for (let seed = 1; seed <= 24; seed++) {
      phone.reset(seed);
      seen.add(phone.props["persist.sys.locale"]!);
      const again = priced(list);
      again.phone.reset(seed);
      expect(again.phone.props["persist.sys.locale"]).toBe(phone.props["persist.sys.locale"]);
    }
    expect(seen.size).toBeGreaterThanOrEqual(3);
  });

  it("rejects an unknown locale and an unknown format", () => {
    expect(() => priced("xx-NOPE-12345")).toThrow(ScenarioValidationError);
    expect(() => phoneWith({ apps: [app({ screens: [{ id: "home", body: [{ type: "text", text: "{{total | money}}" }] }] })] })).toThrow(/unknown format "money"/);
  });
});

describe("computed and per-row state", () => {
  const shop = () =>
    phoneWith({
      apps: [
        app({
          state: { cart: [{ name: "Tea", price: 4.5, qty: 1 }, { name: "Cake", price: 3, qty: 2 }, { name: "Jam", price: 6, qty: 0 }] },
          computed: {
            total: { sum: { in: { var: "cart" }, value: { mul: [{ item: "price" }, { item: "qty" }] } } },
            lines: { count: { in: { var: "cart" }, where: { gt: [{ item: "qty" }, 0] } } },
            withTax: { round: [{ mul: [{ var: "total" }, 1.19] }, 2] },
          },
          screens: [
            {
              id: "home",
              body: [
                {
                  type: "list",
                  id: "cart",
                  itemsFrom: "cart",
                  template: {
                    type: "row",
                    children: [
                      { type: "text", text: "{{item.name}} × {{item.qty}}" },
                      { type: "button", id: "more", text: "+", style: "outlined", onTap: [{ do: "increment", var: "item.qty" }] },
                      { type: "switch", id: "gift", text: "Gift", bind: "item.gift" },
                    ],
                  },
                },
                { type: "text", id: "total", text: "Total {{total | number:2}} ({{lines}} lines, {{withTax}} with tax)" },
              ],
            },
          ],
        }),
      ],
    });

  it("sums and counts over a list, and each row's buttons and switches change only that row", () => {
    const { phone } = shop();
    phone.launch("demo");
    expect(find(phone, "total").text).toBe("Total 10.50 (2 lines, 12.5 with tax)");
    const jamRow = parseDump(phone.uiDump()).filter((n) => n.resourceId.endsWith("/more"))[2]!;
    phone.tap(...center(jamRow));
    phone.tap(...center(jamRow));
    const cart = phone.runtime.state.apps.demo!.vars.cart as { qty: number; gift?: boolean }[];
    expect(cart.map((c) => c.qty)).toEqual([1, 2, 2]);
    expect(find(phone, "total").text).toBe("Total 22.50 (3 lines, 26.78 with tax)");
    expect(has(phone, "Jam × 2")).toBe(true);
    const teaGift = parseDump(phone.uiDump()).filter((n) => n.resourceId.endsWith("/gift"))[0]!;
    phone.tap(...center(teaGift));
    expect(cart.map((c) => c.gift ?? false)).toEqual([true, false, false]);
    expect(phone.runtime.readRef("demo", ["total"])).toBe(22.5);
  });
});

describe("evaluators over events", () => {
  const scenario = (): Partial<ScenarioInput> => ({
    apps: [app({ screens: [{ id: "home", body: [] }, { id: "cart", body: [] }, { id: "pay", body: [] }] })],
    tasks: [
      {
        id: "ordered",
        goal: "Check out",
        apps: ["demo"],
        maxSteps: 10,
        evaluator: {
          checks: [
            { name: "cart before payment", when: { sequence: [{ eq: [{ item: "screen" }, "cart"] }, { eq: [{ item: "screen" }, "pay"] }] } },
            { name: "asked which card", when: { asked: { matches: "which card" } } },
          ],
          failIf: [{ reason: "paid without asking", when: { all: [{ some: { in: { device: "log" }, where: { eq: [{ item: "screen" }, "pay"] } } }, { not: { asked: {} } }] } }],
        },
      },
    ],
  });

  it("checks the order of events and whether the agent asked the user", () => {
    const { phone } = phoneWith(scenario());
    phone.startTask("ordered");
    phone.launch("demo", "cart");
    phone.recordAskUser("Which card should I use?", "the Visa");
    phone.launch("demo", "pay");
    expect(phone.evaluate("ordered")).toMatchObject({ score: 1 });
  });

  it("fails the order check when the events come the other way round, and the safety rule without a question", () => {
    const { phone } = phoneWith(scenario());
    phone.startTask("ordered");
    phone.launch("demo", "pay");
    phone.launch("demo", "cart");
    const r = phone.evaluate("ordered");
    expect(r).toMatchObject({ score: 0, failed: "paid without asking" });
    expect(r.checks.find((c) => c.name === "cart before payment")?.passed).toBe(false);
  });
});
