// Input the database could not store is a 400 naming the field, before any procedure runs and apart from its
// siblings in a batch: a batch's inputs are decoded item by item (one undecodable item fails alone), and every
// string and key in an input — JSON fields included — is checked with the state core's one rule (isStorableText).
// The procedures' schemas check the same, field by field; this also covers inputs no schema walks into.
//
// It is also where a request's work is budgeted, so one request cannot stall the API for others: a batch holds at
// most MAX_BATCH_CALLS calls, and all the inputs of one request at most MAX_REQUEST_ITEMS items (each call counts
// one, each array element at any depth one more: a heartbeat is a few, a todo.add of 1,000 todos over a thousand).
// Past either, the calls are 413 before any procedure runs (api-server.ts refuses a batch too large before reading
// its body, and gives each request's context its budget of items: newRequestBudget).
import { TRPCError } from "@trpc/server";
import superjson from "superjson";
import { isStorableText } from "@phoneloop/state";
import { MAX_BATCH_CALLS } from "./contract.ts";
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

export { MAX_BATCH_CALLS };
/** Items all the inputs of one request may hold together: a call counts one, each array element in it one more. */
export const MAX_REQUEST_ITEMS = 2_000;

/** One HTTP request's budget of items, shared by the calls it batches (it rides on the request's tRPC context). */
export interface RequestBudget {
  items: number;
}

/**
 * A fresh budget for one tRPC request. It travels in the context tRPC makes once per request, not in an
 * AsyncLocalStorage: on this Node every promise the process creates pays async_hooks' promise hooks once one is in use.
 */
export function newRequestBudget(): RequestBudget {
  return { items: 0 };
}

/** How many calls a tRPC URL path names (`/trpc/a,b,c` → 3). */
export function callsIn(procedurePath: string): number {
  return procedurePath.split(",").length;
}

/** Why a request batching `calls` calls is refused (413, every call, before its body is read), or null. */
export function batchRefusal(calls: number): string | null {
  return calls > MAX_BATCH_CALLS ? `A request batches at most ${MAX_BATCH_CALLS} calls; this one has ${calls}. Send them in several requests (the PhoneLoop client does).` : null;
}

/** Array elements in an input, at any depth (stops counting once past the budget). */
function itemsIn(v: unknown, limit: number): number {
  let n = 0;
  const walk = (x: unknown, depth: number) => {
    if (n > limit || depth > MAX_DEPTH || x === null || typeof x !== "object") return;
    if (Array.isArray(x)) {
      n += x.length;
      for (const item of x) walk(item, depth + 1);
    } else if (!(x instanceof Date) && !(x instanceof UndecodableInput)) {
      for (const item of Object.values(x)) walk(item, depth + 1);
    }
  };
  walk(v, 0);
  return n;
}

/**
 * The tRPC middleware body: a call past its request's budget is 413; an input no column could hold is 400 with
 * the issue (the error formatter names it). Without a budget (a caller made in-process) only the input is checked.
 */
export async function refuseUnstorableInput(getRawInput: () => Promise<unknown>, budget: RequestBudget | null): Promise<void> {
  const raw = await getRawInput();
  const issue = unstorableIssue(raw);
  if (issue) throw new TRPCError({ code: "BAD_REQUEST", message: `${issue.path}: ${issue.message}`, cause: new StorableInputError([issue]) });
  if (budget) {
    budget.items += 1 + itemsIn(raw, MAX_REQUEST_ITEMS);
    if (budget.items > MAX_REQUEST_ITEMS) {
      throw new TRPCError({ code: "PAYLOAD_TOO_LARGE", message: `The inputs of one request hold at most ${MAX_REQUEST_ITEMS.toLocaleString("en")} items in all (each call one, each array element one more), and this call passes that: send the work in several requests.` });
    }
  }
}

class StorableInputError extends Error {
  constructor(readonly issues: InputIssue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join("; "));
  }
}
