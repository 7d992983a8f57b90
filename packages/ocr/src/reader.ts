// The reader: Tesseract (tesseract.js, its WebAssembly build, the same in Node and in a tab) over the parts of a
// screenshot a permission decision needs. With a tap point: the control under it, made dark-on-white (pixels.ts),
// and the band of the screen above and around it (a dialog's title and message, a price line); without one: the
// whole screen. The screenshot is read downscaled (long side 1000 px), which keeps phone text well inside the sizes
// Tesseract reads best and a screen within the time a step can spend (the measurements are in the README).
import type { Worker } from "tesseract.js";
import { bandAround, controlAt, crop, grayOf, inkOnWhite, isBlack, type Gray, type Rect } from "./pixels.ts";
import { DEFAULT_LANGUAGES, type OcrItem, type OcrReader, type OcrReading, type ReadOptions } from "./reading.ts";

/** What differs between Node and a tab: decoding the screenshot, handing an image to Tesseract, starting its worker. */
export interface Platform {
  /** Decodes the screenshot scaled so its long side is at most `longSide`; `scale` = decoded / original size. */
  decode(bytes: Uint8Array, longSide: number): Promise<{ rgba: Uint8Array | Uint8ClampedArray; width: number; height: number; scale: number }>;
  /** A gray image in a form Tesseract's recognize takes. */
  image(g: Gray): Promise<Parameters<Worker["recognize"]>[0]>;
  createWorker(languages: string[]): Promise<Worker>;
}

export interface ReaderOptions {
  /** Tesseract language names (their traineddata must be where the platform loads it from). */
  languages?: readonly string[];
  /** Long side of the image read, px (default 1000). */
  longSide?: number;
}

/** Lines Tesseract is this unsure of are noise (edges of icons and boxes read as letters). */
const MIN_CONFIDENCE = 40;
const LETTER = /[\p{L}\p{N}]/u;

export function createReader(platform: Platform, opts: ReaderOptions = {}): OcrReader {
  const languages = [...(opts.languages ?? DEFAULT_LANGUAGES)];
  const longSide = opts.longSide ?? 1000;
  // One worker per language set, started when first needed: each language alone (to tell a control's script),
  // English with one other (a screen in that script), and all of them (a screen whose script is unknown).
  const workers = new Map<string, Promise<Worker>>();
  const worker = (langs: string[]): Promise<Worker> => {
    const key = langs.join("+");
    let w = workers.get(key);
    if (!w) {
      w = platform.createWorker(langs).then(async (wk) => {
        await wk.setParameters({ tessedit_pageseg_mode: "11" as never, user_defined_dpi: "160" });
        return wk;
      });
      workers.set(key, w);
    }
    return w;
  };
  // Tesseract reads one image at a time per worker and the machine's cores are few: reads queue behind each other.
  let queue: Promise<unknown> = Promise.resolve();

  const lines = async (langs: string[], g: Gray, dx: number, dy: number, scale: number): Promise<{ items: OcrItem[]; confidence: number }> => {
    const w = await worker(langs);
    const r = await w.recognize(await platform.image(g), {}, { blocks: true, text: false });
    const items: OcrItem[] = [];
    let weighted = 0;
    let letters = 0;
    for (const b of r.data.blocks ?? [])
      for (const p of b.paragraphs)
        for (const l of p.lines) {
          const text = l.text.replace(/\s+/g, " ").trim();
          if (!text || l.confidence < MIN_CONFIDENCE || !LETTER.test(text)) continue;
          weighted += l.confidence * text.length;
          letters += text.length;
          items.push({ text, bounds: { left: Math.round((l.bbox.x0 + dx) / scale), top: Math.round((l.bbox.y0 + dy) / scale), right: Math.round((l.bbox.x1 + dx) / scale), bottom: Math.round((l.bbox.y1 + dy) / scale) } });
        }
    return { items, confidence: letters ? weighted / letters : 0 };
  };

  const readNow = async (bytes: Uint8Array, o: ReadOptions): Promise<OcrReading> => {
    const d = await platform.decode(bytes, longSide);
    const g = grayOf(d.rgba, d.width, d.height);
    if (isBlack(g)) return { items: [] };
    if (!o.around) return { items: (await lines(languages, g, 0, 0, d.scale)).items };
    const p = { x: o.around.x * d.scale, y: o.around.y * d.scale };
    const control = controlAt(g, p);
    let controlItems: OcrItem[] = [];
    let script = languages;
    if (control) {
      const ink = inkOnWhite(g, control, MARGIN);
      const at = [control.box.left - MARGIN, control.box.top - MARGIN] as const;
      // English alone first (one model, the cheapest read): a sure Latin reading needs no other language.
      const english = languages.includes(ENGLISH) && languages.length > 1 ? await lines([ENGLISH], ink, at[0], at[1], d.scale) : null;
      const first = english && english.confidence >= SURE && languageOf(english.items.map((i) => i.text).join(" "), languages) === ENGLISH ? english : await lines(languages, ink, at[0], at[1], d.scale);
      // The script of the control's words names the screen's language: the rest is read in it alone (with English
      // beside it, Tesseract takes words of another script for English ones; digits and Latin names still read).
      const lang = languageOf(first.items.map((i) => i.text).join(" "), languages);
      script = lang ? [lang] : languages;
      // Read again in that language alone when the first reading, among all of them, mixed other scripts in.
      const mixed = lang !== null && first.items.some((i) => languageOf(i.text, languages) !== lang);
      controlItems = mixed ? (await lines(script, ink, at[0], at[1], d.scale)).items : first.items;
    }
    const band = bandAround(g, p);
    const bandItems = (await lines(script, crop(g, band), band.left, band.top, d.scale)).items;
    // The control's own reading is the better one where the two overlap (its colours were made readable).
    return { items: [...controlItems, ...bandItems.filter((b) => !controlItems.some((c) => overlap(b.bounds, c.bounds) > 0.5))] };
  };

  return {
    read(bytes, o = {}) {
      const next = queue.then(() => readNow(bytes, o));
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      const all = [...workers.values()];
      workers.clear();
      await Promise.all(all.map(async (w) => (await w).terminate()));
    },
  };
}

const ENGLISH = "eng";
/** A reading this sure (mean confidence over its letters) is taken as it is. */
const SURE = 85;

/** Tesseract's language for the script most of `text`'s letters are in (kana make Han text Japanese). */
export function languageOf(text: string, languages: readonly string[]): string | null {
  const count = (re: RegExp) => (text.match(re) ?? []).length;
  const scripts: [string, number][] = [
    ["ara", count(/\p{Script=Arabic}/gu)],
    ["hin", count(/\p{Script=Devanagari}/gu)],
    [count(/[\p{Script=Hiragana}\p{Script=Katakana}]/gu) > 0 ? "jpn" : "chi_sim", count(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu)],
    [ENGLISH, count(/\p{Script=Latin}/gu)],
  ];
  const [lang, n] = scripts.filter(([l]) => languages.includes(l)).sort((a, b) => b[1] - a[1])[0] ?? [null, 0];
  return n > 0 ? lang : null;
}
const MARGIN = 12;

/** The share of `a`'s area that `b` covers. */
function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  const area = (a.right - a.left) * (a.bottom - a.top);
  return w > 0 && h > 0 && area > 0 ? (w * h) / area : 0;
}
