// Cursor pagination, one shape for every list: `{ items, nextCursor }` in a stable order (each list orders by
// columns ending in its unique id). Pass nextCursor back as `cursor` for the next page; null means the last page.
// A cursor is opaque: it holds the last row's values of the order's columns (projections/page-query.ts), so the next
// page goes on after them even when that row has since been deleted.
import { z } from "zod";
import { Text } from "./schemas.ts";

/** Rows per page when `limit` is left out, and the most a caller may ask for. */
export const PAGE_LIMIT = { default: 100, max: 500 } as const;

/**
 * A cursor is what the previous page's nextCursor said (an opaque string). The longest a list makes: shortcuts'
 * app (500) + app version (500) + URI (2,000) + id (200) characters, each at most 6 bytes of JSON (\u001f), in
 * base64url (4/3): under 26,000 characters.
 */
export const Cursor = Text.min(1).max(32_768);

/**
 * The paging fields every list input carries. No cursor — left out, or null as infinite queries send for their first
 * page (TanStack Query's initial page param through tRPC) — asks for the first page.
 */
export const PageFields = {
  cursor: Cursor.nullish(),
  limit: z.number().int().min(1).max(PAGE_LIMIT.max).default(PAGE_LIMIT.default),
};

export interface Page<T> {
  items: T[];
  /** The `cursor` of the next page; null when this page is the last. */
  nextCursor: string | null;
}

/** A page from `limit + 1` rows read in order: the extra row only says that another page exists. */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (row: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? cursorOf(items[items.length - 1]!) : null };
}
