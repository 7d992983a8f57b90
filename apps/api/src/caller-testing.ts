// For tests that call procedures in process, as a given principal: a test database and an event hub for the test
// file (vitest hooks registered by the call), a caller per principal, and a way to read a procedure's TRPCError.
import { afterAll, beforeAll } from "vitest";
import { TRPCError } from "@trpc/server";
import { createTestDatabase, type TestDatabase } from "@phoneloop/state/testing";
import type { Principal } from "./auth/principal.ts";
import { EventHub } from "./events.ts";
import { appRouter } from "./root.ts";
import { createCallerFactory, createTRPCContext } from "./trpc.ts";

export function useCallers() {
  const live: { t?: TestDatabase; hub?: EventHub } = {};
  beforeAll(async () => {
    live.t = await createTestDatabase();
    live.hub = new EventHub({ databaseUrl: live.t.url });
    await live.hub.start();
  });
  afterAll(async () => {
    await live.hub?.close();
    await live.t?.drop();
  });
  const t = () => live.t!;
  return {
    /** The test database (after beforeAll). */
    t,
    /** The app router's caller acting as `principal`. */
    as: (principal: Principal) => createCallerFactory(appRouter)(createTRPCContext({ services: { db: t().db, events: live.hub! }, principal })),
    /** The TRPCError a call ends with, or null when it succeeds. */
    failure: (p: Promise<unknown>) => p.then(() => null, (e: unknown) => (e instanceof TRPCError ? e : Promise.reject(e))),
  };
}
