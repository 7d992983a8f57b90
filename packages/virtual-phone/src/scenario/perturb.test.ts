// Perturbations on the built-in pack: each one shows on the phone as it says, the same seed gives the same phone,
// they combine, and a task still scores 1 when the agent deals with them through the UI.
import { describe, expect, it } from "vitest";
import { PhoneEngine } from "../engine.ts";
import { ManualClock, center, find, has, parseDump, tapOn } from "../testing.ts";
import { loadScenario } from "./load.ts";
import { parsePerturbations, perturbScenario, PERTURBATIONS, PerturbationError, type Perturbation } from "./perturb.ts";

const phone = (perturb: Perturbation[], seed = 1, clock = new ManualClock()) => new PhoneEngine({ scenario: "home", seed, clock, perturb });

describe("perturbations", () => {
  it("parses a comma-separated list and refuses an unknown name, naming the known ones", () => {
    expect(parsePerturbations("popup, zh,popup")).toEqual(["popup", "zh"]);
    expect(parsePerturbations("")).toEqual([]);
    expect(() => parsePerturbations("popup,earthquake")).toThrow(PerturbationError);
    expect(() => parsePerturbations("earthquake")).toThrow(/unknown perturbation "earthquake"; use any of popup, permission, slow, zh, rotate, notification, network/);
  });

  it("leave the scenario untouched and are the same for the same seed", () => {
    const base = loadScenario("home");
    const before = JSON.stringify(base);
    const a = perturbScenario(base, [...PERTURBATIONS], 7);
    expect(JSON.stringify(base)).toBe(before);
    expect(JSON.stringify(perturbScenario(base, [...PERTURBATIONS], 7))).toBe(JSON.stringify(a));
    const triggers = (seed: number) => perturbScenario(base, ["popup", "notification", "network"], seed).apps.flatMap((app) => app.popups.filter((p) => p.id.startsWith("perturb_")).map((p) => p.trigger?.after));
    const seeds = [1, 2, 3, 4, 5, 6].map((s) => JSON.stringify(triggers(s)));
    expect(new Set(seeds).size).toBeGreaterThan(1);
    expect(perturbScenario(base, [], 7)).toBe(base);
  });

  it("permission: the system prompt when an app opens; denying it goes on in the app", () => {
    const e = phone(["permission"]);
    e.launch("settings");
    expect(e.state().focusedWindow).toMatch(/^com\.android\.permissioncontroller\//);
    expect(has(e, "Allow Settings to send you notifications?")).toBe(true);
    tapOn(e, "Don't allow");
    expect(e.runtime.deviceInfo().popup).toBeNull();
    expect(has(e, "Network & internet")).toBe(true);
  });

  it("popup: a surprise dialog after the seeded number of actions, once", () => {
    const e = phone(["popup"], 3);
    const after = e.scenario.apps.find((a) => a.id === "settings")!.popups.find((p) => p.id === "perturb_popup")!.trigger!.after!;
    e.launch("settings");
    for (let i = 0; i < after - 1; i++) e.swipe(540, 1500, 540, 1400, 300);
    expect(e.runtime.deviceInfo().popup).toBeNull();
    e.swipe(540, 1500, 540, 1400, 300);
    expect(e.runtime.deviceInfo().popup).toBe("perturb_popup");
    tapOn(e, "Not now");
    for (let i = 0; i < 5; i++) e.swipe(540, 1500, 540, 1400, 300);
    expect(e.runtime.deviceInfo().popup).toBeNull();
  });

  it("notification: a heads-up over the top of the screen covers what is under it; back and taps elsewhere reach the app", () => {
    const e = phone(["notification"], 2);
    e.launch("social", "search");
    if (has(e, "Later")) tapOn(e, "Later"); // Loop's own update dialog
    for (let i = 0; i < 3 && e.runtime.deviceInfo().popup !== "perturb_notification"; i++) e.swipe(540, 1500, 540, 1450, 300);
    expect(e.runtime.deviceInfo().popup).toBe("perturb_notification");
    // the app keeps the focus and its window is still dumped, with the notification over its top
    expect(e.state().focusedWindow).toMatch(/^com\.phoneloop\.social\//);
    const nodes = parseDump(e.uiDump());
    const banner = nodes.find((n) => n.resourceId === "com.android.systemui:id/notification_headsup")!;
    const search = find(e, "search_input");
    expect(search.bounds[1]).toBeLessThan(banner.bounds[3]);
    // a tap on the search field lands on the notification (it opens it: the notification goes away) …
    e.tap(...center(search));
    expect(e.runtime.deviceInfo().popup).toBeNull();
    expect(e.state().focus).toBeNull();
    // … so the second tap reaches the field
    e.tap(...center(find(e, "search_input")));
    expect(e.state().focus).toMatchObject({ field: "search_input" });
  });

  it("network: a full-screen error page whose Retry reloads the screen", () => {
    const clock = new ManualClock();
    const e = phone(["network"], 4, clock);
    e.launch("settings");
    for (let i = 0; i < 6 && e.runtime.deviceInfo().popup !== "perturb_network"; i++) e.swipe(540, 1500, 540, 1450, 300);
    expect(e.runtime.deviceInfo().popup).toBe("perturb_network");
    expect(has(e, "No connection")).toBe(true);
    e.key(4); // back does not get past it
    expect(e.runtime.deviceInfo().popup).toBe("perturb_network");
    tapOn(e, "Retry");
    expect(e.runtime.isLoading()).toBe(true);
    clock.advance(600);
    expect(e.runtime.isLoading()).toBe(false);
    expect(has(e, "Network & internet")).toBe(true);
  });

  it("zh: the perturbations' prompts are in Chinese", () => {
    const e = phone(["permission", "zh"]);
    e.launch("settings");
    expect(has(e, "要允许“Settings”向您发送通知吗？")).toBe(true);
    expect(has(e, "Don't allow")).toBe(false);
    tapOn(e, "不允许");
    expect(e.runtime.deviceInfo().popup).toBeNull();
    const zh = perturbScenario(loadScenario("home"), ["popup", "notification", "network", "zh"], 1).apps[0]!.popups.filter((p) => p.id.startsWith("perturb_"));
    expect(zh.flatMap((p) => p.buttons?.map((b) => b.text) ?? [])).toEqual(["以后再说", "知道了", "标为已读", "静音", "重试"]);
  });

  it("slow, zh and rotate: loading skeletons, the Chinese locale and a landscape screen, combined", () => {
    const clock = new ManualClock();
    const e = phone(["slow", "zh", "rotate"], 5, clock);
    expect(e.props["persist.sys.locale"]).toBe("zh-CN");
    expect([1, 3]).toContain(e.runtime.screen.rotation);
    expect(e.runtime.screen.width).toBeGreaterThan(e.runtime.screen.height);
    e.launch("settings");
    expect(e.runtime.isLoading()).toBe(true);
    clock.advance(1500);
    expect(e.runtime.isLoading()).toBe(false);
    expect(e.scenario.name).toBe("home+slow+zh+rotate");
  });

  it("a pack task still scores 1 when the agent deals with every perturbation through the UI", () => {
    const clock = new ManualClock();
    const e = phone([...PERTURBATIONS], 1, clock);
    e.startTask("settings_wifi_off", 1);
    const clear = () => {
      for (let i = 0; i < 6 && (e.runtime.deviceInfo().popup || e.runtime.isLoading()); i++) {
        clock.advance(1500);
        const label = ["不允许", "以后再说", "标为已读", "重试"].find((t) => has(e, t));
        if (label) tapOn(e, label);
      }
      clock.advance(1500);
    };
    e.launch("settings");
    for (const target of ["Network & internet", "Wi-Fi"]) {
      clear();
      // the target may have scrolled out of a landscape screen
      for (let i = 0; i < 6 && !has(e, target); i++) e.swipe(1200, 800, 1200, 300, 400);
      clear();
      tapOn(e, target);
    }
    clear();
    expect(e.evaluate("settings_wifi_off").score).toBe(1);
  });
});
