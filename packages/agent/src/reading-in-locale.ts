// The OCR reader with the phone's locale on every reading. The composition root knows the phone (DeviceInfo.locale);
// the executor asks for a point only. Without a locale the reader tries one model per script, about twice the time.
import type { Ocr } from "./ports.ts";

export function readingInLocale(ocr: Ocr, locale: string | null | undefined): Ocr {
  if (!locale) return ocr;
  return { read: (png, opts) => ocr.read(png, { locale, ...opts }) };
}
