// Shared pieces of operator input schemas. Every string an operator takes is `Text` (or built on it), every JSON
// field is `Json…`, every integer fits its column: bad input fails validation naming the field, before any query.
import { z } from "zod";
import { ROLES } from "./roles.ts";

// Postgres text and jsonb cannot hold NUL, and a lone UTF-16 surrogate is no character at all.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_MESSAGE = "must not contain NUL characters or unpaired UTF-16 surrogates";

export function isStorableText(s: string): boolean {
  return !UNSTORABLE.test(s);
}

/** THE string of every API input: storable text. Narrow it with .trim(), .min(), .max(), .regex(). */
export const Text = z.string().refine(isStorableText, UNSTORABLE_MESSAGE);

export const Id = Text.trim().min(1).max(200);
export const IdempotencyKey = Text.min(1).max(300);
export const ShortText = Text.trim().min(1).max(500);
export const LongText = Text.max(20_000);
export const Capabilities = z.array(Text.trim().min(1).max(100)).max(100);
export const TtlMs = z.number().int().min(1).max(24 * 60 * 60 * 1000);
export const RoleSchema = z.enum(ROLES);

/** An Int column (32-bit signed), not negative. */
export const Count = z.number().int().min(0).max(2_147_483_647);
/** A BigInt column (64-bit signed) as a JS number: not negative, and exact (below 2^53). */
export const BigCount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const INT8_MAX = 9_223_372_036_854_775_807n;
/** An Event id as a decimal string (bigint in the database): at most int8. */
export const EventId = Text.regex(/^\d{1,19}$/, "must be an event id (decimal digits)").refine(
  (s) => BigInt(s) <= INT8_MAX,
  "is beyond the largest event id (2^63 - 1)",
);

/** Dates a timestamptz(3) column holds without surprise: years 1970 to 9999. */
export const StoredDate = z.date().min(new Date(0), "must be 1970 or later").max(new Date("9999-12-31T23:59:59.999Z"), "must be before the year 10000");

/** Caps on JSON fields (the UTF-8 size of their JSON text); docs/concepts.md lists them. */
export const JSON_CAPS = {
  /** Evidence data, agent meta, todo values, step action and outcome. */
  default: 256 * 1024,
  /** A run's checkpoint (the agent's whole resumable state). */
  checkpoint: 2 * 1024 * 1024,
} as const;
const MAX_JSON_DEPTH = 64;

/**
 * Plain JSON that jsonb stores as given: objects, arrays, finite numbers, storable strings (keys too), booleans,
 * null — no BigInt, Date, Map, undefined-in-arrays or other values a transformer may deliver — within `capBytes`.
 */
export function jsonValue(capBytes: number = JSON_CAPS.default) {
  return z.unknown().superRefine(checkJson(capBytes));
}

/** A JSON object field (see jsonValue). */
export function jsonObject(capBytes: number = JSON_CAPS.default) {
  return z.record(Text, z.unknown()).superRefine(checkJson(capBytes));
}

function checkJson(capBytes: number) {
  return (value: unknown, ctx: z.RefinementCtx) => {
    const problem = jsonProblem(value, [], 0);
    if (problem) {
      ctx.addIssue({ code: "custom", message: problem.message, path: problem.path });
      return;
    }
    const bytes = value === undefined ? 0 : new TextEncoder().encode(JSON.stringify(value)).length;
    if (bytes > capBytes) ctx.addIssue({ code: "custom", message: `is ${bytes} bytes of JSON; the limit is ${capBytes}` });
  };
}
export const JsonObject = jsonObject();

function jsonProblem(v: unknown, path: (string | number)[], depth: number): { path: (string | number)[]; message: string } | undefined {
  if (depth > MAX_JSON_DEPTH) return { path, message: `nests deeper than ${MAX_JSON_DEPTH} levels` };
  if (v === null || typeof v === "boolean") return undefined;
  if (typeof v === "string") return isStorableText(v) ? undefined : { path, message: UNSTORABLE_MESSAGE };
  if (typeof v === "number") return Number.isFinite(v) ? undefined : { path, message: "must be a finite number" };
  if (Array.isArray(v)) {
    for (let n = 0; n < v.length; n++) {
      if (v[n] === undefined) return { path: [...path, n], message: "must be a JSON value (undefined is not one)" };
      const p = jsonProblem(v[n], [...path, n], depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  if (typeof v === "object" && [Object.prototype, null].includes(Object.getPrototypeOf(v))) {
    for (const [k, item] of Object.entries(v)) {
      if (!isStorableText(k)) return { path: [...path, k], message: `its key ${UNSTORABLE_MESSAGE}` };
      if (item === undefined) continue; // dropped by JSON, as the client's JSON would
      const p = jsonProblem(item, [...path, k], depth + 1);
      if (p) return p;
    }
    return undefined;
  }
  const kind = typeof v === "bigint" ? "a BigInt" : v instanceof Date ? "a Date" : typeof v === "object" ? `a ${v.constructor?.name ?? "non-plain object"}` : `a ${typeof v}`;
  return { path, message: `must be plain JSON, not ${kind} (send numbers as numbers and dates as ISO strings)` };
}
