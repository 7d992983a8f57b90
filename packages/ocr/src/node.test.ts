// The Node reader on screens the virtual phone draws inside a WebView without accessibility nodes: the UI dump has
// none of the page's words, and OCR reads the committing button's words at the point a tap lands on in ten
// languages of nine scripts (English, Chinese, Japanese, Arabic, Hindi, Korean, Russian, Thai, Hebrew, Bengali).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { blindScreens, comparable, readsCommit, type BlindScreen } from "./bench-screens.ts";
import { createNodeOcr, installedLanguages, OcrUnavailable } from "./node.ts";
import { controlAt, grayOf, inkOnWhite } from "./pixels.ts";
import { DEFAULT_LANGUAGES, type OcrReader } from "./reading.ts";

const LANGUAGES = ["en", "zh", "ja", "ar", "hi", "ko", "ru", "th", "he", "bn"];
let screens: BlindScreen[];
let reader: OcrReader;
/** The stages of the reads since the last test began ("control:<model>", "band:<models>", …). */
let stages: string[] = [];

beforeAll(async () => {
  screens = await blindScreens();
  reader = createNodeOcr({ onStage: (s) => stages.push(s) });
});
beforeEach(() => {
  stages = [];
});
afterAll(() => reader?.close());

describe("OCR on blind screens", () => {
  it("has all 24 languages' data installed (scripts/ensure-system.sh)", () => {
    expect(DEFAULT_LANGUAGES).toHaveLength(24);
    expect(installedLanguages()).toEqual([...DEFAULT_LANGUAGES]);
  });

  it("the screens are blind: the committing button's words are drawn but not in the UI dump", () => {
    expect(screens.map((s) => s.lang)).toEqual(LANGUAGES);
    for (const s of screens) {
      expect(s.dump).toContain('class="android.webkit.WebView"');
      expect(s.dump).not.toContain(s.commit.text);
      for (const t of s.texts) expect(s.dump).not.toContain(t);
    }
  });

  it.each(LANGUAGES)("reads the committing button's words under the tap point (%s)", async (lang) => {
    const s = screens.find((x) => x.lang === lang)!;
    const r = await reader.read(s.png, { around: s.commit.point });
    expect(readsCommit(r.items, s), JSON.stringify(r.items)).toBe(true);
    // And the dialog's title above it, read in the script the button's words named.
    expect(r.items.some((i) => comparable(i.text).includes(comparable(s.texts[0]!))), JSON.stringify(r.items)).toBe(true);
    // The band is read by one model: its script's.
    expect(stages.filter((x) => x.startsWith("band:")).map((x) => x.split("+").length)).toEqual([1]);
  });

  it("reads a screen by one model per script: English alone on a Latin one; the locale's model first when the phone's locale is known", async () => {
    const en = screens.find((x) => x.lang === "en")!;
    await reader.read(en.png, { around: en.commit.point });
    expect(stages.filter((x) => x.includes(":"))).toEqual(["control:eng", "band:eng"]);
    stages = [];
    const ko = screens.find((x) => x.lang === "ko")!;
    const r = await reader.read(ko.png, { around: ko.commit.point, locale: "ko-KR" });
    expect(readsCommit(r.items, ko), JSON.stringify(r.items)).toBe(true);
    expect(stages.filter((x) => x.includes(":"))).toEqual(["control:kor", "band:kor"]);
  });

  it("the filled button is read only because its light letters are made dark ink: Tesseract alone misses them", async () => {
    const s = screens.find((x) => x.lang === "en")!;
    const whole = await reader.read(s.png, { locale: "en-US" });
    expect(whole.items.some((i) => comparable(i.text) === comparable("Cancel"))).toBe(true);
    expect(readsCommit(whole.items, s)).toBe(false);
  });

  it("finds the control under a point as its flat region, letters as ink on white and its rounded corners left out", () => {
    // A 40×20 blue pill (luminance 80) with a white bar (a letter) inside, on a white screen.
    const w = 200, h = 120;
    const rgba = new Uint8Array(w * h * 4).fill(255);
    const paint = (x: number, y: number, v: number) => rgba.set([v, v, v, 255], (y * w + x) * 4);
    for (let y = 10; y < 30; y++) for (let x = 10; x < 50; x++) if (!((y < 12 || y > 27) && (x < 12 || x > 47))) paint(x, y, 80);
    for (let y = 15; y < 25; y++) for (let x = 28; x < 31; x++) paint(x, y, 255);
    const g = grayOf(rgba, w, h);
    const c = controlAt(g, { x: 29, y: 20 })!;
    expect(c.box).toEqual({ left: 10, top: 10, right: 50, bottom: 30 });
    const ink = inkOnWhite(g, c, 0);
    const at = (x: number, y: number) => ink.data[y * ink.width + x];
    expect(at(19, 10)).toBe(0); // the letter
    expect(at(0, 0)).toBe(255); // a corner outside the pill
    expect(at(5, 10)).toBe(255); // the pill's own colour
  });

  it("says which Debian packages to install when no language data is there", () => {
    expect(() => createNodeOcr({ tessdata: "/nonexistent" })).toThrow(OcrUnavailable);
    expect(() => createNodeOcr({ tessdata: "/nonexistent", languages: ["ara", "chi_sim"] })).toThrow(/apt-get install tesseract-ocr-ara tesseract-ocr-chi-sim/);
  });

  it("an all-black screenshot (a secure window) reads as nothing", async () => {
    const { createCanvas } = await import("@napi-rs/canvas");
    const c = createCanvas(1080, 2400);
    const ctx = c.getContext("2d");
    ctx.fillStyle = "#000";
    ctx.fillRect(0, 0, 1080, 2400);
    expect(await reader.read(new Uint8Array(c.toBuffer("image/png")), { around: { x: 540, y: 1200 } })).toEqual({ items: [] });
  });
});
