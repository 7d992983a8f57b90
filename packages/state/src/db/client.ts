// The Prisma client over node-postgres. Services take `db` (or a transaction) as a parameter; nothing here is global.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "../generated/prisma/client.ts";

export type Db = PrismaClient;

// The pool under each client, for the few one-statement hot paths (claim, the holder's writes) that skip the
// Prisma runtime's per-query overhead. Everything else goes through Prisma.
const pools = new WeakMap<object, pg.Pool>();

export function createDb(url: string, opts: { max?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 20 });
  // An idle connection the server closed (restart, admin command) is replaced on next use; unhandled it would end the process.
  pool.on("error", () => undefined);
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  const client = new PrismaClient({ adapter });
  pools.set(client, pool);
  return client;
}

/** The pool under a client made by createDb; undefined for a transaction or a client made elsewhere. */
export function poolOf(db: object): pg.Pool | undefined {
  return pools.get(db);
}
