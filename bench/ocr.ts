// `npm run bench -- ocr [--rounds N]`: the Node OCR reader (packages/ocr) on the blind screens the virtual phone
// draws — a payment confirmation inside a WebView without accessibility nodes, in ten languages of nine scripts —
// each read around its committing button as the executor asks, N times (default 4) after one untimed warm-up read.
// Per language: committing buttons read (under the tap point), the other words found (title, message, dismissing
// button), median time. Where the time goes: each stage of the timed reads (decoding, finding the control and band,
// each model's reading of the control, the band's reading), its count and its median and total. Then the same reads
// with the phone's locale known (the screen's language), which names the control's model first.
// ocr_p95_ms = 95th percentile of one read's wall time without the locale (decode, preparation, Tesseract), as the
// executor reads today; ocr_accuracy = share of every word group drawn that the readings have.
import { availableParallelism, loadavg } from "node:os";
import { blindScreens, measureOcr } from "@phoneloop/ocr/bench-screens";
import { createNodeOcr } from "@phoneloop/ocr/node";

const at = process.argv.indexOf("--rounds");
const rounds = at > 0 ? Number(process.argv[at + 1]) : 4;
let stages = new Map<string, number[]>();
let recording = false;
const reader = createNodeOcr({ onStage: (stage, ms) => recording && stages.set(stage, [...(stages.get(stage) ?? []), ms]) });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? 0;
let last = "";
try {
  const screens = await blindScreens();
  for (const withLocale of [false, true]) {
    // A first pass starts the workers and is not counted; the stages are those of measureOcr's reads (its own
    // untimed warm-up read of each screen, on warm workers, among them).
    stages = new Map();
    recording = false;
    for (const s of screens) await reader.read(s.png, { around: s.commit.point, ...(withLocale ? { locale: s.lang } : {}) });
    recording = true;
    const m = await measureOcr(reader, { rounds, screens, withLocale });
    console.log(withLocale ? "\nwith the phone's locale known:" : "as the executor asks (tap point, no locale):");
    for (const [lang, l] of Object.entries(m.perLanguage)) console.log(`${lang}: committing button read ${l.commitRead}/${l.reads}, other words ${l.textsRead}/${l.texts}, median ${l.p50Ms} ms`);
    const rows = [...stages].sort((a, b) => b[1].reduce((x, y) => x + y, 0) - a[1].reduce((x, y) => x + y, 0));
    console.log(`stages (count, median, total ms): ${rows.map(([k, v]) => `${k} ${v.length}× ${Math.round(median(v))} Σ${Math.round(v.reduce((x, y) => x + y, 0))}`).join("; ")}`);
    console.log(`commit_accuracy=${m.commitAccuracy.toFixed(3)} ocr_p50_ms=${m.p50Ms} ocr_p95_ms=${m.p95Ms} ocr_cpu_p95_ms=${m.cpuP95Ms} ocr_accuracy=${m.accuracy.toFixed(3)} over ${m.reads} reads on ${availableParallelism()} cores (load average ${loadavg()[0]!.toFixed(1)} when it ended)`);
    if (!withLocale) last = `ocr_p95_ms=${m.p95Ms} ocr_accuracy=${m.accuracy.toFixed(3)}`;
  }
  console.log(last);
} finally {
  await reader.close();
}
