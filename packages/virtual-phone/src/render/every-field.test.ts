// Generated scenarios that use every field of the format, rendered and dumped in many states and variants (sizes,
// densities, rotations, locales, font scales, long and CJK labels): every visible element lies inside the screen, a
// tap at the centre of each tappable element lands on it, and the dump and the screenshot agree.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PhoneEngine } from "../engine.ts";
import { ManualClock, parseDump } from "../testing.ts";
import { everyFieldScenario, VARIANTS, type Variant } from "../scenario/every-field.ts";
import { parseScenario } from "../scenario/load.ts";
import { inspectPng } from "../conformance/png.ts";
import { renderRgba } from "./draw.ts";
import { touchTarget, type ViewNode } from "./view.ts";

const SCHEMA = JSON.parse(readFileSync(fileURLToPath(new URL("../pack/scenario.schema.json", import.meta.url)), "utf8")) as unknown;
const EXAMPLE = fileURLToPath(new URL("../pack/examples/every-field.json", import.meta.url));

/** Property names, and enum/const values, anywhere in a JSON Schema. */
function schemaVocabulary(s: unknown, props = new Set<string>(), values = new Set<string>()) {
  if (Array.isArray(s)) s.forEach((x) => schemaVocabulary(x, props, values));
  else if (s && typeof s === "object") {
    for (const [k, v] of Object.entries(s)) {
      if (k === "properties" && v && typeof v === "object") Object.keys(v).forEach((p) => props.add(p));
      if (k === "enum" && Array.isArray(v)) v.forEach((e) => values.add(String(e)));
      if (k === "const") values.add(String(v));
      schemaVocabulary(v, props, values);
    }
  }
  return { props, values };
}

/** Keys and scalar values used anywhere in a JSON document. */
function used(doc: unknown, keys = new Set<string>(), values = new Set<string>()) {
  if (Array.isArray(doc)) doc.forEach((x) => used(x, keys, values));
  else if (doc && typeof doc === "object")
    for (const [k, v] of Object.entries(doc)) {
      keys.add(k);
      used(v, keys, values);
    }
  else values.add(String(doc));
  return { keys, values };
}

/** The nodes the dump shows: a WebView's page (a hidden view's children) is drawn but not dumped. */
function walk(n: ViewNode, out: ViewNode[] = []): ViewNode[] {
  out.push(n);
  if (!n.hidden) n.children.forEach((c) => walk(c, out));
  return out;
}
const within = (outer: ViewNode, inner: ViewNode): boolean => outer === inner || outer.children.some((c) => within(c, inner));

/** Checks one state of the phone; returns the problems found, each naming the state and the node. */
async function check(phone: PhoneEngine, state: string): Promise<string[]> {
  const problems: string[] = [];
  const layout = phone.runtime.layout();
  const { width: W, height: H } = layout;
  const xml = phone.uiDump();
  const png = inspectPng(await phone.screenshot());
  if (png.width !== W || png.height !== H) problems.push(`${state}: screenshot ${png.width}x${png.height}, layout ${W}x${H}`);
  if (!xml.includes(`<hierarchy rotation="${phone.runtime.screen.rotation}">`)) problems.push(`${state}: the dump does not state rotation ${phone.runtime.screen.rotation}`);
  const name = (n: { text: string; desc: string; resId?: string; resourceId?: string; cls: string }) => `${n.cls} "${n.text || n.desc || n.resId || n.resourceId}"`;
  for (const n of parseDump(xml)) {
    const [l, t, r, b] = n.bounds;
    if (!(l >= 0 && t >= 0 && r <= W && b <= H && l < r && t < b)) problems.push(`${state}: ${name(n)} has bounds [${l},${t}][${r},${b}] outside ${W}x${H} or inverted`);
  }
  const nodes = walk(layout.dumpRoot);
  if (nodes.length !== parseDump(xml).length) problems.push(`${state}: the dump has ${parseDump(xml).length} nodes, the view tree ${nodes.length}`);
  for (const n of nodes) {
    if (!n.onTap || !n.enabled || !n.clickable) continue;
    const x = Math.round((n.bounds[0] + n.bounds[2]) / 2);
    const y = Math.round((n.bounds[1] + n.bounds[3]) / 2);
    const target = touchTarget(layout, x, y);
    // a floating action button may cover a row scrolling under it, as on Android; anything else must not
    if (target && "node" in target && target.node.overlay && !n.overlay) continue;
    // a heads-up notification covers the app under it, its floating parts included
    const notification = layout.layers.find((l) => l.name === "notification")?.root;
    if (notification && target && "node" in target && within(notification, target.node) && !within(notification, n)) continue;
    if (!target || !("node" in target) || !within(n, target.node)) problems.push(`${state}: a tap at the centre (${x},${y}) of ${name(n)} lands on ${target && "node" in target ? name(target.node) : JSON.stringify(target)}`);
  }
  // what the dump says is there is drawn there: a text's bounds hold more than one colour (a sliver of a text cut
  // by a scrolling edge may hold only its line spacing, so those below 12 dp are left out)
  const minInk = Math.round((12 * phone.runtime.screen.density) / 160);
  const { rgba } = renderRgba(layout);
  for (const n of nodes) {
    const [l, t, r, b] = [Math.max(0, n.bounds[0]), Math.max(0, n.bounds[1]), Math.min(W, n.bounds[2]), Math.min(H, n.bounds[3])].map(Math.round) as [number, number, number, number];
    if (!n.text.trim() || n.cls === "android.widget.Switch" || r - l < 6 || b - t < minInk) continue;
    const colours = new Set<number>();
    for (let yy = t; yy < b && colours.size < 2; yy += 1) for (let xx = l; xx < r && colours.size < 2; xx += 1) colours.add(rgba.readUInt32LE((yy * W + xx) * 4));
    if (colours.size < 2) problems.push(`${state}: nothing is drawn inside ${name(n)} at [${l},${t}][${r},${b}]`);
  }
  return problems;
}

