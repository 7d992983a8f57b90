// Pure reading of state: references ("app:path"), {{templates}} and predicates. No side effects.
import type { Json, Operand, Predicate } from "./schema.ts";

/** Where a reference is read: the app in context, the current list item, task parameters, the answer. */
export interface ValueScope {
  /** Reads a fully-qualified reference "ns:path" (ns = app id, "settings", "device"). */
  readRef(ns: string, path: string[]): unknown;
  app: string | null;
  item?: unknown;
  params?: Record<string, unknown>;
  answer?: string;
  device?: Record<string, unknown>;
  /** BCP 47 tag for {{x | number}}, {{x | date}} …; default en-US. */
  locale?: string;
}

/** The state reference a list row was drawn from ("shop:cart.2"), kept on the row's item so actions can write to it. */
export const ROW_REF = "$ref";

/** The reference of a row's own field ("item.qty" in a row of shop:cart → "shop:cart.2.qty"), or null for other refs. */
export function rowFieldRef(ref: string, item: unknown): string | null {
  if (!ref.startsWith("item.") || !item || typeof item !== "object") return null;
  const base = (item as Record<string, unknown>)[ROW_REF];
  return typeof base === "string" ? `${base}.${ref.slice(5)}` : null;
}

export function splitPath(path: string): string[] {
  return path
    .replace(/\[(\d+)\]/g, ".$1")
    .split(".")
    .filter((p) => p.length > 0);
}

/** "calendar:events.0.title" → ["calendar", ["events","0","title"]]; "draft" → [scope.app, ["draft"]]. */
export function parseRef(ref: string, app: string | null): [string, string[]] {
  const colon = ref.indexOf(":");
  if (colon > 0) return [ref.slice(0, colon), splitPath(ref.slice(colon + 1))];
  return [app ?? "", splitPath(ref)];
}

export function getPath(root: unknown, path: string[]): unknown {
  let cur: unknown = root;
  for (const p of path) {
    if (cur === null || cur === undefined) return undefined;
    if (Array.isArray(cur)) cur = /^\d+$/.test(p) ? cur[Number(p)] : p === "length" ? cur.length : undefined;
    else if (typeof cur === "object") cur = (cur as Record<string, unknown>)[p];
    else return undefined;
  }
  return cur;
}

export function readOperand(op: Operand, scope: ValueScope): unknown {
  if (op === null || typeof op !== "object") return typeof op === "string" ? interpolate(op, scope) : op;
  if ("var" in op) {
    if (op.var.startsWith("item.")) return getPath(scope.item, splitPath(op.var.slice(5)));
    const [ns, path] = parseRef(op.var, scope.app);
    return scope.readRef(ns, path);
  }
  if ("param" in op) return getPath(scope.params ?? {}, splitPath(op.param));
  if ("item" in op) return op.item === "" ? scope.item : getPath(scope.item, splitPath(op.item));
  if ("answer" in op) return scope.answer ?? "";
  if ("len" in op) {
    const v = readOperand(op.len, scope);
    return Array.isArray(v) || typeof v === "string" ? v.length : 0;
  }
  if ("lower" in op) return String(readOperand(op.lower, scope) ?? "").toLowerCase();
  if ("device" in op) return scope.device?.[op.device];
  const num = (o: Operand) => Number(readOperand(o, scope) ?? 0);
  if ("sum" in op) {
    const { value, where } = op.sum;
    return listIn(op.sum.in, scope)
      .filter((item) => !where || evaluatePredicate(where, { ...scope, item }))
      .reduce((acc: number, item) => acc + Number((value === undefined ? item : readOperand(value, { ...scope, item })) ?? 0), 0);
  }
  if ("count" in op) {
    const { where } = op.count;
    return listIn(op.count.in, scope).filter((item) => !where || evaluatePredicate(where, { ...scope, item })).length;
  }
  if ("add" in op) return op.add.reduce((acc: number, o) => acc + num(o), 0);
  if ("sub" in op) return num(op.sub[0]) - num(op.sub[1]);
  if ("mul" in op) return op.mul.reduce((acc: number, o) => acc * num(o), 1);
  if ("round" in op) {
    const f = 10 ** op.round[1];
    return Math.round(num(op.round[0]) * f) / f;
  }
  return undefined;
}

