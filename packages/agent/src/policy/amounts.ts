// Amounts of money in any screen text: a number written as some locale writes it, next to a currency that locale
// uses. Which symbols, codes and names count comes from the ICU/CLDR data the runtime already carries (Node and every
// browser): `Intl.NumberFormat(…).formatToParts` tells each market locale's symbol and narrow symbol for its own
// currency and the major ones ("R$", "US$", "￥", "元", "ر.س.", "₹", "zł", "kr", "Rp", "RM", "CHF"…), the name
// formats give the written names in each language ("円", "人民币", "บาท", "대한민국 원", "российского рубля"), and
// `Intl.supportedValuesOf("currency")` the ISO codes. The tables are built once, on first use or by prepareAmounts().
//
// API (stable; decide.ts and the screen reading call it):
//   findAmounts(text, { lang? })  every amount in the text: { value, currency?, raw } (raw: the text as written)
//   hasAmount(text)               whether any amount with a currency is in the text (fast path: no digit, no work)
//   parseLocaleNumber(s)          a number as any locale writes it ("1.234,50", "12,34,567", "١٬٢٣٤٫٥٠") or null
//   normaliseDigits(s)            Arabic-Indic, Persian, Devanagari, Bengali, Thai, full-width… digits as ASCII
//   prepareAmounts()              builds the tables now (a runtime calls it at start so no decision pays for it)
//
// A number needs a currency beside it (before or after, a space allowed) to be an amount, so phone numbers, dates,
// times, versions, percentages, counts ("3 items") and ratings ("4.5 ★") are not amounts; a number whose grouping
// is no locale's (a date "12.03.2026 €") is none either. Hand-written on top of Intl: no maintained package parses
// amounts of every locale in the browser; what the platform knows (symbols, separators' use) is read from it.

export interface Amount {
  /** The number (decimal separator resolved, grouping removed). */
  value: number;
  /** ISO 4217 code, when the currency is known ("$" alone is read as USD unless `lang` says otherwise). */
  currency?: string;
  /** The amount as written on the screen, symbol included. */
  raw: string;
}

export interface AmountOptions {
  /** The screen's language (BCP-47 primary code): picks between currencies sharing a symbol ("¥" in zh is CNY). */
  lang?: string;
}

/** The markets whose formats are learnt: one locale per language (each locale's data costs a few milliseconds to
 * load) → the currencies of the markets that write it, most used first. Data, not code: a currency added is read. */
const MARKETS: Record<string, string[]> = {
  "en-US": ["USD", "GBP", "INR", "AUD", "CAD", "SGD", "NGN", "PHP", "ZAR", "NZD", "HKD"],
  "zh-CN": ["CNY", "HKD"], "zh-TW": ["TWD"], "ja-JP": ["JPY"], "ko-KR": ["KRW"],
  "de-DE": ["EUR", "CHF"], "fr-FR": ["EUR", "CHF", "CAD", "MAD", "XOF"], "es-MX": ["MXN", "EUR", "ARS", "COP", "CLP", "PEN"],
  "pt-BR": ["BRL", "EUR"], "ru-RU": ["RUB", "KZT", "BYN"], "kk-KZ": ["KZT"], "it-IT": ["EUR"], "tr-TR": ["TRY"], "vi-VN": ["VND"], "id-ID": ["IDR"], "th-TH": ["THB"],
  "pl-PL": ["PLN"], "nl-NL": ["EUR"], "sv-SE": ["SEK"], "nb-NO": ["NOK"], "da-DK": ["DKK"], "cs-CZ": ["CZK"], "hu-HU": ["HUF"], "ro-RO": ["RON"],
  "ar-SA": ["SAR", "AED", "EGP", "KWD", "QAR", "MAD", "JOD", "BHD", "OMR"], "hi-IN": ["INR"], "bn-BD": ["BDT", "INR"], "ur-PK": ["PKR"],
  "fa-IR": ["IRR", "AFN"], "he-IL": ["ILS"], "uk-UA": ["UAH"], "ms-MY": ["MYR"], "fil-PH": ["PHP"], "de-CH": ["CHF"],
};
/** Coins and tokens a wallet or exchange shows beside an amount ("0,05 ETH → 142,30 USDC", "₿0.01"): no ISO 4217
 * code and no CLDR data, so the team lists the tickers with the largest markets; each is its own currency. */
