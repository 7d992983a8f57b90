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
  return undefined;
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

/** "Hello {{name}}" → "Hello Ada". */
export function interpolate(text: string, scope: ValueScope): string {
  if (!text.includes("{{")) return text;
  return text.replace(/\{\{([^}]+)\}\}/g, (_, expr: string) => stringify(templateValue(expr, scope)));
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
  return false;
}
