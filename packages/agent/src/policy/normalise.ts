// Text as the policy compares it, so look-alikes match: NFKC (full-width letters and digits become ASCII),
// the zero-width non-joiner a space (Persian writes "می‌شود" with it where a word list may write "می شود"), other
// zero-width and format characters removed, case folded, Latin/Cyrillic accents stripped, Arabic and
// Hebrew vowel marks and the Arabic tatweel removed, the Arabic and Persian forms of yeh and kaf made one,
// spaces collapsed.

const ACCENTED = /[\u00C0-\u024F\u0400-\u04FF]/g;
const FORMAT = /[\p{Cf}\u034F\u115F\u1160\u3164\uFFA0]/gu;
/** Arabic harakat, Quranic marks and tatweel; Hebrew points and cantillation. */
const SEMITIC_MARKS = /[\u064B-\u065F\u0670\u06D6-\u06ED\u0640\u0591-\u05C7]/g;
const SEMITIC_LETTERS: Record<string, string> = { "\u064A": "\u06CC", "\u0649": "\u06CC", "\u0643": "\u06A9", "\u0629": "\u0647" };

export function normalise(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/\u200c/g, " ")
    .replace(FORMAT, "")
    .toLowerCase()
    .replace(/i\u0307/g, "i")
    .replace(/ß/g, "ss")
    .replace(/[’‘`´]/g, "'")
    .replace(ACCENTED, (ch) => ch.normalize("NFD").replace(/\p{M}/gu, ""))
    .replace(SEMITIC_MARKS, "")
    .replace(/[\u064A\u0649\u0643\u0629]/g, (ch) => SEMITIC_LETTERS[ch]!)
    .replace(/[\s\u00A0]+/g, " ")
    .trim();
}

/** Letters, digits and the vowel signs of Indic scripts only, one space between words: "S'abonner!" → "s abonner". */
export function words(normalised: string): string {
  return normalised.split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean).join(" ");
}

/** Scripts written without spaces between words (a word list entry in them matches as a substring): Chinese,
 * Japanese, Korean (spacing in Korean labels varies) and Thai. */
export const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u1100-\u11ff\u3130-\u318f\uf900-\ufaff\u0e00-\u0e7f]/;

/** Without spaces, for substring matching in the scripts above. */
export function compact(normalised: string): string {
  return normalised.replace(/[^\p{L}\p{N}\p{M}]+/gu, "");
}
