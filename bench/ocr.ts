// `npm run bench -- ocr [--rounds N]`: the Node OCR reader (packages/ocr) on the blind screens the virtual phone
// draws — a payment confirmation inside a WebView without accessibility nodes, in en, zh, ja, ar and hi — each read
// around its committing button as the executor asks, N times (default 4) after one untimed warm-up read.
// Per language: committing buttons read (under the tap point), the other words found (title, message, dismissing
// button), median time. ocr_p95_ms = 95th percentile of one read's wall time (decode, preparation, Tesseract);
// ocr_accuracy = share of every word group drawn that the readings have.
import { availableParallelism, loadavg } from "node:os";
import { measureOcr } from "@phoneloop/ocr/bench-screens";
import { createNodeOcr } from "@phoneloop/ocr/node";

const at = process.argv.indexOf("--rounds");
const rounds = at > 0 ? Number(process.argv[at + 1]) : 4;
const reader = createNodeOcr();
try {
  const m = await measureOcr(reader, { rounds });
  for (const [lang, l] of Object.entries(m.perLanguage)) console.log(`${lang}: committing button read ${l.commitRead}/${l.reads}, other words ${l.textsRead}/${l.texts}, median ${l.p50Ms} ms`);
  console.log(`commit_accuracy=${m.commitAccuracy.toFixed(3)} ocr_p50_ms=${m.p50Ms} ocr_cpu_p95_ms=${m.cpuP95Ms} over ${m.reads} reads on ${availableParallelism()} cores (load average ${loadavg()[0]!.toFixed(1)} when it ended)`);
  console.log(`ocr_p95_ms=${m.p95Ms} ocr_accuracy=${m.accuracy.toFixed(3)}`);
} finally {
  await reader.close();
}
