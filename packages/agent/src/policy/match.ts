// Word lists compiled into a few regular expressions each (one pass per list over a label, so a decision stays
// well under a millisecond), matched on normalised text. Hand-written: the matching rules (whole words, stems,
// German compound heads, CJK substrings) are specific to these lists; the heavy lifting is the platform's RegExp.
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

/** A word list: Latin/Cyrillic entries as whole words (stems and compounds as marked), CJK entries as substrings. */
export class WordSet {
  private readonly latin: RegExp | null;
  private readonly latinAnchored: RegExp | null;
  private readonly latinEnd: RegExp | null;
  private readonly cjk: RegExp | null;
  private readonly cjkEnd: RegExp | null;
  private readonly whole = new Set<string>();

  constructor(entries: { text: string; compound?: boolean }[]) {
    // Each pattern with the length of the words it stands for: the alternation tries longer entries first, so
    // "Neka ändå" is found whole before "neka" (a compound head or stem does not count towards the length).
    const latinEntries: { re: string; len: number }[] = [];
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
      // Compounds: "verlauf" also ends "Zahlungsverlauf"; only for longer single words, so short ones stay exact.
      const head = e.compound && !w.includes(" ") && w.length >= 4 ? "[\\p{L}\\p{M}]*" : "";
      latinEntries.push({ re: `${head}${escapeRe(w)}${stem ? "[\\p{L}\\p{M}]*" : ""}`, len: w.length });
    }
    const latin = latinEntries.sort((a, b) => b.len - a.len).map((e) => e.re);
    cjk.sort((a, b) => b.length - a.length);
    this.latin = latin.length ? new RegExp(`(?<=^| )(?:${latin.join("|")})(?= |$)`, "u") : null;
    this.latinAnchored = latin.length ? new RegExp(`^(?:${latin.join("|")})(?= |$)`, "u") : null;
    this.latinEnd = latin.length ? new RegExp(`(?<=^| )(?:${latin.join("|")})$`, "u") : null;
    this.cjk = cjk.length ? new RegExp(cjk.join("|"), "u") : null;
    this.cjkEnd = cjk.length ? new RegExp(`(?:${cjk.join("|")})$`, "u") : null;
  }

  /** The first entry found anywhere in the text, or null. */
  find(p: Prepared): string | null {
    if (this.whole.size && (this.whole.has(p.words) || this.whole.has(p.compact))) return p.norm;
    const l = this.latin?.exec(p.words);
    if (l) return l[0];
    const c = this.cjk?.exec(p.compact);
    return c ? c[0] : null;
  }

  /** An entry at the start of the words (a verb where a verb goes). */
  findAtStart(wordsText: string): string | null {
    return this.latinAnchored?.exec(wordsText)?.[0] ?? null;
  }

  /** Whether the label starts with an entry ("My orders", "我的淘宝", "Don't allow"). */
  atStart(p: Prepared): boolean {
    if (this.latinAnchored?.test(p.words)) return true;
    return this.cjk?.exec(p.compact)?.index === 0;
  }

  /** Whether the label ends with an entry (a verb where languages that put the verb last put it: "Sepete geri dön"). */
  atEnd(p: Prepared): boolean {
    return Boolean(this.latinEnd?.test(p.words) || this.cjkEnd?.test(p.compact));
  }

  /** Whether the whole label is one of the entries (Cancel, Not now). */
  isWhole(p: Prepared): boolean {
    if (this.whole.has(p.words) || this.whole.has(p.compact)) return true;
    const l = this.latin?.exec(p.words);
    if (l && l[0] === p.words) return true;
    const c = this.cjk?.exec(p.compact);
    return Boolean(c && c[0] === p.compact);
  }

  /** Where an entry starts, for word order ("How to pay" vs "Pay"): index in `words` or `compact`, -1 if absent. */
  position(p: Prepared): { at: number; end: number; cjk: boolean } | null {
    const l = this.latin?.exec(p.words);
    if (l) return { at: l.index, end: l.index + l[0].length, cjk: false };
    const c = this.cjk?.exec(p.compact);
    if (c) return { at: c.index, end: c.index + c[0].length, cjk: true };
    return null;
  }
}

export function splitList(s: string | undefined): string[] {
  return s ? s.split("|") : [];
}
