import { describe, expect, it } from "vitest";
import { checkContract, findElement, type ScreenState } from "./contract.ts";
import { appsOfSkill, distilSkill, dropDetours, skillName, type RecordedAction, type RecordedScreen } from "./distil.ts";
import { appsOfGoal, parseLauncherApps, parsePackageDump } from "../shortcuts/discover.ts";
import type { ElementRef } from "../graph/observe.ts";

const el = (text: string, resourceId: string, box: [number, number, number, number]): ElementRef => ({ index: 0, text, resourceId, className: "Button", clickable: true, scrollable: false, editable: false, box, bounds: { left: box[0], top: box[1], right: box[2], bottom: box[3] } });
const screen = (activity: string, els: [string, string][]): RecordedScreen => ({ app: "com.lamp", activity, width: 1001, height: 1001, elements: els.map(([text, id], i) => ({ text, resourceId: id, box: [0, i * 100, 1000, i * 100 + 90] as [number, number, number, number] })) });
const click = (before: RecordedScreen, i: number): RecordedAction => ({ before, action: { type: "click" }, px: { x: 500, y: i * 100 + 45 } });

describe("element selectors", () => {
  const s: ScreenState = { app: "com.lamp", activity: "com.lamp.Home", width: 1000, height: 1000, elements: [el("Controls", "com.lamp:id/open_controls", [0, 100, 1000, 190]), el("About", "com.lamp:id/open_about", [0, 200, 1000, 290]), el("", "", [900, 0, 1000, 80])] };
  it("finds by resource id, then by text, then — for an unlabelled element — by position", () => {
    expect(findElement({ resourceId: "com.lamp:id/open_about", text: "Über", at: { x: 0, y: 0 } }, s.elements)?.by).toBe("resource_id");
    expect(findElement({ resourceId: "com.lamp:id/gone", text: "Controls", at: { x: 0, y: 0 } }, s.elements)?.element.text).toBe("Controls");
    expect(findElement({ at: { x: 940, y: 50 } }, s.elements)?.by).toBe("position");
    expect(findElement({ resourceId: "com.lamp:id/gone", text: "Gone", at: { x: 500, y: 145 } }, s.elements)).toBeNull();
  });
  it("a contract names what is missing", () => {
    expect(checkContract({ app: "com.lamp", activity: "com.lamp.Home", required: [{ resourceId: "com.lamp:id/open_controls", at: { x: 0, y: 0 } }] }, s)).toEqual({ ok: true });
    expect(checkContract({ app: "com.lamp", activity: "com.lamp.More", required: [] }, s)).toMatchObject({ ok: false, reason: expect.stringMatching(/com\.lamp\.More/) });
    expect(checkContract({ app: "com.lamp", required: [{ resourceId: "com.lamp:id/x", at: { x: 0, y: 0 } }] }, s)).toMatchObject({ ok: false, reason: expect.stringMatching(/#x/) });
  });
});

describe("distilling", () => {
  it("a path from the home screen that goes home at the end: its steps, and the app it belongs to first (the launcher only after it)", () => {
    const launcher: RecordedScreen = { app: "com.launcher", activity: "com.launcher.Home", width: 1001, height: 1001, elements: [{ text: "Lamp", resourceId: "", box: [0, 0, 1000, 90] }] };
    const home = screen("com.lamp.Home", [["Controls", "com.lamp:id/open_controls"]]);
    const controls = screen("com.lamp.Controls", [["Lamp", "com.lamp:id/lamp_switch"]]);
    const body = distilSkill([click(launcher, 0), click(home, 0), click(controls, 0), { before: controls, action: { type: "navigate_home" }, px: null }], launcher)!;
    expect(body.steps.map((s) => s.action.type)).toEqual(["click", "click", "click", "navigate_home"]);
    expect(appsOfSkill(body)).toEqual(["com.lamp", "com.launcher"]);
    expect(body.app).toBe("com.lamp");
  });
  it("a wheel turned by drags is part of the skill (its value is the work)", () => {
    const picker = screen("com.lamp.Timer", [["10", "com.lamp:id/minutes"]]);
    const drag = (before: RecordedScreen): RecordedAction => ({ before, action: { type: "drag", from: { x: 500, y: 40 }, to: { x: 500, y: 200 } }, px: null });
    const body = distilSkill([drag(picker), drag(picker), click(picker, 0)], picker)!;
    expect(body.steps.map((s) => s.action.type)).toEqual(["drag", "drag", "click"]);
    expect(body.steps[0]!.action).toMatchObject({ from: { x: 500, y: 40 }, to: { x: 500, y: 200 } });
  });
  it("a skill's name is the todo's words, cut to 120 characters and never ending in a space", () => {
    const name = skillName(`${"a".repeat(119)} b and more`);
    expect(name).toBe("a".repeat(119));
    expect(skillName("Turn on the light — in Lamp!")).toBe("turn on the light in lamp");
  });
  const home = screen("com.lamp.Home", [["Controls", "com.lamp:id/open_controls"], ["About", "com.lamp:id/open_about"]]);
  const about = screen("com.lamp.About", [["Lamp 1.0", ""]]);
  const controls = screen("com.lamp.Controls", [["Lamp", "com.lamp:id/lamp_switch"]]);
  it("drops a detour that came back to the screen it left, keeps a tap that stayed on its screen", () => {
    const actions: RecordedAction[] = [click(home, 1), { before: about, action: { type: "navigate_back" }, px: null }, click(home, 0), click(controls, 0)];
    const kept = dropDetours(actions, controls);
    expect(kept.map((a) => a.before.activity)).toEqual(["com.lamp.Home", "com.lamp.Controls"]);
    const body = distilSkill(actions, controls)!;
    expect(body.steps.map((s) => s.target?.resourceId)).toEqual(["com.lamp:id/open_controls", "com.lamp:id/lamp_switch"]);
    expect(body.pre).toMatchObject({ app: "com.lamp", activity: "com.lamp.Home" });
    expect(body.post.required.map((r) => r.resourceId)).toEqual(["com.lamp:id/lamp_switch"]);
  });
  it("a todo that read something keeps the screens it opened and left (that is where it read), and still drops scrolling away and back", () => {
    const scroll = (before: RecordedScreen, direction: "down" | "up"): RecordedAction => ({ before, action: { type: "scroll", direction }, px: null });
    const actions: RecordedAction[] = [scroll(home, "down"), scroll(home, "up"), click(home, 1), { before: about, action: { type: "navigate_back" }, px: null }];
    expect(dropDetours(actions, home)).toEqual([]);
    const kept = dropDetours(actions, home, { keepVisits: true });
    expect(kept.map((a) => `${a.action.type} ${a.before.activity}`)).toEqual(["click com.lamp.Home", "navigate_back com.lamp.About"]);
  });
  it("a toggle on one screen is not a detour (the screen's text did not change, but nothing navigated)", () => {
    expect(dropDetours([click(controls, 0)], controls)).toHaveLength(1);
  });
});

describe("the package manager's answers", () => {
  const dump = `Activity Resolver Table:
  Schemes:
      lamp:
        1fe4719 com.lamp/.ControlsActivity filter d7405da
          Action: "android.intent.action.VIEW"
          Category: "android.intent.category.DEFAULT"
          Scheme: "lamp"
          Authority: "controls": -1
          AutoVerify=false
      https:
        15bd4c8 com.lamp/.AboutActivity filter 92b0442
          Action: "android.intent.action.VIEW"
          Scheme: "https"
          Authority: "lamp.example": -1
          Path: "PatternMatcher{PREFIX: /about}"
          AutoVerify=false
      mailto:
        15bd4c9 com.lamp/.ShareActivity filter 92b0443
          Action: "android.intent.action.VIEW"
          Scheme: "mailto"
          AutoVerify=false

Packages:
  Package [com.lamp] (ad78344):
    versionCode=7 minSdk=26 targetSdk=34
    versionName=2.1
`;
  it("reads the version and the deeplinks with a host, each with the activity it opens", () => {
    expect(parsePackageDump("com.lamp", dump)).toEqual({
      packageName: "com.lamp",
      version: "2.1 (7)",
      shortcuts: [
        { uri: "lamp://controls", activity: "com.lamp.ControlsActivity" },
        { uri: "https://lamp.example/about", activity: "com.lamp.AboutActivity" },
      ],
    });
  });
  it("names the goal's apps by their labels", () => {
    const apps = parseLauncherApps("2 activities found:\n  Activity #0:\n    ActivityInfo:\n      packageName=com.lamp\n      labelRes=0x7f130000 nonLocalizedLabel=Lamp icon=0x7f0f0000\n  Activity #1:\n    ActivityInfo:\n      packageName=com.radio\n      labelRes=0x7f130000 nonLocalizedLabel=Radio icon=0x7f0f0000\n");
    expect(apps).toEqual([{ packageName: "com.lamp", label: "Lamp" }, { packageName: "com.radio", label: "Radio" }]);
    expect(appsOfGoal("Turn on the light in Lamp.", apps, "com.radio").map((a) => a.packageName)).toEqual(["com.lamp"]);
    expect(appsOfGoal("Turn it on.", apps, "com.radio").map((a) => a.packageName)).toEqual(["com.radio"]);
  });
});
