// Host todos that are arithmetic over the blackboard ("total = price * 2", "sum of a + b") are computed here, not
// asked of a model: exact, and free. Hand-written on purpose: the grammar is only numbers, input keys, + - * / and
// parentheses — an expression library's wider language (functions, assignment, property access) is exactly what a
// planner-written string must not reach.
import type { Blackboard } from "./blackboard.ts";

/** A number in a blackboard value: "$59.00" → 59, "1,234.5 km" → 1234.5; null when there is none or several. */
export function numberIn(value: string): number | null {
  const found = value.replace(/(\d),(?=\d{3}\b)/g, "$1").match(/-?\d+(?:\.\d+)?/g);
  return found && found.length === 1 ? Number(found[0]) : null;
}

type Token = { kind: "num"; value: number } | { kind: "op"; value: string };

function tokenize(expr: string, inputs: Record<string, number>): Token[] | null {
  const out: Token[] = [];
  const re = /\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|([-+*/()]))/y;
  let at = 0;
  while (at < expr.length) {
    if (/^\s*$/.test(expr.slice(at))) break;
    re.lastIndex = at;
    const m = re.exec(expr);
    if (!m) return null;
    at = re.lastIndex;
    if (m[1]) out.push({ kind: "num", value: Number(m[1]) });
    else if (m[2]) {
      const v = inputs[m[2]];
      if (v === undefined) return null;
      out.push({ kind: "num", value: v });
    } else out.push({ kind: "op", value: m[3]! });
  }
  return out;
}

/** Evaluates + - * / ( ) with the usual precedence; null on anything else or a division by zero. */
export function evaluate(expr: string, inputs: Record<string, number>): number | null {
  const tokens = tokenize(expr, inputs);
  if (!tokens || !tokens.length) return null;
  let i = 0;
  const peek = () => tokens[i];
  const primary = (): number | null => {
    const t = tokens[i++];
    if (!t) return null;
    if (t.kind === "num") return t.value;
    if (t.value === "-") {
      const v = primary();
      return v === null ? null : -v;
    }
    if (t.value === "(") {
      const v = sum();
      if (peek()?.value !== ")") return null;
      i++;
      return v;
    }
    return null;
  };
  const product = (): number | null => {
    let v = primary();
    while (v !== null && (peek()?.value === "*" || peek()?.value === "/")) {
      const op = tokens[i++]!.value;
      const r = primary();
      if (r === null || (op === "/" && r === 0)) return null;
      v = op === "*" ? v * r : v / r;
    }
    return v;
  };
  const sum = (): number | null => {
    let v = product();
    while (v !== null && (peek()?.value === "+" || (peek()?.kind === "op" && peek()?.value === "-"))) {
      const op = tokens[i++]!.value;
      const r = product();
      if (r === null) return null;
      v = op === "+" ? v + r : v - r;
    }
    return v;
  };
  const v = sum();
  return v !== null && i === tokens.length && Number.isFinite(v) ? v : null;
}

const format = (n: number) => String(Math.round(n * 1e9) / 1e9);

/**
 * The answer of a host todo whose title states arithmetic over its inputs — the part after "=" or ":" (or the whole
 * title) is an expression with at least one operator and only numbers and input keys — and that declares at most one
 * output. null for every other todo (the model answers those).
 */
export function answerArithmetic(todo: { title: string; detail?: string; outputs: string[] }, inputs: Blackboard): { answer: string; outputs: Blackboard; expression: string } | null {
  if (todo.outputs.length > 1) return null;
  const numbers: Record<string, number> = {};
  for (const [k, v] of Object.entries(inputs)) {
    const n = typeof v === "string" ? numberIn(v) : null;
    if (n !== null) numbers[k] = n;
  }
  for (const text of [todo.title, todo.detail ?? ""]) {
    const candidates = [text.split(/[=:]/).at(-1) ?? "", text];
    for (const c of candidates) {
      const expr = c.trim().replace(/[.?!]$/, "");
      if (!/[-+*/]/.test(expr.replace(/^-/, ""))) continue;
      const v = evaluate(expr, numbers);
      if (v === null) continue;
      const value = format(v);
      const outputs: Blackboard = todo.outputs.length ? { [todo.outputs[0]!]: value } : {};
      return { answer: `${expr} = ${value}`, outputs, expression: expr };
    }
  }
  return null;
}
