// Keyset pagination, the Prisma half of domain/page.ts. A list orders by columns ending in its unique id; its
// nextCursor holds the last row's values of those columns (base64url of a JSON array, a Date as its ISO string), and
// the next page reads the rows strictly after those values in the list's order. Unlike Prisma's cursor-by-row
// (`cursor: { id }, skip: 1`) it does not need the cursor's row to exist any more: when that row was deleted between
// two reads, Prisma answered an empty page and every row after it was lost to the reader.
// Hand-written: Prisma has no keyset option, and the npm pagination helpers for Prisma build on its row cursor.
// Every order column must be NOT NULL: a NULL compares with nothing (cursorOf refuses one).
import { isStorableText } from "../domain/schemas.ts";
import { StateError } from "../domain/errors.ts";

type Direction = "asc" | "desc";
/** What a column holds: a timestamp, an integer or text. */
type Kind = DateConstructor | NumberConstructor | StringConstructor;
type ValueOf<K extends Kind> = K extends DateConstructor ? Date : K extends NumberConstructor ? number : string;
type Step = readonly [column: string, direction: Direction, kind: Kind];

/** A list's order: its columns in turn, each with its direction and kind, the last one the unique id. */
export interface PageOrder<S extends readonly Step[]> {
  readonly steps: S;
}
/** The row a cursor is made from: it has every order column. */
export type OrderRow<S extends readonly Step[]> = { [E in S[number] as E[0]]: ValueOf<E[2]> };
type OrderBy<S extends readonly Step[]> = { [E in S[number] as E[0]]?: Direction }[];

/** `pageOrder(["createdAt", "desc", Date], ["id", "asc", String])`: newest first, ties by id. */
export function pageOrder<const S extends readonly Step[]>(...steps: S): PageOrder<S> {
  return { steps };
}

/** The nextCursor of a page whose last row is `row`: its values of the order's columns. */
export function cursorOf<S extends readonly Step[]>(order: PageOrder<S>): (row: OrderRow<S>) => string {
  return (row) => {
    const values = order.steps.map(([column]) => {
      const v = (row as Record<string, string | number | Date | null | undefined>)[column];
      if (v === null || v === undefined) throw new Error(`Order column ${column} is null: a keyset order needs NOT NULL columns.`);
      return v instanceof Date ? v.toISOString() : v;
    });
    return Buffer.from(JSON.stringify(values)).toString("base64url");
  };
}

function badCursor(cursor: string, why: string): StateError {
  const shown = cursor.length > 40 ? `${cursor.slice(0, 40)}…` : cursor;
  return new StateError("INVALID_INPUT", `cursor: "${shown}" ${why}; pass back a nextCursor this list returned, or leave cursor out to read the first page.`, {
    issues: [{ path: "cursor", message: why }],
  });
}

/** The values a cursor holds, one per order column and of its kind (a Date restored from its ISO string). */
function decode<S extends readonly Step[]>(order: PageOrder<S>, cursor: string): (string | number | Date)[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw badCursor(cursor, "is not a cursor of this list");
  }
  if (!Array.isArray(parsed) || parsed.length !== order.steps.length) throw badCursor(cursor, "is not a cursor of this list");
  return order.steps.map(([column, , kind], k) => {
    const v: unknown = parsed[k];
    if (kind === Number && Number.isSafeInteger(v)) return v as number;
    if (kind === String && typeof v === "string" && isStorableText(v)) return v;
    if (kind === Date && typeof v === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(v)) {
      const d = new Date(v);
      if (!Number.isNaN(d.getTime())) return d;
    }
    throw badCursor(cursor, `does not fit this list (its ${column} value)`);
  });
}

/**
 * What a list spreads into its findMany: its order, `limit + 1` rows (the extra one says another page exists) and
 * its own where, AND, after the first page, the rows strictly after the cursor's values: for columns c1..cn, c1
 * beyond v1, or c1 = v1 and c2 beyond v2, … ("beyond" is `gt` in an ascending column, `lt` in a descending one).
 */
export function keysetPage<S extends readonly Step[], W extends object>(
  order: PageOrder<S>,
  i: { cursor?: string | null; limit: number },
  where: W,
): { where: { AND: [W, { OR?: Record<string, unknown>[] }] }; orderBy: OrderBy<S>; take: number } {
  const orderBy = order.steps.map(([column, direction]) => ({ [column]: direction })) as OrderBy<S>;
  if (!i.cursor) return { where: { AND: [where, {}] }, orderBy, take: i.limit + 1 };
  const values = decode(order, i.cursor);
  const OR = order.steps.map(([column, direction], k) => ({
    ...Object.fromEntries(order.steps.slice(0, k).map(([c], j) => [c, values[j]])),
    [column]: direction === "asc" ? { gt: values[k] } : { lt: values[k] },
  }));
  return { where: { AND: [where, { OR }] }, orderBy, take: i.limit + 1 };
}
