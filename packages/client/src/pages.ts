// Every list procedure answers a page `{ items, nextCursor }`; this follows nextCursor to the end for a reader that
// needs the whole list (the agent's todos of a goal, a run's evidence). A screen shows pages as it scrolls instead.
export interface ApiPage<T> {
  items: T[];
  nextCursor: string | null;
}

/** Every item of a list, page by page: `read` gets the cursor (undefined for the first page). */
export async function readAllPages<T>(read: (cursor: string | undefined) => Promise<ApiPage<T>>): Promise<T[]> {
  const items: T[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await read(cursor);
    items.push(...page.items);
    if (page.nextCursor === null) return items;
    cursor = page.nextCursor;
  }
}
