// The one way a test file (or a describe block) gets an API server on its test database: the call registers vitest
// hooks that start it before the first test (after the database exists) and close it after the last (before the
// database is dropped). Register it after useTestDatabase().
import { afterAll, beforeAll } from "vitest";
import type { UsedTestDatabase } from "@phoneloop/state/testing";
import { createApiServer, type ApiServer, type ApiServerInit } from "./api-server.ts";

/** The server of the calling file; its fields are readable inside its tests and hooks. */
export type UsedApiServer = Omit<ApiServer, "close">;

export function useApiServer(t: UsedTestDatabase, init: Omit<ApiServerInit, "db" | "databaseUrl" | "port" | "host"> = {}): UsedApiServer {
  let live: ApiServer | undefined;
  beforeAll(async () => {
    live = await createApiServer({ db: t.db, databaseUrl: t.url, port: 0, host: "127.0.0.1", ...init });
  });
  afterAll(async () => {
    await live?.close();
    live = undefined;
  });
  const current = (): ApiServer => {
    if (!live) throw new Error("useApiServer: the server runs only inside tests and hooks (from its beforeAll to its afterAll).");
    return live;
  };
  return {
    get url() {
      return current().url;
    },
    get port() {
      return current().port;
    },
    get auth() {
      return current().auth;
    },
    get modelSettings() {
      return current().modelSettings;
    },
    get reaper() {
      return current().reaper;
    },
    get lessonMerger() {
      return current().lessonMerger;
    },
    get notifications() {
      return current().notifications;
    },
    get blobCollector() {
      return current().blobCollector;
    },
  };
}
