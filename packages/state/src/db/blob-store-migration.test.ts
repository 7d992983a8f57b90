// The blob_store migration keeps every blob stored before it: the bytes move from Blob into the Postgres store's
// BlobBytes under the blob's sha256 as storage key, and reading the blob through the state core gives them back.
import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { applyMigrations } from "./migrate.ts";
import { createDb } from "./client.ts";
import { migrationDatabase } from "../testing/migration-database.ts";
import { getBlob } from "../services/blob/read-blob.ts";

const MIGRATION = "20261130232000_blob_store";
const { url, migrateBefore } = migrationDatabase();

describe(`migration ${MIGRATION}`, () => {
  it("moves stored bytes into BlobBytes under the sha256, and the blob reads back the same", async () => {
    await migrateBefore(MIGRATION);
    const bytes = randomBytes(200_000);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`INSERT INTO "Workspace" ("id", "name") VALUES ('ws_mig', 'Team')`);
      await c.query(`INSERT INTO "Blob" ("sha256", "mime", "size", "bytes") VALUES ($1, 'image/png', $2, $3)`, [sha256, bytes.length, bytes]);
      await c.query(`INSERT INTO "WorkspaceBlob" ("workspaceId", "sha256") VALUES ('ws_mig', $1)`, [sha256]);

      expect((await applyMigrations(url)).applied).toContain(MIGRATION);

      expect((await c.query(`SELECT "storageKey", "expiredAt" FROM "Blob" WHERE "sha256" = $1`, [sha256])).rows).toEqual([{ storageKey: sha256, expiredAt: null }]);
      expect((await c.query(`SELECT "key", octet_length("bytes") AS size FROM "BlobBytes"`)).rows).toEqual([{ key: sha256, size: bytes.length }]);
      const db = createDb(url, { max: 2 });
      try {
        const read = await getBlob(db, sha256, { workspaceId: "ws_mig" });
        expect(read?.mime).toBe("image/png");
        expect(Buffer.from(read!.bytes).equals(bytes)).toBe(true);
      } finally {
        await db.$disconnect();
      }
    } finally {
      await c.end();
    }
  });
});
