// The phone's locale reaches every reading the executor asks for, and a reading's own locale is kept.
import { describe, expect, it } from "vitest";
import type { Ocr } from "./ports.ts";
import { readingInLocale } from "./reading-in-locale.ts";

function recordingOcr(): { ocr: Ocr; asked: Parameters<Ocr["read"]>[1][] } {
  const asked: Parameters<Ocr["read"]>[1][] = [];
  return { asked, ocr: { read: async (_png, opts) => (asked.push(opts), { items: [] }) } };
}

describe("readingInLocale", () => {
  it("adds the phone's locale to a reading around a point", async () => {
    const { ocr, asked } = recordingOcr();
    await readingInLocale(ocr, "ko-KR").read(new Uint8Array(), { around: { x: 10, y: 20 } });
    expect(asked).toEqual([{ locale: "ko-KR", around: { x: 10, y: 20 } }]);
  });
  it("keeps a locale the caller gave", async () => {
    const { ocr, asked } = recordingOcr();
    await readingInLocale(ocr, "ko-KR").read(new Uint8Array(), { locale: "ja-JP" });
    expect(asked).toEqual([{ locale: "ja-JP" }]);
  });
  it("is the reader itself when the phone's locale is unknown", () => {
    const { ocr } = recordingOcr();
    expect(readingInLocale(ocr, null)).toBe(ocr);
    expect(readingInLocale(ocr, "")).toBe(ocr);
  });
});