const CRYPTO = ["BTC", "₿", "ETH", "USDT", "USDC", "BNB", "SOL", "XRP", "ADA", "DOGE", "TON", "TRX", "DOT", "MATIC", "POL", "LTC", "AVAX", "SHIB", "DAI", "XLM"];

/** Currencies every market's formats are also learnt for (how a Japanese app writes dollars: "$", "元" for yuan). */
const MAJOR = ["USD", "EUR", "GBP", "JPY", "CNY"];

/**
 * Unit words apps write that CLDR has only inside longer names or not at all (the colloquial unit: "500 рублей",
 * "99块", "50 تومان", "1,200 টাকা", "500 रुपये", "20 TL"). The team's own list; the rest comes from Intl.
 */
const UNIT_WORDS: Record<string, string> = {
  元: "CNY", 块: "CNY", 塊: "CNY", 圆: "CNY", 人民币: "CNY", 人民幣: "CNY", 円: "JPY", 圓: "TWD", 원: "KRW",
  руб: "RUB", "руб.": "RUB", рубль: "RUB", рубля: "RUB", рублей: "RUB", "р.": "RUB", грн: "UAH", "грн.": "UAH", гривня: "UAH", гривні: "UAH", гривень: "UAH",
  тг: "KZT", тенге: "KZT", TL: "TRY", lira: "TRY", tomans: "IRR", toman: "IRR", تومان: "IRR", تومن: "IRR", ریال: "IRR", ريال: "SAR", "ر.س": "SAR", "ر.س.": "SAR", "د.إ": "AED", "د.إ.": "AED", "ج.م": "EGP", "ج.م.": "EGP", جنيه: "EGP", درهم: "AED", دينار: "KWD",
  টাকা: "BDT", Tk: "BDT", "Tk.": "BDT", रुपये: "INR", रुपए: "INR", रुपया: "INR", "रु.": "INR", रु: "INR", Rs: "INR", "Rs.": "INR",
  บาท: "THB", đ: "VND", đồng: "VND", VNĐ: "VND", zł: "PLN", złotych: "PLN", kr: "SEK", "kr.": "DKK", kronor: "SEK", Rp: "IDR", "Rp.": "IDR", RM: "MYR", ringgit: "MYR",
  "Fr.": "CHF", CHF: "CHF", euro: "EUR", euros: "EUR", Euro: "EUR", dollars: "USD", dollar: "USD", rupees: "INR", reais: "BRL", pesos: "MXN", "ש״ח": "ILS", "ש\"ח": "ILS", שקל: "ILS", שקלים: "ILS",
};

/** Which market a language's ambiguous symbols belong to ("¥" in zh is CNY, "$" in es is MXN…). */
const LANG_PREFERS: Record<string, string[]> = {
  zh: ["CNY", "TWD", "HKD"], ja: ["JPY"], es: ["MXN", "ARS", "COP", "CLP"], pt: ["BRL"], en: ["USD"], fr: ["EUR", "CAD"], ar: ["SAR", "AED", "EGP"], fa: ["IRR"], ms: ["MYR"], id: ["IDR"], sv: ["SEK"], bn: ["BDT"], hi: ["INR"],
};

// Digits: every decimal digit of these scripts becomes its ASCII digit (full-width through NFKC below).
const DIGIT_ZEROS = [0x0660, 0x06f0, 0x0966, 0x09e6, 0x0a66, 0x0ae6, 0x0b66, 0x0be6, 0x0c66, 0x0ce6, 0x0d66, 0x0e50, 0x0ed0, 0x0f20, 0x1040, 0x17e0, 0x1810, 0xff10];
const FORMAT_CHAR = /\p{Cf}/u;

/** The text with every script's decimal digits as ASCII, full-width forms folded, format marks (RLM…) removed, and
 * for each position of the result the index of the character it came from (so `raw` quotes the original). */
