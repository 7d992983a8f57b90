// The reader: Tesseract (tesseract.js, its WebAssembly build, the same in Node and in a tab) over the parts of a
// screenshot a permission decision needs. With a tap point: the control under it, made dark-on-white (pixels.ts),
// and the band of the screen above and around it (a dialog's title and message, a price line); without one: the
// whole screen. The band is read downscaled (long side 1000 px), which keeps phone text well inside the sizes
// Tesseract reads best and a screen within the time a step can spend (the measurements are in the README).
import type { Worker } from "tesseract.js";
import { bandAround, controlAt, crop, grayOf, inkOnWhite, isBlack, scaled, type Gray, type Rect } from "./pixels.ts";
import { DEFAULT_LANGUAGES, type OcrItem, type OcrReader, type OcrReading, type ReadOptions } from "./reading.ts";
import { controlModels, modelOfLocale, readsOwnScript, screenModels, scriptOf, scriptOfModel, type Script } from "./scripts.ts";

/** What differs between Node and a tab: decoding the screenshot, handing an image to Tesseract, starting its worker. */
export interface Platform {
  /** Decodes the screenshot scaled so its long side is at most `longSide` (Infinity: as it is); `scale` = decoded / original size. */
  decode(bytes: Uint8Array, longSide: number): Promise<{ rgba: Uint8Array | Uint8ClampedArray; width: number; height: number; scale: number }>;
  /** A gray image in a form Tesseract's recognize takes. */
  image(g: Gray): Promise<Parameters<Worker["recognize"]>[0]>;
  createWorker(languages: string[]): Promise<Worker>;
  /** How many readings may run at once (each worker reads on its own thread): the machine's cores. */
  parallelism: number;
}

export interface ReaderOptions {
  /** Tesseract language names (their traineddata must be where the platform loads it from). */
  languages?: readonly string[];
  /** Long side of the screen's image the band around a tap (or the whole screen) is read at, px (default 1000); the control is read at full size. */
  longSide?: number;
  /** Told how long each stage of a read took (the OCR benchmark's breakdown): "decode", "find", "control:<model>", "band:<models>". */
  onStage?: (stage: string, ms: number) => void;
}

/** Lines Tesseract is this unsure of are noise (edges of icons and boxes read as letters). */
const MIN_CONFIDENCE = 40;
const LETTER = /[\p{L}\p{N}]/u;
/** A control's reading this sure (mean confidence over its letters), in the model's own script, ends the search for its script. */
const SURE = 85;
const MARGIN = 12;

interface Lines {
  items: OcrItem[];
  confidence: number;
  text: string;
}

export function createReader(platform: Platform, opts: ReaderOptions = {}): OcrReader {
  const languages = [...(opts.languages ?? DEFAULT_LANGUAGES)];
  const longSide = opts.longSide ?? 1000;
  const stage = opts.onStage ?? (() => undefined);
  // One worker per model set, started when first needed and kept: a worker holds its models' data (loading them
  // is most of a first read), and each reads on its own thread, so readings by different models run side by side.
  const workers = new Map<string, Promise<Worker>>();
  const worker = (langs: readonly string[]): Promise<Worker> => {
    const key = langs.join("+");
    let w = workers.get(key);
    if (!w) {
      w = platform.createWorker([...langs]).then(async (wk) => {
        await wk.setParameters({ tessedit_pageseg_mode: "11" as never, user_defined_dpi: "160" });
        return wk;
      });
      w.catch(() => workers.delete(key));
      workers.set(key, w);
    }
    return w;
  };
  // English reads most controls: its worker starts now, so the first blind screen does not wait for its data.
  if (languages.includes("eng")) void worker(["eng"]).catch(() => undefined);
  // Reads queue behind each other: a read already uses the machine's cores (its models side by side).
  let queue: Promise<unknown> = Promise.resolve();

  const lines = async (langs: readonly string[], g: Gray, dx: number, dy: number, scale: number, name: string): Promise<Lines> => {
    const w = await worker(langs);
    const t0 = performance.now();
    const r = await w.recognize(await platform.image(g), {}, { blocks: true, text: false });
    stage(`${name}:${langs.join("+")}`, performance.now() - t0);
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
    return { items, confidence: letters ? weighted / letters : 0, text: items.map((i) => i.text).join(" ") };
  };

  /**
   * The control's words and their script: the control is read by one model per script, the likeliest first
   * (controlModels), as many at once as the platform has cores, until a reading is sure and in its model's own
   * script; else the surest such reading of them all.
   */
  const readControl = async (ink: Gray, at: readonly [number, number], scale: number, locale: string | undefined): Promise<{ lines: Lines; script: Script } | null> => {
    const order = controlModels(languages, locale);
    let best: { lines: Lines; script: Script } | null = null;
    // The first model alone (most controls are in its script: no other model's data is loaded), then in waves.
    for (let at0 = 0; at0 < order.length; ) {
      const size = at0 === 0 ? 1 : platform.parallelism;
      const wave = order.slice(at0, at0 + size);
      at0 += size;
      const readings = await Promise.all(wave.map(async (m) => ({ m, r: await lines([m], ink, at[0], at[1], scale, "control") })));
      for (const { m, r } of readings) {
        const script = scriptOf(r.text);
        if (!script || !readsOwnScript(m, r.text)) continue;
        if (!best || r.confidence > best.lines.confidence) best = { lines: r, script };
      }
      if (best && best.lines.confidence >= SURE) break;
    }
    return best;
  };

  const readNow = async (bytes: Uint8Array, o: ReadOptions): Promise<OcrReading> => {
    let t0 = performance.now();
    // At full size: the control is read there (its letters are small; at full size every model is surer of the
    // right reading, which is what tells the script), the rest made smaller.
    const d = await platform.decode(bytes, Number.POSITIVE_INFINITY);
    const g = grayOf(d.rgba, d.width, d.height);
    stage("decode", performance.now() - t0);
    if (isBlack(g)) return { items: [] };
    const f = Math.min(1, longSide / Math.max(g.width, g.height));
    if (!o.around) {
      // No point: the whole screen, in the locale's models when known, else in one model per script at once.
      const own = modelOfLocale(o.locale);
      const script = own ? scriptOfModel(own) : null;
      const models = script ? screenModels(script, languages, o.locale) : controlModels(languages);
      return { items: (await lines(models.length ? models : languages, scaled(g, f), 0, 0, f * d.scale, "screen")).items };
    }
    const p = { x: o.around.x * d.scale, y: o.around.y * d.scale };
    t0 = performance.now();
    const control = controlAt(g, p);
    const ink = control ? inkOnWhite(g, control, MARGIN) : null;
    const band = bandAround(g, p);
    const bandImage = scaled(crop(g, band), f);
    stage("find", performance.now() - t0);
    const read = control && ink ? await readControl(ink, [control.box.left - MARGIN, control.box.top - MARGIN], d.scale, o.locale) : null;
    // The band (a dialog's title and message, a price line) in the models of the control's script alone: with
    // another script's model beside them, Tesseract takes words of one script for the other's.
    const models = read ? screenModels(read.script, languages, o.locale) : controlModels(languages, o.locale);
    const bandItems = (await lines(models.length ? models : languages, bandImage, band.left * f, band.top * f, f * d.scale, "band")).items;
    const controlItems = read?.lines.items ?? [];
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
      await Promise.all(all.map(async (w) => (await w.catch(() => null))?.terminate()));
    },
  };
}

/** The share of `a`'s area that `b` covers. */
function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  const area = (a.right - a.left) * (a.bottom - a.top);
  return w > 0 && h > 0 && area > 0 ? (w * h) / area : 0;
}
