// The Postgres blob store (the embedded default): bytes in BlobBytes, read back in slices with substring() so a
// large blob is never loaded whole (the column is stored uncompressed, which lets Postgres fetch just the slice).
import { Readable } from "node:stream";
import { poolOf, type Db } from "../db/client.ts";
import type { DbOrTx } from "../services/operator.ts";
import type { BlobStore, StoredObject } from "./blob-store.ts";

/**
 * Bytes per read. A slice arrives as hex text twice its size; at 64 KiB that text is small enough for V8's young
 * generation, so it is freed at once: ten readers of a 16 MiB blob grow the API by a few MiB (256 KiB slices: ~65).
 */
export const POSTGRES_CHUNK_BYTES = 64 * 1024;

export function postgresBlobStore(db: DbOrTx, opts: { chunkBytes?: number } = {}): BlobStore {
  const chunk = opts.chunkBytes ?? POSTGRES_CHUNK_BYTES;
  const pool = poolOf(db);
  /** One statement: on the pool when there is one (no Prisma overhead per slice), else through Prisma. */
  const query = async <T>(sql: string, params: unknown[]): Promise<T[]> => {
    if (pool) return (await pool.query(sql, params)).rows as T[];
    return (db as Db).$queryRawUnsafe<T[]>(sql, ...params);
  };

  return {
    kind: "postgres",
    async put(key, bytes) {
      await query(
        `INSERT INTO "BlobBytes" ("key", "bytes") VALUES ($1, $2) ON CONFLICT ("key") DO UPDATE SET "bytes" = EXCLUDED."bytes", "storedAt" = now()`,
        [key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
      );
    },
    async head(key) {
      const rows = await query<{ size: number }>(`SELECT octet_length("bytes")::int AS size FROM "BlobBytes" WHERE "key" = $1`, [key]);
      return rows[0] ? { size: rows[0].size } : null;
    },
    async get(key) {
      const found = await this.head(key);
      if (!found) return null;
      const size = found.size;
      async function* slices() {
        for (let offset = 0; offset < size; offset += chunk) {
          const rows = await query<{ part: Uint8Array | null }>(`SELECT substring("bytes" FROM $2::int FOR $3::int) AS part FROM "BlobBytes" WHERE "key" = $1`, [key, offset + 1, chunk]);
          const part = rows[0]?.part;
          if (!part) throw new Error(`The blob store lost ${key} while it was being read.`);
          yield Buffer.from(part.buffer, part.byteOffset, part.byteLength);
        }
      }
      return { size, body: Readable.from(slices(), { objectMode: false }) };
    },
    async delete(keys) {
      if (keys.length) await query(`DELETE FROM "BlobBytes" WHERE "key" = ANY($1::text[])`, [[...keys]]);
    },
    async list({ after, limit }) {
      const rows = await query<{ key: string; size: number; storedAt: Date }>(
        `SELECT "key", octet_length("bytes")::int AS size, "storedAt" FROM "BlobBytes" WHERE $1::text IS NULL OR "key" > $1 ORDER BY "key" LIMIT $2`,
        [after ?? null, limit],
      );
      return rows.map((r): StoredObject => ({ key: r.key, size: r.size, storedAt: new Date(r.storedAt) }));
    },
    async check() {
      await query(`SELECT 1 FROM "BlobBytes" LIMIT 1`, []);
    },
  };
}
