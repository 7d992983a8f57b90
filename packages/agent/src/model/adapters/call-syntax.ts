// Python-style calls as the text-grammar models write them — `click(start_box='(1,2)')`, `do(action="Tap",
// element=[1,2])` — read into a name and keyword arguments. Hand-written: the grammar is a small subset (quoted
// strings with backslash escapes, bracketed lists, bare numbers and words), and the reply is untrusted, so the reader
// is a single linear scan with no eval and bounded output.

export interface Call {
  name: string;
  args: Record<string, string | number[]>;
  /** Arguments without a keyword, in order. */
  positional: Array<string | number[]>;
}

const MAX_CALL = 4000;

/** Reads `name(args)` starting at `from`; null when the text there is not one well-formed call. */
export function readCall(s: string, from = 0): { call: Call; end: number } | null {
  const head = /([A-Za-z_][A-Za-z0-9_]*)\s*\(/y;
  head.lastIndex = from;
  const m = head.exec(s);
  if (!m) return null;
  const call: Call = { name: m[1]!, args: {}, positional: [] };
  let i = head.lastIndex;
  const limit = Math.min(s.length, from + MAX_CALL);
  const ws = () => {
    while (i < limit && /\s/.test(s[i]!)) i++;
  };
  for (;;) {
    ws();
    if (i >= limit) return null;
    if (s[i] === ")") return { call, end: i + 1 };
    let key: string | null = null;
    const kw = /([A-Za-z_][A-Za-z0-9_]*)\s*=/y;
    kw.lastIndex = i;
    const k = kw.exec(s);
    if (k) {
      key = k[1]!;
      i = kw.lastIndex;
      ws();
    }
    const v = readValue();
    if (v === null) return null;
    if (key) call.args[key] = v;
    else call.positional.push(v);
    ws();
    if (s[i] === ",") i++;
    else if (s[i] !== ")") return null;
  }

  function readValue(): string | number[] | null {
    const c = s[i];
    if (c === "'" || c === '"') {
      let out = "";
      i++;
      while (i < limit && s[i] !== c) {
        if (s[i] === "\\" && i + 1 < limit) {
          const n = s[i + 1]!;
          out += n === "n" ? "\n" : n === "t" ? "\t" : n;
          i += 2;
        } else out += s[i++];
      }
      if (i >= limit) return null;
      i++;
      return out;
    }
    if (c === "[" || c === "(") {
      const close = c === "[" ? "]" : ")";
      const end = s.indexOf(close, i);
      if (end < 0 || end > limit) return null;
      const inner = s.slice(i + 1, end);
      i = end + 1;
      const nums = inner.split(",").map((p) => p.trim()).filter(Boolean).map(Number);
      return nums.every((n) => Number.isFinite(n)) ? nums : null;
    }
    const bare = /[^,)\s][^,)]*/y;
    bare.lastIndex = i;
    const b = bare.exec(s);
    if (!b) return null;
    i = bare.lastIndex;
    return b[0].trim();
  }
}

/** Every well-formed call in the text, in order (each name must be one of `names`). */
export function readCalls(s: string, names: ReadonlySet<string>): Call[] {
  const out: Call[] = [];
  const re = /[A-Za-z_][A-Za-z0-9_]*\s*\(/g;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(m[0])![0];
    if (!names.has(name)) continue;
    const r = readCall(s, m.index);
    if (r) {
      out.push(r.call);
      re.lastIndex = r.end;
    }
    if (out.length >= 16) break;
  }
  return out;
}

export function str(v: string | number[] | undefined): string | undefined {
  return typeof v === "string" ? v : undefined;
}
