// Word lists compiled for look-up (each word of a label looked up in a map; scripts without spaces by one regular
// expression per list), matched on normalised text. Hand-written: the matching rules (whole words, stems, compound
// heads in German, Dutch and Swedish, substrings in CJK and Thai) are specific to these lists.
import { CJK, compact, normalise, words } from "./normalise.ts";

/** A label prepared once for all lists. */
export interface Prepared {
  /** Normalised text. */
  norm: string;
  /** Letters and digits only, single spaces. */
  words: string;
  /** Without spaces (CJK, Korean). */
  compact: string;
}

export function prepare(text: string): Prepared {
  const norm = normalise(text);
  return { norm, words: words(norm), compact: compact(norm) };
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A Latin/Cyrillic/Arabic… entry as words: `stem` lets its last word go on ("kündig*"), `compound` lets its one
 * word end a longer one ("Zahlungsverlauf" ends in "verlauf"). */
interface Phrase {
  tokens: string[];
  text: string;
  stem: boolean;
}

interface Hit {
  /** Index of the first word. */
  from: number;
  /** Index after the last word. */
  to: number;
  text: string;
}

/** Compound heads are read only from words this long, so short words stay exact. */
const MIN_COMPOUND = 4;

/**
 * A short compound end that is also the end of English -ing words ("ring", Swedish for "call", ends "pairing",
 * "tethering", "ordering", "monitoring") would read those as compounds: such an end matches whole words only.
 */
const isEnglishEnding = (w: string): boolean => w.length <= MIN_COMPOUND && w.endsWith("ing");

/** A word list: entries in scripts with spaces matched as whole words by looking each word up (stems and
 * compounds as marked), entries in scripts without spaces (CJK, Korean, Thai) as substrings by one regular
 * expression. A decision looks labels up in a few dozen lists, so each look-up is a handful of map reads. */
export class WordSet {
  /** Entries by their first word, longest first. */
  private readonly byFirst = new Map<string, Phrase[]>();
  /** Entries whose first (only) word may also end a compound, by that word. */
  private readonly compoundEnds = new Map<string, Phrase>();
  /** Entries whose first word is a stem. */
  private readonly stemFirst: Phrase[] = [];
  /** Stems that may also sit inside a compound ("lösch*" in "Kontolöschung"). */
  private readonly compoundStems: string[] = [];
  private readonly cjk: RegExp | null;
  private readonly cjkEnd: RegExp | null;
  private readonly whole = new Set<string>();

  constructor(entries: { text: string; compound?: boolean }[]) {
    const cjk: string[] = [];
    for (const e of entries) {
      let t = e.text.trim();
      if (!t) continue;
      const onlyWhole = t.startsWith("^");
      if (onlyWhole) t = t.slice(1);
      const stem = t.endsWith("*");
      if (stem) t = t.slice(0, -1);
      const n = normalise(t);
      if (CJK.test(n)) {
        const c = compact(n);
        if (onlyWhole) this.whole.add(c);
        else if (c) cjk.push(escapeRe(c));
        continue;
      }
      const w = words(n);
      if (!w) continue;
      if (onlyWhole) {
        this.whole.add(w);
        continue;
      }
      const tokens = w.split(" ");
      const phrase: Phrase = { tokens, text: w, stem };
      if (stem && tokens.length === 1) this.stemFirst.push(phrase);
      else {
        const list = this.byFirst.get(tokens[0]!) ?? [];
        list.push(phrase);
        this.byFirst.set(tokens[0]!, list);
      }
      if (e.compound && tokens.length === 1 && w.length >= MIN_COMPOUND && !isEnglishEnding(w)) {
        if (stem) this.compoundStems.push(w);
        else this.compoundEnds.set(w, phrase);
      }
    }
    for (const list of this.byFirst.values()) list.sort((a, b) => b.text.length - a.text.length);
    cjk.sort((a, b) => b.length - a.length);
    this.cjk = cjk.length ? new RegExp(cjk.join("|"), "u") : null;
    this.cjkEnd = cjk.length ? new RegExp(`(?:${cjk.join("|")})$`, "u") : null;
  }

  /** The longest entry starting at word `i`, or null. */
  private at(tokens: string[], i: number, stripped = 0): Hit | null {
    const t = tokens[i]!;
    for (const ph of this.byFirst.get(t) ?? []) if (this.follows(ph, tokens, i)) return { from: i, to: i + ph.tokens.length, text: tokens.slice(i, i + ph.tokens.length).join(" ") };
    for (const ph of this.stemFirst) if (t.startsWith(ph.tokens[0]!)) return { from: i, to: i + 1, text: t };
    if (this.compoundEnds.size && t.length > MIN_COMPOUND)
      for (let k = 1; k <= t.length - MIN_COMPOUND; k++) if (this.compoundEnds.has(t.slice(k))) return { from: i, to: i + 1, text: t };
    for (const s of this.compoundStems) if (t.includes(s)) return { from: i, to: i + 1, text: t };
    // Hebrew and Arabic write "and", "the", "to", "from", "that" as letters joined to the word ("ולמחוק",
    // "ההזמנה", "والدفع"): a word the list lacks is looked up again without them.
    const bare = stripped < 2 ? withoutClitic(t) : null;
    if (bare) {
      const rest = tokens.slice();
      rest[i] = bare;
      const h = this.at(rest, i, stripped + 1);
      if (h) return { ...h, text: [t, ...tokens.slice(i + 1, h.to)].join(" ") };
    }
    return null;
  }

  private follows(ph: Phrase, tokens: string[], i: number): boolean {
    const n = ph.tokens.length;
    if (i + n > tokens.length) return false;
    for (let k = 1; k < n; k++) {
      const want = ph.tokens[k]!;
      const got = tokens[i + k]!;
      if (k === n - 1 && ph.stem ? !got.startsWith(want) : got !== want) return false;
    }
    return true;
  }

  private first(p: Prepared): Hit | null {
    if (!p.words) return null;
    const tokens = p.words.split(" ");
    for (let i = 0; i < tokens.length; i++) {
      const h = this.at(tokens, i);
      if (h) return h;
    }
    return null;
  }

  /** The first entry found anywhere in the text, or null. */
  find(p: Prepared): string | null {
    if (this.whole.size && (this.whole.has(p.words) || this.whole.has(p.compact))) return p.norm;
    const l = this.first(p);
    if (l) return l.text;
    const c = this.cjk?.exec(p.compact);
    return c ? c[0] : null;
  }

  /** An entry at the start of the words (a verb where a verb goes). */
  findAtStart(wordsText: string): string | null {
    if (!wordsText) return null;
    return this.at(wordsText.split(" "), 0)?.text ?? null;
  }

  /** Whether the label starts with an entry ("My orders", "我的淘宝", "Don't allow"). */
  atStart(p: Prepared): boolean {
    if (p.words && this.at(p.words.split(" "), 0)) return true;
    return this.cjk?.exec(p.compact)?.index === 0;
  }

  /** Whether the label ends with an entry (a verb where languages that put the verb last put it: "Sepete geri dön"). */
  atEnd(p: Prepared): boolean {
    if (p.words) {
      const tokens = p.words.split(" ");
      for (let i = 0; i < tokens.length; i++) {
        const t = tokens[i]!;
        for (const ph of this.byFirst.get(t) ?? []) if (i + ph.tokens.length === tokens.length && this.follows(ph, tokens, i)) return true;
      }
    }
    return Boolean(this.cjkEnd?.test(p.compact));
  }

  /** Whether the whole label is one of the entries (Cancel, Not now). */
  isWhole(p: Prepared): boolean {
    if (this.whole.has(p.words) || this.whole.has(p.compact)) return true;
    if (p.words) {
      const tokens = p.words.split(" ");
      const h = this.at(tokens, 0);
      if (h && h.to === tokens.length) return true;
    }
    const c = this.cjk?.exec(p.compact);
    return Boolean(c && c[0] === p.compact);
  }

  /** Where the first entry is, for word order ("How to pay" vs "Pay"): character offsets in `words` or `compact`. */
  position(p: Prepared): { at: number; end: number; cjk: boolean } | null {
    const l = this.first(p);
    if (l) {
      const tokens = p.words.split(" ");
      const at = tokens.slice(0, l.from).reduce((n, t) => n + t.length + 1, 0);
      return { at, end: at + l.text.length, cjk: false };
    }
    const c = this.cjk?.exec(p.compact);
    if (c) return { at: c.index, end: c.index + c[0].length, cjk: true };
    return null;
  }
}

/** One of Hebrew's one-letter prefixes (ו ה ל ב מ ש כ) or Arabic's (و ف ب ل ك, the article ال), left off a word
 * that keeps at least three letters; null when the word has none. A word is looked up without at most two. */
const HEBREW_CLITIC = /^[והלבמשכ](?=[\u05d0-\u05ea]{3})/;
const ARABIC_CLITIC = /^(?:ال|[وفبلك])(?=[\u0621-\u064a\u06a9\u06cc]{3})/;

function withoutClitic(t: string): string | null {
  const c = t.charCodeAt(0);
  const m = c >= 0x5d0 && c <= 0x5ea ? HEBREW_CLITIC.exec(t) : c >= 0x621 && c <= 0x64a ? ARABIC_CLITIC.exec(t) : null;
  return m ? t.slice(m[0].length) : null;
}

export function splitList(s: string | undefined): string[] {
  return s ? s.split("|") : [];
}
