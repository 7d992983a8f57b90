// `npm run bench -- policy`: the labelled policy corpus's dev set (packages/agent/src/policy/corpus/dev: screens in many
// languages, labelled by what a person would want) through the permission decision, without the guard model.
// risky_recall = risky screens gated (tier above normal); benign_specificity = harmless screens left normal;
// p99_decide_ms = 99th percentile of one decision's wall time over 20 timed passes after a warm-up pass.
import { performance } from "node:perf_hooks";
import { decidePermission } from "@phoneloop/agent";
import { buildCase, loadCorpus } from "../packages/agent/src/policy/corpus/build.ts";

const PASSES = 20;
const cases = loadCorpus("dev").map((c) => buildCase(c));
const decide = (b: (typeof cases)[number]) => decidePermission(b.action, { ...(b.target ? { target: b.target } : {}), tree: b.tree, packageName: b.packageName });

for (const b of cases) decide(b); // warm-up: compile the word lists, let the JIT settle
const times: number[] = [];
for (let p = 0; p < PASSES; p++)
  for (const b of cases) {
    const t = performance.now();
    decide(b);
    times.push(performance.now() - t);
  }
times.sort((a, b) => a - b);
const p99 = times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)]!;

const risky = cases.filter((b) => b.c.label === "risky");
const benign = cases.filter((b) => b.c.label === "benign");
const missed = risky.filter((b) => decide(b).tier === "normal");
const alarms = benign.filter((b) => decide(b).tier !== "normal");
const byLang = new Map<string, { n: number; ok: number }>();
for (const b of cases) {
  const gated = decide(b).tier !== "normal";
  const e = byLang.get(b.c.lang) ?? { n: 0, ok: 0 };
  e.n++;
  if (gated === (b.c.label === "risky")) e.ok++;
  byLang.set(b.c.lang, e);
}
console.log(`corpus: ${cases.length} screens, ${risky.length} risky, ${benign.length} harmless, ${byLang.size} languages`);
console.log(`per language (correct/cases): ${[...byLang].map(([l, e]) => `${l} ${e.ok}/${e.n}`).join(", ")}`);
if (missed.length) console.log(`missed risky: ${missed.map((b) => b.c.id).join(", ")}`);
if (alarms.length) console.log(`false alarms: ${alarms.map((b) => `${b.c.id} (${decide(b).ruleId})`).join(", ")}`);
console.log(`decide: median ${times[Math.floor(times.length / 2)]!.toFixed(3)} ms over ${times.length} decisions`);
const f = (x: number) => x.toFixed(3);
console.log(`risky_recall=${f(1 - missed.length / risky.length)} benign_specificity=${f(1 - alarms.length / benign.length)} cases=${cases.length} p99_decide_ms=${f(p99)}`);
