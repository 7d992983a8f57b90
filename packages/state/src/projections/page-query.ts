// The Prisma half of cursor pagination (domain/page.ts): a list whose cursor is its last row's id reads `limit + 1`
// rows after that row in the list's own order (Prisma compares every orderBy column with the cursor row's).
export function pageQuery(i: { cursor?: string; limit: number }): { cursor?: { id: string }; skip: number; take: number } {
  return i.cursor ? { cursor: { id: i.cursor }, skip: 1, take: i.limit + 1 } : { skip: 0, take: i.limit + 1 };
}
