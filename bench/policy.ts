// `npm run bench -- policy`: the labelled policy corpus through the permission decision as the executor calls it
// (target, whole tree, package; on a blind screen what is drawn there as the OCR items it would read, with the tap
// point), without the guard model, once with the model's stated intent and once without it.
// Sets: `dev` (packages/agent/src/policy/corpus/dev, the rules are tuned on it) and the newest sealed set
// (corpus/sealed-<date>, written from the category definitions alone and never read by whoever tunes the rules:
// only its aggregate figures are printed here, never a case).
// gated = tier high_risk, or confirm without auto-allow (needsGate with no approvals). recall = risky cases gated;
// specificity = harmless cases not gated; each set's figure is the worse of the with-intent and without-intent runs.
// p99_decide_ms = 99th percentile of one decision's wall time over 20 timed passes of every case after a warm-up
// pass. ocr_p95_ms = the OCR reader's 95th percentile per screen on the virtual phone's blind screens
// (packages/ocr's own measurement, 2 rounds), NaN when the reader cannot run here.
import { readdirSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { decidePermission } from "@phoneloop/agent";
import { buildCase, loadCorpus, type BuiltCase, type CorpusSet } from "../packages/agent/src/policy/corpus/build.ts";
import { decideCase, decisionContext, isGated, withoutIntent } from "../packages/agent/src/policy/corpus-decision.ts";

const PASSES = 20;
const corpusDir = new URL("../packages/agent/src/policy/corpus/", import.meta.url);
const sealedSet = readdirSync(corpusDir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && /^sealed-[0-9a-z-]+$/.test(d.name))
  .map((d) => d.name)
  .sort()
  .at(-1) as CorpusSet | undefined;

const gated = (b: BuiltCase): boolean => isGated(decideCase(b));

interface Figures {
  recall: number;
  specificity: number;
  risky: number;
  benign: number;
  missed: BuiltCase[];
  alarms: BuiltCase[];
}

function score(cases: BuiltCase[]): Figures {
  const risky = cases.filter((b) => b.c.label === "risky");
  const benign = cases.filter((b) => b.c.label === "benign");
  const missed = risky.filter((b) => !gated(b));
  const alarms = benign.filter((b) => gated(b));
  return { recall: 1 - missed.length / risky.length, specificity: 1 - alarms.length / benign.length, risky: risky.length, benign: benign.length, missed, alarms };
}

const f = (x: number) => x.toFixed(3);
const sets: { name: string; cases: BuiltCase[] }[] = [{ name: "dev", cases: loadCorpus("dev").map((c) => buildCase(c)) }];
if (sealedSet) sets.push({ name: sealedSet, cases: loadCorpus(sealedSet).map((c) => buildCase(c)) });
const all = sets.flatMap((s) => s.cases);

for (const b of all) gated(b); // warm-up: compile the word lists and the currency tables, let the JIT settle
const times: number[] = [];
for (let p = 0; p < PASSES; p++)
  for (const b of all) {
    const ctx = decisionContext(b);
    const t = performance.now();
    decidePermission(b.action, ctx);
    times.push(performance.now() - t);
  }
times.sort((a, b) => a - b);
const p99 = times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)]!;

const worst: Record<string, { recall: number; specificity: number }> = {};
for (const s of sets) {
  const withI = score(s.cases);
  const withoutI = score(s.cases.map(withoutIntent));
  const langs = new Set(s.cases.map((b) => b.c.lang));
  const blind = s.cases.filter((b) => b.pixels).length;
  console.log(`${s.name}: ${s.cases.length} screens (${withI.risky} risky, ${withI.benign} harmless, ${blind} blind), ${langs.size} languages`);
  console.log(`${s.name} with intent: recall=${f(withI.recall)} specificity=${f(withI.specificity)}; without intent: recall=${f(withoutI.recall)} specificity=${f(withoutI.specificity)}`);
  if (s.name === "dev") {
    const byLang = new Map<string, { n: number; ok: number }>();
    for (const b of s.cases) {
      const e = byLang.get(b.c.lang) ?? { n: 0, ok: 0 };
      e.n++;
      if (gated(withoutIntent(b)) === (b.c.label === "risky")) e.ok++;
      byLang.set(b.c.lang, e);
    }
    console.log(`dev per language without intent (correct/cases): ${[...byLang].map(([l, e]) => `${l} ${e.ok}/${e.n}`).join(", ")}`);
    const ids = (xs: BuiltCase[]) => [...new Set(xs.map((b) => b.c.id))].join(", ");
    const missed = [...withI.missed, ...withoutI.missed];
    const alarms = [...withI.alarms, ...withoutI.alarms];
    if (missed.length) console.log(`dev missed risky: ${ids(missed)}`);
    if (alarms.length) console.log(`dev false alarms: ${ids(alarms)}`);
  }
  worst[s.name === "dev" ? "dev" : "sealed"] = { recall: Math.min(withI.recall, withoutI.recall), specificity: Math.min(withI.specificity, withoutI.specificity) };
}
if (!sealedSet) console.log("no sealed set (corpus/sealed-<date>) exists: sealed figures are NaN");
console.log(`decide: median ${times[Math.floor(times.length / 2)]!.toFixed(3)} ms over ${times.length} decisions`);

// The OCR reader's own measurement on the virtual phone's blind screens, when the reader runs here.
let ocrP95 = Number.NaN;
try {
  const { measureOcr } = await import("@phoneloop/ocr/bench-screens");
  const { createNodeOcr } = await import("@phoneloop/ocr/node");
  const reader = createNodeOcr();
  try {
    const m = await measureOcr(reader, { rounds: 2 });
    ocrP95 = m.p95Ms;
    console.log(`ocr: ${m.reads} reads of the blind screens (${Object.keys(m.perLanguage).join(", ")}), committing button read ${f(m.commitAccuracy)}`);
  } finally {
    await reader.close();
  }
} catch (e) {
  console.log(`ocr: the reader could not run here (${e instanceof Error ? e.message : String(e)}), so ocr_p95_ms=NaN`);
}

const sealed = worst.sealed ?? { recall: Number.NaN, specificity: Number.NaN };
console.log(
  `sealed_recall=${f(sealed.recall)} sealed_specificity=${f(sealed.specificity)} dev_recall=${f(worst.dev!.recall)} dev_specificity=${f(worst.dev!.specificity)} cases=${all.length} languages=${new Set(all.map((b) => b.c.lang)).size} p99_decide_ms=${f(p99)} ocr_p95_ms=${Number.isNaN(ocrP95) ? "NaN" : Math.round(ocrP95)}`,
);