/** Puts the phone through every screen, popup, keyboard, scroll position and system surface; checks each. */
async function visitAll(phone: PhoneEngine, clock: ManualClock, label: string): Promise<string[]> {
  const problems: string[] = [];
  const rt = phone.runtime;
  const at = async (state: string) => problems.push(...(await check(phone, `${label} ${state}`)));
  const gen = rt.appById("gen");
  for (const app of [gen, rt.appById("other")]) {
    for (const screen of app.screens) {
      phone.launch(app.id, screen.id);
      rt.state.apps[app.id]!.popup = null;
      await at(`${app.id}/${screen.id}`);
      clock.advance(2000); // loading skeletons end, delayed popups come due
      await at(`${app.id}/${screen.id} +2s`);
      rt.state.apps[app.id]!.popup = null;
    }
  }
  phone.launch("gen", "home");
  rt.state.apps.gen!.popup = null;
  const { width, height } = rt.screen;
  for (let i = 0; i < 40 && !problems.length; i++) {
    const before = JSON.stringify(rt.current()?.frame.scroll);
    phone.swipe(width / 2, height * 0.7, width / 2, height * 0.4, 400);
    rt.state.apps.gen!.popup = null;
    await at(`gen/home scrolled ${i + 1}`);
    if (JSON.stringify(rt.current()?.frame.scroll) === before) break;
  }
  phone.launch("gen", "home");
  rt.run([{ do: "focus", field: "name" }], "gen");
  rt.typeText("Ada 智能");
  await at("gen/home keyboard");
  rt.back();
  for (const p of gen.popups) {
    rt.showPopup("gen", p.id);
    await at(`popup ${p.id}`);
    rt.dismissPopup();
  }
  phone.setUsbPrompt("AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89");
  await at("usb prompt");
  phone.setUsbPrompt(null);
  rt.setShade(true);
  await at("shade");
  rt.setShade(false);
  phone.key(187);
  await at("recents");
  phone.key(3);
  await at("launcher");
  return problems;
}

describe("scenarios using every field", () => {
  it("use every property, enum value and constant of the published schema", () => {
    const vocab = schemaVocabulary(SCHEMA);
    const all = used(VARIANTS.map((v) => everyFieldScenario(v)));
    expect([...vocab.props].filter((p) => !all.keys.has(p))).toEqual([]);
    expect([...vocab.values].filter((v) => !all.values.has(v) && !all.keys.has(v))).toEqual([]);
  });

  it("keep pack/examples/every-field.json in step with the generator (variant 0)", () => {
    expect(JSON.parse(readFileSync(EXAMPLE, "utf8"))).toEqual(JSON.parse(JSON.stringify(everyFieldScenario(VARIANTS[0]!))));
  });

  for (const v of VARIANTS) {
    const label = `${v.width}x${v.height}@${v.density} r${v.rotation} ${String(v.locale)} font ${v.fontScale} ${v.script}×${v.wordiness}`;
    it(`${label}: elements inside the screen, taps land on them, dump and screenshot agree`, async () => {
      const clock = new ManualClock();
      const scenario = parseScenario(everyFieldScenario(v as Variant), label);
      const phone = new PhoneEngine({ scenario, seed: 3, clock });
      const problems = await visitAll(phone, clock, label);
      expect(problems).toEqual([]);
    });
  }

  it("runs every task check of the generated scenario against real state", () => {
    const phone = new PhoneEngine({ scenario: everyFieldScenario(VARIANTS[0]!), seed: 1, clock: new ManualClock() });
    phone.startTask("every_predicate");
    phone.launch("gen", "home");
    phone.runtime.state.apps.gen!.popup = null;
    const r = phone.evaluate("every_predicate", { answer: "done for Ada" });
    expect(r.checks.filter((c) => !c.passed)).toEqual([]);
    expect(r.score).toBe(1);
    phone.recordAskUser("Shall I do nothing?");
    phone.runtime.state.apps.gen!.popup = "nothing";
    expect(phone.evaluate("every_predicate")).toMatchObject({ score: 0, failed: "asked about nothing" });
  });
});