function listIn(op: Operand, scope: ValueScope): unknown[] {
  const v = readOperand(op, scope);
  return Array.isArray(v) ? v : [];
}

const FORMATS = ["number", "currency", "percent", "date", "time", "datetime"] as const;

/** "{{total | currency:EUR}}": a value shown the way the phone's locale writes it (Intl, as Android's ICU does). */
export function formatValue(v: unknown, format: string, locale = "en-US"): string {
  const [name, arg] = format.split(":").map((p) => p.trim()) as [string, string | undefined];
  const n = Number(v);
  switch (name) {
    case "number":
      return Number.isFinite(n) ? new Intl.NumberFormat(locale, arg ? { minimumFractionDigits: Number(arg), maximumFractionDigits: Number(arg) } : {}).format(n) : stringify(v);
    case "currency":
      return Number.isFinite(n) ? new Intl.NumberFormat(locale, { style: "currency", currency: arg || "USD" }).format(n) : stringify(v);
    case "percent":
      return Number.isFinite(n) ? new Intl.NumberFormat(locale, { style: "percent" }).format(n) : stringify(v);
    case "date":
    case "time":
    case "datetime": {
      const d = typeof v === "number" ? new Date(v) : new Date(stringify(v));
      if (Number.isNaN(d.getTime())) return stringify(v);
      const opts: Intl.DateTimeFormatOptions = name === "date" ? { dateStyle: (arg as "medium") || "medium" } : name === "time" ? { timeStyle: "short" } : { dateStyle: "medium", timeStyle: "short" };
      return new Intl.DateTimeFormat(locale, { ...opts, timeZone: "UTC" }).format(d);
    }
    default:
      throw new Error(`unknown format "${name}" in a {{template}}; use one of ${FORMATS.join(", ")}`);
  }
}

/** Whether a template's "| format" is one the phone can apply (checked when a scenario loads). */
export function isKnownFormat(format: string): boolean {
  const [name, arg] = format.split(":").map((p) => p.trim()) as [string, string | undefined];
  if (!(FORMATS as readonly string[]).includes(name)) return false;
  if (arg === undefined) return name !== "currency";
  if (name === "number") return /^\d$/.test(arg);
  if (name === "currency") return /^[A-Z]{3}$/.test(arg);
  if (name === "date") return ["short", "medium", "long", "full"].includes(arg);
  return false;
}

function templateValue(expr: string, scope: ValueScope): unknown {
  const e = expr.trim();
  if (e.startsWith("item.") || e === "item") return e === "item" ? scope.item : getPath(scope.item, splitPath(e.slice(5)));
  if (e.startsWith("param.")) return getPath(scope.params ?? {}, splitPath(e.slice(6)));
  const [ns, path] = parseRef(e, scope.app);
  return scope.readRef(ns, path);
}

export function stringify(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** "Hello {{name}}" → "Hello Ada"; "{{total | currency:EUR}}" → "12,50 €" in de-DE. */
export function interpolate(text: string, scope: ValueScope): string {
  if (!text.includes("{{")) return text;
  return text.replace(/\{\{([^}]+)\}\}/g, (_, expr: string) => {
    const [value, format] = expr.split("|") as [string, string | undefined];
    const v = templateValue(value, scope);
    return format ? formatValue(v, format, scope.locale) : stringify(v);
  });
}

/** Resolves templates inside a JSON value; a string that is exactly one template keeps the value's type. */
export function resolveJson(value: Json, scope: ValueScope): unknown {
  if (typeof value === "string") {
    const whole = /^\{\{([^}]+)\}\}$/.exec(value);
    if (whole) return structuredClone(templateValue(whole[1]!, scope) ?? null);
    return interpolate(value, scope);
  }
  if (Array.isArray(value)) return value.map((v) => resolveJson(v, scope));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveJson(v, scope)]));
  return value;
}

function looseEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" || typeof b === "number") {
    const na = Number(a);
    const nb = Number(b);
    if (a !== "" && b !== "" && !Number.isNaN(na) && !Number.isNaN(nb)) return na === nb;
  }
  if (typeof a === "string" && typeof b === "string") return a.trim() === b.trim();
  if (typeof a === "boolean" || typeof b === "boolean") return truthy(a) === truthy(b) && (typeof a === "boolean" ? typeof b !== "string" || b === "true" || b === "false" : true);
  return JSON.stringify(a) === JSON.stringify(b);
}

export function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v === "0" || v === "false") return false;
  return Boolean(v);
}

function contains(hay: unknown, needle: unknown, ci: boolean): boolean {
  const norm = (s: unknown) => (ci ? stringify(s).toLowerCase() : stringify(s));
  if (Array.isArray(hay)) return hay.some((h) => (ci ? norm(h) === norm(needle) || norm(h).includes(norm(needle)) : looseEquals(h, needle)));
  return norm(hay).includes(norm(needle));
}

export function evaluatePredicate(p: Predicate, scope: ValueScope): boolean {
  if ("eq" in p) return looseEquals(readOperand(p.eq[0], scope), readOperand(p.eq[1], scope));
  if ("ne" in p) return !looseEquals(readOperand(p.ne[0], scope), readOperand(p.ne[1], scope));
  const num = (pair: [Operand, Operand]) => [Number(readOperand(pair[0], scope)), Number(readOperand(pair[1], scope))] as const;
  if ("gt" in p) return ((a, b) => a > b)(...num(p.gt));
  if ("gte" in p) return ((a, b) => a >= b)(...num(p.gte));
  if ("lt" in p) return ((a, b) => a < b)(...num(p.lt));
  if ("lte" in p) return ((a, b) => a <= b)(...num(p.lte));
  if ("contains" in p) return contains(readOperand(p.contains[0], scope), readOperand(p.contains[1], scope), false);
  if ("icontains" in p) return contains(readOperand(p.icontains[0], scope), readOperand(p.icontains[1], scope), true);
  if ("matches" in p) return new RegExp(p.matches[1], "iu").test(stringify(readOperand(p.matches[0], scope)));
  if ("truthy" in p) return truthy(readOperand(p.truthy, scope));
  if ("all" in p) return p.all.every((q) => evaluatePredicate(q, scope));
  if ("any" in p) return p.any.some((q) => evaluatePredicate(q, scope));
  if ("not" in p) return !evaluatePredicate(p.not, scope);
  const listOf = (op: Operand) => {
    const v = readOperand(op, scope);
    return Array.isArray(v) ? v : [];
  };
  if ("some" in p) return listOf(p.some.in).some((item) => evaluatePredicate(p.some.where, { ...scope, item }));
  if ("none" in p) return !listOf(p.none.in).some((item) => evaluatePredicate(p.none.where, { ...scope, item }));
  if ("count" in p) {
    const c = p.count;
    const n = listOf(c.in).filter((item) => !c.where || evaluatePredicate(c.where, { ...scope, item })).length;
    return (c.gte === undefined || n >= c.gte) && (c.lte === undefined || n <= c.lte) && (c.eq === undefined || n === c.eq);
  }
  const log = () => listOf({ device: "log" });
  if ("sequence" in p) {
    let k = 0;
    for (const item of log()) if (k < p.sequence.length && evaluatePredicate(p.sequence[k]!, { ...scope, item })) k++;
    return k === p.sequence.length;
  }
  if ("asked" in p) {
    const re = p.asked.matches ? new RegExp(p.asked.matches, "iu") : null;
    return log().some((e) => (e as { event?: string }).event === "ask_user" && (!re || re.test(stringify((e as { question?: unknown }).question))));
  }
  return false;
}
