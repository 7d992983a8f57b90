// Input the database could not store is a 400 naming the field, before any procedure runs and apart from its
// siblings in a batch: a batch's inputs are decoded item by item (one undecodable item fails alone), and every
// string and key in an input — JSON fields included — is checked with the state core's one rule (isStorableText).
// The procedures' schemas check the same, field by field; this also covers inputs no schema walks into.
import { TRPCError } from "@trpc/server";
import superjson from "superjson";
import { isStorableText } from "@phoneloop/state";
import type { InputIssue } from "./errors.ts";

/** An item superjson could not decode; its procedure answers 400. */
class UndecodableInput {
  constructor(readonly reason: string) {}
}

/** superjson for inputs, except that a bad item becomes an UndecodableInput instead of failing the whole batch. */
export const itemwiseInputTransformer = {
  serialize: (v: unknown) => superjson.serialize(v),
  deserialize: (v: unknown) => {
    try {
      return superjson.deserialize(v as Parameters<typeof superjson.deserialize>[0]);
    } catch (e) {
      return new UndecodableInput(e instanceof Error ? e.message : String(e));
    }
  },
};

const MAX_DEPTH = 64;
const LATEST = new Date("9999-12-31T23:59:59.999Z").getTime();

/** The first problem in a raw input that no column could hold, with its path; undefined when there is none. */
export function unstorableIssue(v: unknown, path: (string | number)[] = [], depth = 0): InputIssue | undefined {
  const at = (message: string): InputIssue => ({ path: path.length ? path.join(".") : "(input)", message });
  if (depth > MAX_DEPTH) return at(`nests deeper than ${MAX_DEPTH} levels`);
  if (v instanceof UndecodableInput) return at(`is not valid superjson (${v.reason}); send it with the PhoneLoop client`);
  if (typeof v === "string") return isStorableText(v) ? undefined : at("must not contain NUL characters or unpaired UTF-16 surrogates");
  if (typeof v === "bigint") return at("must be a number, not a BigInt");
  if (typeof v === "number") return Number.isFinite(v) ? undefined : at("must be a finite number");
  if (v instanceof Date) {
    const t = v.getTime();
    return Number.isNaN(t) || t < 0 || t > LATEST ? at("must be a date from 1970 to 9999") : undefined;
  }
  if (Array.isArray(v)) {
    for (let n = 0; n < v.length; n++) {
      const issue = unstorableIssue(v[n], [...path, n], depth + 1);
      if (issue) return issue;
    }
    return undefined;
  }
  if (v instanceof Map || v instanceof Set) return at("must be plain JSON (an object or an array), not a Map or Set");
  if (v !== null && typeof v === "object") {
    for (const [k, item] of Object.entries(v)) {
      if (!isStorableText(k)) return { path: [...path, "(key)"].join("."), message: "a key must not contain NUL characters or unpaired UTF-16 surrogates" };
      const issue = unstorableIssue(item, [...path, k], depth + 1);
      if (issue) return issue;
    }
  }
  return undefined;
}

/** The tRPC middleware body: reads the raw input and answers 400 with the issue (the error formatter names it). */
export async function refuseUnstorableInput(getRawInput: () => Promise<unknown>): Promise<void> {
  const issue = unstorableIssue(await getRawInput());
  if (issue) throw new TRPCError({ code: "BAD_REQUEST", message: `${issue.path}: ${issue.message}`, cause: new StorableInputError([issue]) });
}

class StorableInputError extends Error {
  constructor(readonly issues: InputIssue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join("; "));
  }
}
