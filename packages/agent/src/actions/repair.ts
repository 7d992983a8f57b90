// Repairs for the common ways models mangle JSON. Each function is pure and total (never throws).

const FULL_WIDTH: Record<string, string> = {
  "｛": "{", "｝": "}", "［": "[", "］": "]", "（": "(", "）": ")", "：": ":", "，": ",", "；": ";",
  "＂": '"', "“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "＇": "'", "　": " ", "＝": "=", "．": ".",
  "【": "[", "】": "]", "《": "<", "》": ">", "＜": "<", "＞": ">",
};

/** Full-width punctuation → ASCII, zero-width characters and BOM removed. Full-width digits too. */
export function normalisePunctuation(s: string): string {
  let out = "";
  for (const ch of s.replace(/[\u200B-\u200D\uFEFF]/g, "")) {
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
 * The first balanced {...} or [...] in the text, honouring strings; an unterminated one is returned
 * with its missing closers appended (truncated output).
 */
export function extractBalanced(s: string): string | null {
  const start = s.search(/[{[]/);
  if (start < 0) return null;
  const stack: string[] = [];
  let inStr: string | null = null;
  for (let i = start; i < s.length; i++) {
    const c = s[i]!;
    if (inStr) {
      if (c === "\\") i++;
      else if (c === inStr) inStr = null;
      continue;
    }
    if (c === '"' || c === "'") inStr = c;
    else if (c === "{") stack.push("}");
    else if (c === "[") stack.push("]");
    else if (c === "}" || c === "]") {
      if (stack.pop() !== c) return s.slice(start, i + 1); // mismatched: let JSON repair try
      if (stack.length === 0) return s.slice(start, i + 1);
    }
  }
  let tail = s.slice(start);
  if (inStr) tail += inStr;
  return tail.replace(/,\s*$/, "") + stack.reverse().join("");
}

/** The deepest bracket nesting of a JSON-like text, strings honoured (one pass). */
export function nestingDepth(s: string): number {
  let depth = 0;
  let max = 0;
  let inStr: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (inStr) {
      if (c === "\\") i++;
      else if (c === inStr) inStr = null;
      continue;
    }
    if (c === '"' || c === "'") inStr = c;
    else if (c === "{" || c === "[") max = Math.max(max, ++depth);
    else if (c === "}" || c === "]") depth = Math.max(0, depth - 1);
  }
  return max;
}

/** Loose JSON → strict JSON: comments, single quotes, unquoted keys, trailing commas, Python literals. */
export function repairJson(s: string): string {
  let out = "";
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '"' || c === "'") {
      // Copy a string literal, converting to double quotes.
      let j = i + 1;
      let body = "";
      while (j < s.length && s[j] !== c) {
        if (s[j] === "\\" && j + 1 < s.length) {
          body += s[j]! + s[j + 1]!;
          j += 2;
          continue;
        }
        if (c === "'" && s[j] === '"') body += '\\"';
        else if (s[j] === "\n") body += "\\n";
        else body += s[j];
        j++;
      }
      out += '"' + body.replace(/\\'/g, "'") + '"';
      i = j + 1;
      continue;
    }
    if (c === "/" && s[i + 1] === "/") {
      while (i < s.length && s[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && s[i + 1] === "*") {
      const end = s.indexOf("*/", i + 2);
      i = end < 0 ? s.length : end + 2;
      continue;
    }
    out += c;
    i++;
  }
  return out
    .replace(/([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:/g, '$1"$2":') // unquoted keys
    .replace(/,\s*([}\]])/g, "$1") // trailing commas
    .replace(/:\s*True\b/g, ": true")
    .replace(/:\s*False\b/g, ": false")
    .replace(/:\s*None\b/g, ": null")
    .replace(/}\s*{/g, "},{"); // several objects back to back
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
