// For tests that call procedures in process, as a given principal: a test database and an event hub for the test
// file (vitest hooks registered by the call), a caller per principal, and a way to read a procedure's TRPCError.
import { afterAll, beforeAll } from "vitest";
import { TRPCError } from "@trpc/server";
import { useTestDatabase } from "@phoneloop/state/testing";
import type { Principal } from "./auth/principal.ts";
import { EventHub } from "./events.ts";
import { appRouter } from "./root.ts";
import { createCallerFactory, createTRPCContext } from "./trpc.ts";

export function useCallers() {
  // Registered first, so its database exists before the hub starts and is dropped after the hub closes.
  const database = useTestDatabase();
  let hub: EventHub | undefined;
  beforeAll(async () => {
    hub = new EventHub({ databaseUrl: database.url });
    await hub.start();
  });
  afterAll(async () => {
    await hub?.close();
    hub = undefined;
  });
  return {
    /** The test database (inside tests and hooks). */
    t: () => database,
    /** The app router's caller acting as `principal`. */
    as: (principal: Principal) => createCallerFactory(appRouter)(createTRPCContext({ services: { db: database.db, events: hub! }, principal })),
    /** The TRPCError a call ends with, or null when it succeeds. */
    failure: (p: Promise<unknown>) => p.then(() => null, (e: unknown) => (e instanceof TRPCError ? e : Promise.reject(e))),
  };
}