function fold(text: string): { s: string; from: number[]; to: number[] } {
  let s = "";
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    let out = ch;
    const zero = DIGIT_ZEROS.find((z) => cp >= z && cp <= z + 9);
    if (zero !== undefined) out = String(cp - zero);
    else if (FORMAT_CHAR.test(ch)) out = "";
    else if (cp >= 0xff00 && cp <= 0xffef) out = ch.normalize("NFKC");
    else if (cp === 0x066b) out = "٫";
    for (let k = 0; k < out.length; k++) {
      s += out[k];
      from.push(i);
      to.push(i + ch.length);
    }
    i += ch.length;
  }
  return { s, from, to };
}

/** Every script's digits as ASCII digits ("١٢٣" → "123", "１２３" → "123"). */
export function normaliseDigits(text: string): string {
  return fold(text).s;
}

interface Tables {
  /** One regular expression finding a currency token next to a number, either side. */
  re: RegExp;
  /** Token → currencies it may mean, most likely first. */
  codes: Map<string, string[]>;
}

let tables: Tables | null = null;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const HAS_LETTER = /\p{L}/u;
const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

function build(): Tables {
  const codes = new Map<string, string[]>();
  const add = (token: string, code: string) => {
    const t = fold(token).s.trim();
    // A one-letter Latin symbol ("R", "K", "L") is a word, a size or a unit far more often than money.
    if (!t || /^[A-Za-z]$/.test(t) || /\d/.test(t)) return;
    const list = codes.get(t) ?? [];
    if (!list.includes(code)) list.push(code);
    codes.set(t, list);
    const upper = t.toUpperCase();
    if (upper !== t && /^[\p{Script=Latin}.]+$/u.test(t) && t.length <= 3) add(upper, code);
  };
  const symbols = (locale: string, code: string) => {
    for (const display of ["symbol", "narrowSymbol"] as const) {
      const part = new Intl.NumberFormat(locale, { style: "currency", currency: code, currencyDisplay: display }).formatToParts(2).find((p) => p.type === "currency");
      if (part) add(part.value, code);
    }
  };
  // In order of precedence for a shared symbol: codes, each market's own currency (in MARKETS' order, so "$" is
  // USD before AUD or MXN), how markets write the major currencies, then the unit words.
  for (const code of Intl.supportedValuesOf("currency")) add(code, code);
  for (const [locale, own] of Object.entries(MARKETS)) {
    const names = new Intl.DisplayNames(locale, { type: "currency" });
    for (const code of own.slice(0, 1)) {
      symbols(locale, code);
      const name = names.of(code);
      if (name && name !== code) add(name, code);
      const nameFormat = new Intl.NumberFormat(locale, { style: "currency", currency: code, currencyDisplay: "name", maximumFractionDigits: 0 });
      for (const n of [1, 2, 5, 21]) for (const p of nameFormat.formatToParts(n)) if (p.type === "currency") add(p.value, code);
    }
  }
  for (const [locale, own] of Object.entries(MARKETS)) for (const code of new Set([...own.slice(1), ...MAJOR])) symbols(locale, code);
  for (const [word, code] of Object.entries(UNIT_WORDS)) add(word, code);
  for (const ticker of CRYPTO) add(ticker, ticker === "₿" ? "BTC" : ticker);
  // Words need boundaries (no letter around "kr", "RM", "руб"); signs and CJK units sit right against digits.
  const worded: string[] = [];
  const signs: string[] = [];
  for (const t of [...codes.keys()].sort((a, b) => b.length - a.length)) (HAS_LETTER.test(t) && !SPACELESS.test(t) ? worded : signs).push(escapeRe(t));
  const token = `(?:(?<!\\p{L})(?:${worded.join("|")})(?!\\p{L})|${signs.join("|")})`;
  const number = "[-−]?\\d+(?:[.,'’٬٫\\u00A0\\u202F\\u2009 ]\\d+)*";
  const gap = "[ \\u00A0\\u202F\\u2009]?";
  const mult = (name: string) => `(?:(?<${name}k>[kK])(?![\\p{L}\\d])|${gap}(?<${name}>${MULTIPLIER_RE}))?`;
  const re = new RegExp(`(?<![\\d.,])(?:(?<pre>${token})${gap}[-−]?(?<n1>${number})${mult("m1")}|(?<n2>${number})${mult("m2")}${gap}(?<post>${token}))(?![\\d])`, "dgu");
  return { re, codes };
}

