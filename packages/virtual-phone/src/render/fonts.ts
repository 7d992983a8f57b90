// Real fonts for the phone: Noto Sans CJK for Chinese, DejaVu Sans as a Latin fallback.
import { existsSync } from "node:fs";
import { GlobalFonts } from "@napi-rs/canvas";

const FONT_FILES: [string, string][] = [
  ["/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", "Noto Sans CJK SC"],
  ["/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", "Noto Sans CJK SC"],
  ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "DejaVu Sans"],
  ["/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "DejaVu Sans"],
];

let registered = false;
export const FONT_FAMILY = `"Noto Sans CJK SC", "DejaVu Sans", sans-serif`;

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
