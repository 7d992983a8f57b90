// A fixed set of blind screens — a store's payment confirmation drawn inside a WebView without accessibility nodes,
// in ten languages of nine scripts (en, zh, ja, ar, hi, ko, ru, th, he, bn) — rendered by the virtual phone, and how well a reader reads them:
// the figures the OCR and policy benchmarks print (README, "Measured").
import { fileURLToPath } from "node:url";
import { PhoneEngine } from "@phoneloop/virtual-phone";
import type { OcrReader } from "./reading.ts";

export const BLIND_SCENARIO = fileURLToPath(new URL("../../virtual-phone/src/pack/examples/web-pages.json", import.meta.url));
export const BLIND_LANGUAGES = ["en", "zh", "ja", "ar", "hi", "ko", "ru", "th", "he", "bn"] as const;
export type BlindLanguage = (typeof BLIND_LANGUAGES)[number];

export interface BlindScreen {
  lang: BlindLanguage;
  png: Uint8Array;
  /** The UI dump of the screen (the page's words are not in it). */
  dump: string;
  /** The committing button: its words and the centre of its box (the tap point). */
  commit: { text: string; point: { x: number; y: number } };
  /** The other words a person reads there: the dialog's title and message, the dismissing button. */
  texts: string[];
}

interface Drawn {
  resId: string;
  text: string;
  bounds: [number, number, number, number];
  children: Drawn[];
}

function findDrawn(n: Drawn, resId: string): Drawn | undefined {
  if (n.resId === resId) return n;
  for (const c of n.children) {
    const f = findDrawn(c, resId);
    if (f) return f;
  }
  return undefined;
}

function allTexts(n: Drawn, out: string[] = []): string[] {
  if (n.text) out.push(n.text);
  n.children.forEach((c) => allTexts(c, out));
  return out;
}

/** Renders the blind screens with the virtual phone (its renderer and fonts). */
export async function blindScreens(): Promise<BlindScreen[]> {
  const phone = new PhoneEngine({ scenario: BLIND_SCENARIO });
  const out: BlindScreen[] = [];
  for (const lang of BLIND_LANGUAGES) {
    phone.load(BLIND_SCENARIO);
    phone.runtime.openUrl(`https://pay.acme-store.example/${lang}`);
    const page = findDrawn(phone.runtime.layout().dumpRoot as Drawn, "com.android.chrome:id/page");
    const commit = page && findDrawn(page, "com.android.chrome:id/commit");
    if (!page || !commit) throw new Error(`the web-pages scenario has no page with a commit button for ${lang}`);
    const [l, t, r, b] = commit.bounds;
    const texts = allTexts(page).slice(2).filter((x) => x !== commit.text && x.trim());
    out.push({ lang, png: new Uint8Array(await phone.screenshot()), dump: phone.uiDump(), commit: { text: commit.text, point: { x: Math.round((l + r) / 2), y: Math.round((t + b) / 2) } }, texts });
  }
  return out;
}

/** Letters and digits only, in their compatibility forms: what is compared of a text read and a text drawn. */
export const comparable = (s: string) => s.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}\p{M}]/gu, "");

/** Whether the reading has the committing button's words in an item under the tap point. */
export function readsCommit(items: { text: string; bounds: { left: number; top: number; right: number; bottom: number } }[], screen: BlindScreen): boolean {
  const { point, text } = screen.commit;
  return items.some((i) => i.bounds.left <= point.x && point.x < i.bounds.right && i.bounds.top - 8 <= point.y && point.y < i.bounds.bottom + 8 && comparable(i.text).includes(comparable(text)));
}

export interface OcrMeasurement {
  perLanguage: Record<BlindLanguage, { commitRead: number; textsRead: number; texts: number; reads: number; p50Ms: number }>;
  /** Share of the committing buttons read, over every read. */
  commitAccuracy: number;
  /** Share of every word group drawn (title, message, both buttons) found in the readings. */
  accuracy: number;
  p50Ms: number;
  p95Ms: number;
  /** 95th percentile of one read's CPU time (every thread of the process): what the read costs a machine with no one else on it. */
  cpuP95Ms: number;
  reads: number;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;

/**
 * Reads every blind screen `rounds` times around its committing button's centre (as the executor asks; `withLocale`:
 * with the screen's language as the phone's locale too) and times each read. A first read of each screen warms the
 * reader up (its workers start and load their language data) and is not timed.
 */
export async function measureOcr(reader: OcrReader, opts: { rounds?: number; screens?: BlindScreen[]; withLocale?: boolean } = {}): Promise<OcrMeasurement> {
  const screens = opts.screens ?? (await blindScreens());
  const rounds = opts.rounds ?? 4;
  // As the executor asks (the tap point only), or with the phone's locale (the screen's language) known too.
  const ask = (s: BlindScreen) => ({ around: s.commit.point, ...(opts.withLocale ? { locale: s.lang } : {}) });
  for (const s of screens) await reader.read(s.png, ask(s));
  const all: number[] = [];
  const cpu: number[] = [];
  let commits = 0;
  let found = 0;
  let drawn = 0;
  const perLanguage = {} as OcrMeasurement["perLanguage"];
  for (const s of screens) {
    const times: number[] = [];
    let commitRead = 0;
    let textsRead = 0;
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const r = await reader.read(s.png, ask(s));
      times.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      const joined = comparable(r.items.map((x) => x.text).join(""));
      if (readsCommit(r.items, s)) commitRead++;
      textsRead += s.texts.filter((t) => joined.includes(comparable(t))).length;
    }
    all.push(...times);
    times.sort((a, b) => a - b);
    perLanguage[s.lang] = { commitRead, textsRead, texts: s.texts.length * rounds, reads: rounds, p50Ms: Math.round(quantile(times, 0.5)) };
    commits += commitRead;
    found += textsRead + commitRead;
    drawn += (s.texts.length + 1) * rounds;
  }
  all.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { perLanguage, commitAccuracy: commits / all.length, accuracy: found / drawn, p50Ms: Math.round(quantile(all, 0.5)), p95Ms: Math.round(quantile(all, 0.95)), cpuP95Ms: Math.round(quantile(cpu, 0.95)), reads: all.length };
}