/** Builds the symbol tables now rather than on the first amount looked for. */
export function prepareAmounts(): void {
  tables ??= build();
}

/** Words for thousands, ten-thousands, lakhs… written between a number and its currency ("1万円", "5 lakh"). */
const MULTIPLIERS: Record<string, number> = {
  万: 1e4, 萬: 1e4, 亿: 1e8, 億: 1e8, 千: 1e3, 만: 1e4, 천: 1e3, 억: 1e8, k: 1e3,
  هزار: 1e3, میلیون: 1e6, میلیارد: 1e9, ألف: 1e3, آلاف: 1e3, مليون: 1e6, lakh: 1e5, lakhs: 1e5, lac: 1e5, crore: 1e7, crores: 1e7, cr: 1e7, लाख: 1e5, करोड़: 1e7, লাখ: 1e5, কোটি: 1e7,
  "тыс.": 1e3, тыс: 1e3, млн: 1e6, "млн.": 1e6, млрд: 1e9, "тис.": 1e3, тис: 1e3, million: 1e6, millions: 1e6, "mio.": 1e6, mio: 1e6, "mrd.": 1e9, mln: 1e6, "tys.": 1e3, tys: 1e3,
  juta: 1e6, jt: 1e6, ribu: 1e3, rb: 1e3, triệu: 1e6, nghìn: 1e3, ngàn: 1e3, ล้าน: 1e6, พัน: 1e3, bin: 1e3, milyon: 1e6, mil: 1e3, "mil.": 1e3, bn: 1e9,
};
const MULTIPLIER_RE = (() => {
  const words = Object.keys(MULTIPLIERS).filter((w) => w !== "k").sort((a, b) => b.length - a.length);
  const latin = words.filter((w) => /^[\p{Script=Latin}\p{Script=Cyrillic}.]+$/u.test(w)).map(escapeRe);
  const other = words.filter((w) => !/^[\p{Script=Latin}\p{Script=Cyrillic}.]+$/u.test(w)).map(escapeRe);
  return `(?:(?:${latin.join("|")})(?![\\p{L}])|${other.join("|")})`;
})();

