// The Prisma client over node-postgres. Services take `db` (or a transaction) as a parameter; nothing here is global.
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client.ts";

export type Db = PrismaClient;

export function createDb(url: string, opts: { max?: number } = {}): Db {
  const adapter = new PrismaPg({ connectionString: url, max: opts.max ?? 20 });
  return new PrismaClient({ adapter });
}
