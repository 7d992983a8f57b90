// Acceptance: the labelled screen corpus's dev set through the decision as the executor makes it (corpus-decision.ts:
// target, tree, package, a blind screen's drawn words as OCR items with the tap point), counted as the benchmark
// counts (gated = high-risk, or confirm without auto-allow), with and without the model's intent; and the notation
// build.ts reads.
import { describe, expect, it } from "vitest";
import { buildCase, loadCorpus, type CompactNode, type CorpusCase } from "./corpus/build.ts";
import { decideCase, isGated, withoutIntent } from "./corpus-decision.ts";

/** What the rules achieve on the dev set today (2,143 screens with the sealed sets of 2026-12-01, 2026-12-02,
 * 2026-12-02b and 2026-12-02c: recall 0.998, specificity 0.992, with and without the intent — three misses and seven
 * false alarms, five of them by design), rounded down to 0.05; raise as they improve. */
const DEV_FLOOR = { riskyRecall: 0.95, benignSpecificity: 0.95 } as const;

const LANGUAGES = ["en", "zh", "ja", "ko", "de", "fr", "es", "pt", "ru", "it", "tr", "vi", "id", "th", "pl", "nl", "sv", "ar", "hi", "bn", "fa", "he", "uk", "ms"];
const CATEGORIES = ["money", "destructive", "communication", "credentials", "permission", "install"];
// Namespaces no real app is published under: a case's app must be a package of that market.
const INVENTED = /^(com|org|net)\.(example|test|sample|demo|foo|acme)\./;

const corpus = loadCorpus("dev");
const built = corpus.map((c) => buildCase(c));
const results = built.map((b) => ({ c: b.c, d: decideCase(b) }));
const resultsWithoutIntent = built.map((b) => ({ c: b.c, d: decideCase(withoutIntent(b)) }));
const targets = (nodes: CompactNode[]): number =>
  nodes.reduce((n, x) => n + (x.target ? 1 : 0) + targets([...(x.row ?? []), ...(x.dlg ?? []), ...(x.sheet ?? []), ...(x.web ?? []), ...(x.ime ?? [])]), 0);

describe("labelled policy corpus (dev)", () => {
  it("holds at least 650 screens in the 24 languages, every risky category in every language, at least 40% harmless", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(650);
    expect([...new Set(corpus.map((c) => c.lang))].sort()).toEqual([...LANGUAGES].sort());
    for (const lang of LANGUAGES)
      for (const cat of CATEGORIES) expect(corpus.some((c) => c.lang === lang && c.label === "risky" && c.category === cat), `${lang} ${cat}`).toBe(true);
    for (const cat of CATEGORIES) expect(corpus.some((c) => c.label === "benign" && c.category === cat), `harmless look-alike of ${cat}`).toBe(true);
    expect(corpus.filter((c) => c.label === "benign").length / corpus.length).toBeGreaterThanOrEqual(0.4);
  });

  it("has unique ids, real app packages, and exactly one target where the action lands on a node", () => {
    expect(new Set(corpus.map((c) => c.id)).size).toBe(corpus.length);
    for (const c of corpus) {
      expect(c.app, c.id).toMatch(/^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/);
      expect(c.app, c.id).not.toMatch(INVENTED);
      expect(c.label === "risky" ? CATEGORIES : [...CATEGORIES, "none"], c.id).toContain(c.category);
      const type = c.action?.type ?? "click";
      if (type !== "open_deeplink" && type !== "keyboard_enter" && type !== "input_text") expect(targets(c.screen), c.id).toBe(1);
      if (c.pixels) expect(targets(c.pixels), `${c.id} pixels`).toBe(1);
    }
  });

  it.each([
    ["with the model's intent", results],
    ["without it", resultsWithoutIntent],
  ])("%s, the rules gate risky screens and leave harmless ones alone at least as well as DEV_FLOOR", (_name, rs) => {
    const risky = rs.filter((r) => r.c.label === "risky");
    const benign = rs.filter((r) => r.c.label === "benign");
    const missed = risky.filter((r) => !isGated(r.d)).map((r) => `${r.c.id} (${r.d.ruleId})`);
    const falseAlarms = benign.filter((r) => isGated(r.d)).map((r) => `${r.c.id} (${r.d.ruleId})`);
    expect(1 - missed.length / risky.length, `missed: ${missed.join(", ")}`).toBeGreaterThanOrEqual(DEV_FLOOR.riskyRecall);
    expect(1 - falseAlarms.length / benign.length, `false alarms: ${falseAlarms.join(", ")}`).toBeGreaterThanOrEqual(DEV_FLOOR.benignSpecificity);
  });

  it("every decision names its rule, its evidence and the policy version", () => {
    for (const { c, d } of results) {
      expect(d.ruleId, c.id).toMatch(/^[a-z_]+\.[a-z_-]+$/);
      expect(d.evidence.length, c.id).toBeGreaterThan(0);
      expect(d.policyVersion, c.id).toBe("builtin-2026.11");
    }
  });
});

describe("corpus notation", () => {
  const screen: CorpusCase = {
    id: "notation", lang: "en", label: "risky", category: "money", app: "com.android.vending",
    screen: [
      { img: "Game banner" },
      { chk: "I agree to the terms", id: "agree" },
      { dlg: [{ t: "Buy 500 gems?", id: "android:id/alertTitle" }, { b: "Cancel", id: "android:id/button2" }, { b: "OK", id: "android:id/button1" }] },
      { sl: "Slide to pay", target: 1 },
      { web: [] },
    ],
    pixels: [{ t: "Gem shop" }, { row: [{ b: "US$4.99", target: 1 }, { i: "×" }] }],
  };
  const built = buildCase(screen);
  const all = (n: typeof built.tree): (typeof built.tree)[] => [n, ...n.children.flatMap(all)];
  const nodes = all(built.tree);

  it("writes platform ids in full and prefixes plain ids with the app's package", () => {
    expect(nodes.map((n) => n.resourceId)).toEqual(expect.arrayContaining(["android:id/alertTitle", "android:id/button1", "com.android.vending:id/agree"]));
    expect(nodes.some((n) => n.resourceId.includes("vending:id/android:id"))).toBe(false);
  });

  it("expands checkboxes, slide controls and pictures into their widgets", () => {
    expect(nodes.find((n) => n.text === "I agree to the terms")).toMatchObject({ className: "android.widget.CheckBox", checkable: true, clickable: true });
    expect(built.target).toMatchObject({ className: "android.widget.SeekBar", contentDesc: "Slide to pay", clickable: true, longClickable: true });
    expect(nodes.find((n) => n.contentDesc === "Game banner")).toMatchObject({ className: "android.widget.ImageView", clickable: false });
  });

  it("lays a blind screen's pixels out top to bottom, with the drawn control under the tap marked", () => {
    expect(built.pixels?.map((p) => [p.text, p.target])).toEqual([["Gem shop", false], ["US$4.99", true], ["×", false]]);
    const tops = built.pixels!.map((p) => p.bounds.top);
    expect(tops).toEqual([...tops].sort((a, b) => a - b));
    expect(new Set(tops).size).toBe(tops.length);
    expect(buildCase({ ...screen, pixels: undefined }).pixels).toBeUndefined();
  });

  it("reads a set by name and refuses anything that is neither dev nor a sealed folder", () => {
    expect(loadCorpus().length).toBe(corpus.length);
    expect(() => loadCorpus("../policy" as "dev")).toThrow(/neither "dev" nor a sealed folder/);
  });
});
