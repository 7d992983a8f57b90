// Real fonts for the phone: Noto Sans CJK for Chinese and Japanese (and Latin), Noto Sans Arabic and Devanagari,
// DejaVu Sans as the fallback.
import { existsSync } from "node:fs";
import { GlobalFonts } from "@napi-rs/canvas";

const FONT_FILES: [string, string][] = [
  ["/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", "Noto Sans CJK SC"],
  ["/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", "Noto Sans CJK SC"],
  ["/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf", "Noto Sans Arabic"],
  ["/usr/share/fonts/truetype/noto/NotoSansArabic-Bold.ttf", "Noto Sans Arabic"],
  ["/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf", "Noto Sans Devanagari"],
  ["/usr/share/fonts/truetype/noto/NotoSansDevanagari-Bold.ttf", "Noto Sans Devanagari"],
  ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "DejaVu Sans"],
  ["/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "DejaVu Sans"],
];

let registered = false;
export const FONT_FAMILY = `"Noto Sans CJK SC", "Noto Sans Arabic", "Noto Sans Devanagari", "DejaVu Sans", sans-serif`;

/** Registers the fonts once; missing files only cost fidelity (the canvas falls back to its default font). */
export function ensureFonts(): { missing: string[] } {
  const missing: string[] = [];
  if (registered) return { missing };
  for (const [file, family] of FONT_FILES) {
    if (existsSync(file)) GlobalFonts.registerFromPath(file, family);
    else missing.push(file);
  }
  registered = true;
  return { missing };
}

export function font(px: number, weight: "normal" | "bold" | 500 = "normal"): string {
  return `${weight === 500 ? "bold" : weight} ${Math.round(px)}px ${FONT_FAMILY}`;
}
