// Repairs for the common ways models mangle JSON. Each function is pure and total (never throws).
import { jsonrepair } from "jsonrepair";

const FULL_WIDTH: Record<string, string> = {
  "｛": "{", "｝": "}", "［": "[", "］": "]", "（": "(", "）": ")", "：": ":", "，": ",", "；": ";",
  "＂": '"', "“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "＇": "'", "　": " ", "＝": "=", "．": ".",
  "【": "[", "】": "]", "《": "<", "》": ">", "＜": "<", "＞": ">",
};

const DOUBLE_QUOTES = new Set(['"', "＂", "“", "”", "„"]);

/**
 * Full-width punctuation → ASCII and full-width digits → ASCII digits, but only in the JSON's structure: the text
 * inside a double-quoted string literal is a value (a message to type, a label to match) and is kept as written, so
 * `{“text”：“你好，世界”}` reads as {"text":"你好，世界"}. A string opened by a curly or full-width quote closes on any
 * double quote; one opened by an ASCII quote only on an ASCII quote (curly quotes inside it are text). Zero-width characters and the BOM are removed everywhere.
 */
export function normalisePunctuation(s: string): string {
  let out = "";
  let inString: "ascii" | "other" | null = null;
  let escaped = false;
  for (const ch of s.replace(/[\u200B-\u200D\uFEFF]/g, "")) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"' || (inString === "other" && DOUBLE_QUOTES.has(ch))) {
        inString = null;
        out += '"';
        continue;
      }
      out += ch;
      continue;
    }
    if (DOUBLE_QUOTES.has(ch)) {
      inString = ch === '"' ? "ascii" : "other";
      out += '"';
      continue;
    }
    const code = ch.codePointAt(0) ?? 0;
    if (FULL_WIDTH[ch] !== undefined) out += FULL_WIDTH[ch];
    else if (code >= 0xff10 && code <= 0xff19) out += String.fromCharCode(code - 0xff10 + 48);
    else out += ch;
  }
  return out;
}

/** Text inside ``` fences (the first fenced block), or null. */
export function extractFenced(s: string): string | null {
  const m = /```[a-zA-Z]*\s*\n?([\s\S]*?)(```|$)/.exec(s);
  const body = m?.[1]?.trim();
  return body ? body : null;
}

/**
 * Walks a JSON-like text from `start`, skipping string literals ('…' or "…", with escapes), and reports each
 * bracket outside them. Stops when `visit` returns true. Returns where it stopped (or s.length) and the quote of an
 * unterminated string, if any. The one scanner behind `extractBalanced` and `nestingDepth`: finding an action inside
 * prose and bounding its depth are questions a JSON repairer does not answer.
 */
function scanBrackets(s: string, start: number, visit: (c: string, i: number) => boolean): { end: number; openQuote: string | null } {
  let inStr: string | null = null;
  for (let i = start; i < s.length; i++) {
    const c = s[i]!;
    if (inStr) {
      if (c === "\\") i++;
      else if (c === inStr) inStr = null;
      continue;
    }
    if (c === '"' || c === "'") inStr = c;
    else if ((c === "{" || c === "[" || c === "}" || c === "]") && visit(c, i)) return { end: i, openQuote: null };
  }
  return { end: s.length, openQuote: inStr };
}

/**
 * The first balanced {...} or [...] in the text, honouring strings; an unterminated one is returned
 * with its missing closers appended (truncated output).
 */
export function extractBalanced(s: string): string | null {
  const start = s.search(/[{[]/);
  if (start < 0) return null;
  const stack: string[] = [];
  const { end, openQuote } = scanBrackets(s, start, (c) => {
    if (c === "{") stack.push("}");
    else if (c === "[") stack.push("]");
    else if (stack.pop() !== c || stack.length === 0) return true; // closed, or mismatched: let JSON repair try
    return false;
  });
  if (end < s.length) return s.slice(start, end + 1);
  const tail = s.slice(start) + (openQuote ?? "");
  return tail.replace(/,\s*$/, "") + stack.reverse().join("");
}

/** The deepest bracket nesting of a JSON-like text, strings honoured (one pass). */
export function nestingDepth(s: string): number {
  let depth = 0;
  let max = 0;
  scanBrackets(s, 0, (c) => {
    if (c === "{" || c === "[") max = Math.max(max, ++depth);
    else depth = Math.max(0, depth - 1);
    return false;
  });
  return max;
}

/**
 * Loose JSON → strict JSON (comments, single quotes, unquoted keys, trailing commas, Python literals, truncation,
 * several objects back to back) by the `jsonrepair` library. Total: text it cannot repair comes back unchanged.
 */
export function repairJson(s: string): string {
  try {
    return jsonrepair(s);
  } catch {
    return s;
  }
}

export function tryParseJson(s: string): { ok: true; value: unknown } | { ok: false } {
  // JSON.parse recurses: text nested deeper than any action is refused before it can exhaust the stack.
  if (nestingDepth(s) > 64) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch {
    try {
      return { ok: true, value: JSON.parse(repairJson(s)) };
    } catch {
      return { ok: false };
    }
  }
}