const GROUP_SPACE = /[ \u00A0\u202F\u2009'’٬]/;

/** A number as some locale writes it: grouping by ".", ",", spaces, apostrophes or "٬" (threes, or the Indian
 * twos before the last three), a decimal part after "." "," or "٫". Null when no locale groups it so (a date). */
export function parseLocaleNumber(written: string): number | null {
  const s = fold(written).s.replace(/^[-−]/, "");
  const negative = s.length !== fold(written).s.length;
  const groups = s.split(/[.,'’٬٫\u00A0\u202F\u2009 ]/);
  const seps = s.match(/[.,'’٬٫\u00A0\u202F\u2009 ]/g) ?? [];
  if (groups.some((g) => !/^\d+$/.test(g))) return null;
  let intGroups = groups;
  let decimals = "";
  if (seps.length) {
    const last = seps.at(-1)!;
    const lastGroup = groups.at(-1)!;
    const lastIsOnly = seps.filter((x) => x === last).length === 1;
    const decimalMark = last === "٫" || (/[.,]/.test(last) && lastIsOnly && (lastGroup.length !== 3 || seps.length > 1 || groups[0] === "0"));
    if (decimalMark) {
      // More than three decimals only after a lone integer part ("0.0125 ETH": coins are divided finer than cents).
      if (lastGroup.length > 3 && last !== "٫" && seps.length > 1) return null;
      decimals = lastGroup;
      intGroups = groups.slice(0, -1);
      if (seps.slice(0, -1).includes(last)) return null;
    } else if (GROUP_SPACE.test(last) || /[.,]/.test(last)) {
      /* grouping only */
    } else return null;
    const groupSeps = decimalMark ? seps.slice(0, -1) : seps;
    if (new Set(groupSeps.map((x) => (GROUP_SPACE.test(x) && x !== "٬" && x !== "'" && x !== "’" ? " " : x))).size > 1) return null;
    if (intGroups.length > 1) {
      if (intGroups[0]!.length > 3) return null;
      const rest = intGroups.slice(1);
      if (rest.at(-1)!.length !== 3) return null;
      // Threes throughout, or the Indian lakh/crore grouping: twos, then the last three.
      if (!rest.every((g) => g.length === 3) && !rest.slice(0, -1).every((g) => g.length === 2)) return null;
    }
  }
  const value = Number(`${intGroups.join("")}${decimals ? `.${decimals}` : ""}`);
  return Number.isFinite(value) ? (negative ? -value : value) : null;
}

/** A number as matched may start or end with a count written before it ("2 1 500 ₽"): drop leading (or trailing)
 * space-separated groups until the rest parses. */
function bestNumber(written: string, tokenAfter: boolean): { value: number; text: string } | null {
  let w = written;
  for (let guard = 0; guard < 6 && w; guard++) {
    const v = parseLocaleNumber(w);
    if (v !== null) return { value: v, text: w };
    const m = tokenAfter ? /^[^ \u00A0\u202F\u2009]*[ \u00A0\u202F\u2009](.*)$/su.exec(w) : /^(.*)[ \u00A0\u202F\u2009][^ \u00A0\u202F\u2009]*$/su.exec(w);
    if (!m) return null;
    w = m[1]!;
  }
  return null;
}

const ANY_DIGIT = /\p{Nd}/u;

/** Every amount with a currency in the text, in reading order. */
export function findAmounts(text: string, options: AmountOptions = {}): Amount[] {
  if (!text || !ANY_DIGIT.test(text)) return [];
  const t = (tables ??= build());
  const { s, from, to } = fold(text);
  const out: Amount[] = [];
  t.re.lastIndex = 0;
  for (let m = t.re.exec(s); m; m = t.re.exec(s)) {
    const g = m.groups!;
    const at = m.indices!.groups!;
    const tokenAfter = g.post !== undefined;
    const written = (tokenAfter ? g.n2 : g.n1)!;
    const token = (tokenAfter ? g.post : g.pre)!;
    const num = bestNumber(written, tokenAfter);
    if (!num) continue;
    const [numStart, numEnd] = (tokenAfter ? at.n2 : at.n1)!;
    // "1万円", "₹1.5 lakh", "Rp 50rb", "۱۲۰ هزار تومان": a multiplier word between the number and the currency, or
    // after a currency-first amount (only when the whole number was read).
    const multWord = tokenAfter ? (g.m2 ?? g.m2k) : num.text === written ? (g.m1 ?? g.m1k) : undefined;
    const multEnd = tokenAfter ? null : multWord ? (at.m1 ?? at.m1k)![1] : null;
    let start = tokenAfter ? numEnd - num.text.length : m.index;
    const end = tokenAfter ? m.index + m[0].length : (multEnd ?? numStart + num.text.length);
    // "-$5" and "$-5" are both minus five.
    const signBefore = !tokenAfter && start > 0 && /[-−]/.test(s[start - 1]!) && (start === 1 || /\s/.test(s[start - 2]!));
    if (signBefore) start -= 1;
    const factor = multWord ? (MULTIPLIERS[multWord.toLowerCase()] ?? 1) : 1;
    const value = num.value * factor;
    const signed = signBefore || (!tokenAfter && /[-−]/.test(s.slice(at.pre![1], numStart))) ? -Math.abs(value) : value;
    const currency = pickCurrency(t.codes.get(token) ?? [], options.lang);
    out.push({ value: signed, ...(currency ? { currency } : {}), raw: text.slice(from[start]!, to[end - 1]!).trim() });
  }
  return out;
}

function pickCurrency(candidates: string[], lang: string | undefined): string | undefined {
  const prefer = lang ? LANG_PREFERS[lang.toLowerCase().split("-")[0]!] : undefined;
  if (prefer) for (const c of prefer) if (candidates.includes(c)) return c;
  return candidates[0];
}

/** Whether the text shows an amount with a currency. */
export function hasAmount(text: string): boolean {
  return findAmounts(text).length > 0;
}
