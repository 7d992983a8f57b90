// Text as the policy compares it, so look-alikes match: NFKC (full-width letters and digits become ASCII),
// zero-width and other format characters removed, case folded, Latin/Cyrillic accents stripped, spaces collapsed.

const ACCENTED = /[\u00C0-\u024F\u0400-\u04FF]/g;
const FORMAT = /[\p{Cf}\u034F\u115F\u1160\u3164\uFFA0]/gu;

export function normalise(text: string): string {
  return text
    .normalize("NFKC")
    .replace(FORMAT, "")
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(ACCENTED, (ch) => ch.normalize("NFD").replace(/\p{M}/gu, ""))
    .replace(/[\s\u00A0]+/g, " ")
    .trim();
}

/** Letters and digits only, one space between words: "S'abonner!" → "s abonner". */
export function words(normalised: string): string {
  return normalised.split(/[^\p{L}\p{N}]+/u).filter(Boolean).join(" ");
}

/** Scripts written without spaces between words (a word list entry in them matches as a substring). */
export const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u1100-\u11ff\u3130-\u318f\uf900-\ufaff]/;

/** Without spaces, for substring matching in CJK and Korean (spacing in Korean labels varies). */
export function compact(normalised: string): string {
  return normalised.replace(/[^\p{L}\p{N}]+/gu, "");
}
