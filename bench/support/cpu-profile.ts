// `npx tsx bench/support/cpu-profile.ts <dir or .cpuprofile>… [--top N] [--from-s S] [--to-s S]`: where a process's
// threads spent their CPU, from the profiles `node --cpu-prof` wrote (e.g. the API's under BENCH_API_CPU_PROF): self
// time summed per function, per file and per package, the top N (default 30) of each, in ms and as a share of the
// busy time. Only samples from S seconds after each profile's start (--from-s, e.g. past the process's start and a
// bench's setup) up to --to-s count. Idle (the event loop waiting), the garbage collector and "(program)" (native
// code outside JS) are their own rows.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const root = fileURLToPath(new URL("../../", import.meta.url));
const { values: opt, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: "string", default: "30" }, "from-s": { type: "string", default: "0" }, "to-s": { type: "string", default: "Infinity" } } });
const TOP = Number(opt.top);
const FROM_US = Number(opt["from-s"]) * 1e6;
const TO_US = Number(opt["to-s"]) * 1e6;

const files = positionals.flatMap((p) => (statSync(p).isDirectory() ? readdirSync(p).filter((f) => f.endsWith(".cpuprofile")).map((f) => join(p, f)) : [p]));
if (files.length === 0) throw new Error("No .cpuprofile given: pass the folder BENCH_API_CPU_PROF named, or the files.");

/** A file's name as read here: the repository's own relative, a dependency by its package and path. */
function fileOf(url: string): string {
  if (!url) return "(native)";
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf("node_modules/");
  if (nm >= 0) return path.slice(nm + "node_modules/".length);
  return path.startsWith(root) ? relative(root, path) : path;
}
function packageOf(file: string): string {
  if (file.startsWith("node:") || !file.includes("/")) return file.split("/")[0]!;
  if (file.startsWith("/")) return file; // outside the repository (another checkout of it)
  const parts = file.split("/");
  if (file.startsWith("@")) return `${parts[0]}/${parts[1]}`;
  if (parts[0] === "packages" || parts[0] === "apps") return `${parts[0]}/${parts[1]}`;
  return parts[0]!;
}

const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
const byPackage = new Map<string, number>();
let total = 0;
const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);
for (const f of files) {
  const p = JSON.parse(readFileSync(f, "utf8")) as Profile;
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  let at = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const us = p.timeDeltas[i] ?? 0;
    at += us;
    if (at < FROM_US || at > TO_US) continue;
    const n = nodes.get(p.samples[i]!)!;
    const { functionName, url, lineNumber } = n.callFrame;
    const file = fileOf(url);
    total += us;
    add(byFunction, `${functionName || "(anonymous)"} ${url ? `${file}:${lineNumber + 1}` : ""}`.trim(), us);
    add(byFile, file === "(native)" ? functionName || "(native)" : file, us);
    add(byPackage, file === "(native)" ? functionName || "(native)" : packageOf(file), us);
  }
}

const idle = byFunction.get("(idle)") ?? 0;
console.log(`${files.length} profile(s): ${(total / 1000).toFixed(0)} ms sampled, ${((total - idle) / 1000).toFixed(0)} ms busy (idle excluded from the shares below)`);
for (const [title, m] of [["function", byFunction], ["file", byFile], ["package", byPackage]] as const) {
  console.log(`\n── self time by ${title} ──`);
  const rows = [...m].filter(([k]) => k !== "(idle)").sort((a, b) => b[1] - a[1]).slice(0, TOP);
  for (const [k, us] of rows) console.log(`${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / (total - idle)).toFixed(1).padStart(5)} %  ${k}`);
}
