// Which Tesseract model reads which writing system. A screen is read in one model per script: a model of the wrong
// script reads nothing right, and every extra model in a read costs its own pass over each word. The script is told
// by the control under the tap point (the first model whose reading of it is sure and in its own script), the
// phone's locale when the caller knows it choosing the first model tried and the language of its script.

/** The 24 languages read (BCP 47 primary subtag → Tesseract's name, as Debian's tesseract-ocr-* packages name them). */
export const TESSERACT_LANGUAGE: Readonly<Record<string, string>> = {
  en: "eng", zh: "chi_sim", ja: "jpn", ko: "kor", de: "deu", fr: "fra", es: "spa", pt: "por", ru: "rus", it: "ita", tr: "tur", vi: "vie",
  id: "ind", th: "tha", pl: "pol", nl: "nld", sv: "swe", ar: "ara", hi: "hin", bn: "ben", fa: "fas", he: "heb", uk: "ukr", ms: "msa",
};

export type Script = "Latin" | "Han" | "Kana" | "Hangul" | "Thai" | "Arabic" | "Hebrew" | "Devanagari" | "Bengali" | "Cyrillic";

const LETTERS: Record<Script, RegExp> = {
  Latin: /\p{Script=Latin}/gu,
  Han: /\p{Script=Han}/gu,
  Kana: /[\p{Script=Hiragana}\p{Script=Katakana}]/gu,
  Hangul: /\p{Script=Hangul}/gu,
  Thai: /\p{Script=Thai}/gu,
  Arabic: /\p{Script=Arabic}/gu,
  Hebrew: /\p{Script=Hebrew}/gu,
  Devanagari: /\p{Script=Devanagari}/gu,
  Bengali: /\p{Script=Bengali}/gu,
  Cyrillic: /\p{Script=Cyrillic}/gu,
};

/** The script most of `text`'s letters are in (Japanese text mixes Han and kana: any kana makes it Kana). */
export function scriptOf(text: string): Script | null {
  let best: Script | null = null;
  let most = 0;
  const kana = (text.match(LETTERS.Kana) ?? []).length;
  for (const s of Object.keys(LETTERS) as Script[]) {
    const n = s === "Kana" ? (kana ? kana + (text.match(LETTERS.Han) ?? []).length : 0) : (text.match(LETTERS[s]) ?? []).length;
    if (n > most) [best, most] = [s, n];
  }
  return best;
}

/** The model that reads each script when the locale names no other (Han alone: Simplified Chinese). */
const SCRIPT_MODEL: Record<Script, string> = {
  Latin: "eng", Han: "chi_sim", Kana: "jpn", Hangul: "kor", Thai: "tha", Arabic: "ara", Hebrew: "heb", Devanagari: "hin", Bengali: "ben", Cyrillic: "rus",
};

/** Tesseract's models whose readings are in `script` (Japanese's model reads Han too). */
function modelsOf(script: Script): string[] {
  if (script === "Han") return ["chi_sim", "jpn"];
  if (script === "Kana") return ["jpn"];
  return Object.entries(MODEL_SCRIPT).filter(([, s]) => s === script).map(([m]) => m);
}

/** The script each of the 24 models reads. */
const MODEL_SCRIPT: Record<string, Script> = {
  eng: "Latin", deu: "Latin", fra: "Latin", spa: "Latin", por: "Latin", ita: "Latin", tur: "Latin", vie: "Latin", ind: "Latin", pol: "Latin", nld: "Latin", swe: "Latin", msa: "Latin",
  chi_sim: "Han", jpn: "Kana", kor: "Hangul", tha: "Thai", ara: "Arabic", fas: "Arabic", heb: "Hebrew", hin: "Devanagari", ben: "Bengali", rus: "Cyrillic", ukr: "Cyrillic",
};

/** The script a model reads (Japanese's: kana with Han). */
export function scriptOfModel(model: string): Script | null {
  return MODEL_SCRIPT[model] ?? null;
}

/**
 * Whether a reading by `model` is in the script that model reads (a wrong model's reading is in another, or none),
 * with a word's worth of its letters: a wrong model reads a stray letter of its own among digits ("0ك 713" for a
 * Korean button), and a word of an alphabet has two letters at least (one Han, kana or Hangul sign is a word).
 */
export function readsOwnScript(model: string, text: string): boolean {
  const s = scriptOf(text);
  if (!s) return false;
  const own = MODEL_SCRIPT[model];
  if (own !== s && !(model === "jpn" && s === "Han")) return false;
  const letters = (text.match(LETTERS[s]) ?? []).length;
  return letters >= (s === "Han" || s === "Kana" || s === "Hangul" ? 1 : 2);
}

/** The locale's language as Tesseract names it (null: a language not among the 24, or no locale). */
export function modelOfLocale(locale: string | undefined): string | null {
  if (!locale) return null;
  return TESSERACT_LANGUAGE[locale.toLowerCase().split(/[-_]/)[0]!] ?? null;
}

/**
 * The models tried on the control, in order, until one reads it surely in its own script: the locale's language
 * first, then English (most controls are Latin), then one model per other script. Japanese's model reads Han as
 * well as kana, so it stands for both; Chinese's (the costliest read: the largest set of signs) comes last, for
 * simplified signs Japanese does not have.
 */
export function controlModels(installed: readonly string[], locale?: string): string[] {
  const first = modelOfLocale(locale);
  const order = [first, "eng", "jpn", "kor", "ara", "hin", "rus", "tha", "heb", "ben", "chi_sim"].filter((m): m is string => !!m && installed.includes(m));
  return [...new Set(order)];
}

/**
 * The models that read a screen whose control's words are in `script`: the script's model, the locale's language
 * instead when it writes that script (Persian for Arabic script, Ukrainian for Cyrillic, Japanese for Han), and for
 * Latin script English with the locale's language beside it (its accented letters; English names and words
 * appear on every Latin-script screen).
 */
export function screenModels(script: Script, installed: readonly string[], locale?: string): string[] {
  const own = modelOfLocale(locale);
  const fits = own !== null && modelsOf(script).includes(own);
  const models = script === "Latin" ? ["eng", ...(fits && own !== "eng" ? [own] : [])] : [fits ? own : SCRIPT_MODEL[script]];
  return models.filter((m) => installed.includes(m));
}

/** All 24 languages' models, the order Tesseract gets them in when several read one image. */
export const ALL_MODELS = Object.values(TESSERACT_LANGUAGE);
