// The one way a test file (or a describe block) gets its own throwaway database: the call registers vitest hooks
// that create it before the first test and drop it after the last.
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, type TestDatabase } from "./test-database.ts";

/** The database of the calling file or describe block; `db` and `url` are readable inside its tests and hooks. */
export type UsedTestDatabase = Pick<TestDatabase, "url" | "db">;

export function useTestDatabase(opts: { poolSize?: number } = {}): UsedTestDatabase {
  let live: TestDatabase | undefined;
  beforeAll(async () => {
    live = await createTestDatabase(opts);
  });
  afterAll(async () => {
    await live?.drop();
    live = undefined;
  });
  const current = (): TestDatabase => {
    if (!live) throw new Error("useTestDatabase: the database exists only inside tests and hooks (from its beforeAll to its afterAll).");
    return live;
  };
  return {
    get url() {
      return current().url;
    },
    get db() {
      return current().db;
    },
  };
}
