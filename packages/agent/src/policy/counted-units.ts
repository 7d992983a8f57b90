// An app's own currency (gems, coins, diamonds, coupons, gold bars): no locale knows it, so amounts.ts cannot read
// it, but a screen that sells in it shows it the way every shop shows money — a price and a balance, or a stake
// and a prize, each a number beside the same word ("Pacote Elite · 1.299 diamantes" and "Saldo: 1.520 diamantes",
// "สกิน · 899 คูปอง" and "คูปองของคุณ 1,020"). The word is never read from a list: the structure finds it in
// any language. Measurement units (minutes, kilometres, gigabytes, per cent) are counted on two lines too, on screens
// that sell nothing ("4 min", "6 min"); their words come from the CLDR data Intl carries, in every language the
// policy reads, so they never count. A count of a few ("3 photos", "2 items") needs a third digit to count.

import { LEXICON } from "./lexicon.ts";
import { normaliseDigits } from "./amounts.ts";

export interface CountedUnit {
  /** The word counted ("diamantes", "কয়েন"). */
  unit: string;
  /** Two of the texts that count it. */
  texts: [string, string];
}

/** Units Intl can format (a sanctioned subset of CLDR's), the ones screens count. */
const MEASURES = [
  "second", "minute", "hour", "day", "week", "month", "year", "meter", "kilometer", "mile", "foot", "kilogram", "gram", "pound", "liter",
  "percent", "byte", "kilobyte", "megabyte", "gigabyte", "terabyte", "celsius", "fahrenheit", "degree", "kilometer-per-hour",
];

let measureWords: Set<string> | null = null;

/** Every word CLDR writes for a measurement unit in the lexicon's languages, in each display and plural form. */
function measures(): Set<string> {
  if (measureWords) return measureWords;
  const out = new Set<string>();
  for (const lang of Object.keys(LEXICON))
    for (const unit of MEASURES)
      for (const unitDisplay of ["long", "short", "narrow"] as const)
        for (const n of [1, 2, 5, 21, 1.5]) {
          let text: string;
          try {
            text = new Intl.NumberFormat(lang, { style: "unit", unit, unitDisplay }).format(n);
          } catch {
            continue;
          }
          for (const w of runs(text)) out.add(w);
        }
  return (measureWords = out);
}

/** Runs of letters (any script, with their marks), lower-cased: the words beside a number. */
function runs(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{M}]+/gu) ?? []).filter((w) => w.length >= 2);
}

const NUMBER = /\d[\d.,'\u00a0\u202f ]*\d|\d/g;
/** Scripts written without spaces: a word beside a number may run on into the next ("คูปองของคุณ"). */
const NO_SPACES = /[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff]/;

/** A Han character at the start of the word after a number: Chinese and Japanese counters (個, 颗, 枚, 张). */
const COUNTER = /^[\u3400-\u9fff]/u;

interface Count {
  digits: number;
  before: string | null;
  after: string | null;
}

function counts(text: string): Count[] {
  const t = normaliseDigits(text).toLowerCase();
  const out: Count[] = [];
  for (const m of t.matchAll(NUMBER)) {
    const before = t.slice(0, m.index).match(/([\p{L}\p{M}]+)[^\p{L}\p{M}\d]{0,3}$/u)?.[1] ?? null;
    const after = t.slice(m.index + m[0].length).match(/^[^\p{L}\p{M}\d]{0,2}([\p{L}\p{M}]+)/u)?.[1] ?? null;
    out.push({ digits: m[0].replace(/\D/g, "").length, before, after });
  }
  return out;
}

/** The same word, or, in a script without spaces, one run holding the other at its edge ("คูปอง" in "คูปองของคุณ"). */
function same(a: string, b: string): boolean {
  if (a === b) return true;
  if (!NO_SPACES.test(a) || Math.min(a.length, b.length) < 2) return false;
  return a.startsWith(b) || b.startsWith(a) || a.endsWith(b) || b.endsWith(a);
}

/** A word counted by a number on two different texts of the screen, one of them at least in the hundreds: the
 * screen's own currency. Measurement units and words shorter than two letters never count. */
export function countedUnit(texts: readonly string[]): CountedUnit | null {
  const m = measures();
  const all = texts.map((text) => ({ text, counts: counts(text) })).filter((x) => x.counts.length);
  for (let i = 0; i < all.length; i++)
    for (const a of all[i]!.counts) {
      const unit = a.after;
      if (!unit || unit.length < 2 || m.has(unit)) continue;
      for (let j = 0; j < all.length; j++) {
        if (j === i || all[j]!.text === all[i]!.text) continue;
        for (const b of all[j]!.counts) {
          if (Math.max(a.digits, b.digits) < 3) continue;
          if ([b.after, b.before].some((w) => w && !m.has(w) && same(unit, w))) return { unit, texts: [all[i]!.text, all[j]!.text] };
          // "ジュエルを1500個使用して" and "所持ジュエル 3,200個", "消耗1600颗原石" and "原石：3,280颗": Chinese and
          // Japanese count with a one-character counter after the number, the currency's name elsewhere; the same
          // counter after two numbers in the hundreds counts a currency ("共 128 个" and "已选 0 个" do not).
          const counter = COUNTER.exec(unit)?.[0];
          if (counter && b.after?.startsWith(counter) && Math.min(a.digits, b.digits) >= 3) return { unit: counter, texts: [all[i]!.text, all[j]!.text] };
        }
      }
    }
  return null;
}
