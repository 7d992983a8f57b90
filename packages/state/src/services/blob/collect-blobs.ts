// The blob collector: what no one references any more goes, and so do the screenshots of runs past the retention.
// One pass, in four steps, each in batches:
//   1. ownership ends: a workspace stops owning a blob none of its evidence or steps shows and none of its skills'
//      steps names as their screenshot (`shot`), once its grace has passed since the workspace last put it (an upload
//      is referenced by the evidence written right after it); a skill's screenshots so outlive the run's evidence;
//   2. unowned blobs no evidence or step shows are deleted: row, then bytes;
//   3. retention (only when retentionDays is set): a blob shown only by runs that ended (or started, if they never
//      ended) more than retentionDays ago, none of them shared by a live link and no skill of an owning workspace
//      naming it as a step's screenshot (deleting the skill lets it go), loses its bytes; its row stays,
//      marked expired, so the evidence that names it stays intact and a read says what happened;
//   4. the store's orphans (bytes no row names, e.g. a put that failed after storing) older than the grace go,
//      one page of the store's keys per pass, resuming where the last pass stopped.
// Rows are locked (FOR UPDATE SKIP LOCKED) and deleted before their bytes: a put of the same bytes meanwhile writes
// a new storage key, so bytes a row names are never deleted.
import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { Prisma } from "../../generated/prisma/client.ts";
import { atParam, inTx, type DbOrTx } from "../operator.ts";
import { storeOf, type BlobContext } from "./put-blob.ts";

/** Whether a skill of the workspace has a step whose screenshot (`shot`) is the blob: the Learning page shows it. */
const skillShows = (workspaceId: Prisma.Sql, sha256: Prisma.Sql) =>
  Prisma.sql`(EXISTS (SELECT 1 FROM "Skill" s WHERE s."workspaceId" = ${workspaceId}
    AND s."body" @> jsonb_build_object('steps', jsonb_build_array(jsonb_build_object('shot', ${sha256}::text)))))`;

export const DEFAULT_BLOB_GRACE_MS = 60 * 60 * 1000;

export const CollectBlobsInput = z.object({
  /** How long after a workspace's last put of a blob it is left alone. */
  graceMs: z.number().int().min(0).max(365 * 24 * 3_600_000).default(DEFAULT_BLOB_GRACE_MS),
  /** Screenshots of runs older than this many days are deleted; null keeps them forever. */
  retentionDays: z.number().int().min(1).max(100_000).nullable().default(null),
  /** Rows per batch. */
  batch: z.number().int().min(1).max(10_000).default(500),
  /** Where the sweep of the store's keys resumes (the last pass's `sweepAfter`). */
  sweepAfter: z.string().max(500).optional(),
});
export type CollectBlobsInput = z.input<typeof CollectBlobsInput>;

export interface CollectBlobsResult {
  /** Ownerships ended (a workspace no longer references the blob). */
  released: number;
  /** Blobs deleted, row and bytes. */
  deleted: number;
  /** Blobs whose bytes retention deleted (the row stays, expired). */
  expired: number;
  /** Bytes in the store that no row named. */
  orphans: number;
  /** Where the next pass's sweep resumes; undefined to start over. */
  sweepAfter: string | undefined;
}

export async function collectBlobs(db: DbOrTx, raw: CollectBlobsInput = {}, ctx?: BlobContext): Promise<CollectBlobsResult> {
  const i = parseInput(CollectBlobsInput, raw, "blob.collect");
  const store = storeOf(db, ctx);
  const at = atParam(ctx);
  const now = (await db.$queryRaw<{ now: Date }[]>`SELECT COALESCE(${at}::timestamptz, now()) AS now`)[0]!.now;
  const graceEnd = new Date(now.getTime() - i.graceMs);

  // 1. Ownerships no evidence or step of the workspace references, nor a step of one of its skills.
  let released = 0;
  for (;;) {
    const n = await db.$executeRaw`
      DELETE FROM "WorkspaceBlob" WHERE ("workspaceId", "sha256") IN (
        SELECT wb."workspaceId", wb."sha256" FROM "WorkspaceBlob" wb
        WHERE wb."touchedAt" < ${graceEnd}
          AND NOT EXISTS (SELECT 1 FROM "Evidence" e JOIN "Goal" g ON g."id" = e."goalId" WHERE e."blobSha256" = wb."sha256" AND g."workspaceId" = wb."workspaceId")
          AND NOT ${skillShows(Prisma.sql`wb."workspaceId"`, Prisma.sql`wb."sha256"`)}
        LIMIT ${i.batch} FOR UPDATE OF wb SKIP LOCKED)`;
    released += n;
    if (n < i.batch) break;
  }

  // 2. Unowned, unreferenced blobs: the rows in one transaction (locked against a concurrent put), then their bytes.
  let deleted = 0;
  for (;;) {
    const gone = await inTx(db, async (tx) => {
      const rows = await tx.$queryRaw<{ sha256: string; storageKey: string | null }[]>`
        SELECT b."sha256", b."storageKey" FROM "Blob" b
        WHERE NOT EXISTS (SELECT 1 FROM "WorkspaceBlob" w WHERE w."sha256" = b."sha256")
          AND NOT EXISTS (SELECT 1 FROM "Evidence" e WHERE e."blobSha256" = b."sha256")
        LIMIT ${i.batch} FOR UPDATE OF b SKIP LOCKED`;
      if (rows.length) await tx.$executeRaw`DELETE FROM "Blob" WHERE "sha256" = ANY(${rows.map((r) => r.sha256)}::text[])`;
      return rows;
    });
    await store.delete(gone.flatMap((r) => (r.storageKey ? [r.storageKey] : [])));
    deleted += gone.length;
    if (gone.length < i.batch) break;
  }

  // 3. Retention: bytes of blobs only runs past the retention show (and no live share of them, no recent put).
  let expired = 0;
  if (i.retentionDays !== null) {
    const retentionEnd = new Date(now.getTime() - i.retentionDays * 24 * 3_600_000);
    for (;;) {
      const gone = await inTx(db, async (tx) => {
        const rows = await tx.$queryRaw<{ sha256: string; storageKey: string }[]>`
          WITH kept AS (
            SELECT r."id" FROM "Run" r
            WHERE r."status" IN ('running', 'interrupted') OR COALESCE(r."endedAt", r."startedAt") >= ${retentionEnd}
               OR EXISTS (SELECT 1 FROM "Share" sh WHERE sh."runId" = r."id" AND sh."revokedAt" IS NULL AND (sh."expiresAt" IS NULL OR sh."expiresAt" > ${now}))
          )
          SELECT b."sha256", b."storageKey" FROM "Blob" b
          WHERE b."storageKey" IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM "WorkspaceBlob" w WHERE w."sha256" = b."sha256" AND (w."touchedAt" >= ${graceEnd} OR ${skillShows(Prisma.sql`w."workspaceId"`, Prisma.sql`w."sha256"`)}))
            AND NOT EXISTS (SELECT 1 FROM "Evidence" e LEFT JOIN "Run" r ON r."id" = e."runId"
                            WHERE e."blobSha256" = b."sha256" AND (r."id" IS NULL OR r."id" IN (SELECT "id" FROM kept)))
          LIMIT ${i.batch} FOR UPDATE OF b SKIP LOCKED`;
        if (rows.length) {
          await tx.$executeRaw`UPDATE "Blob" SET "storageKey" = NULL, "expiredAt" = ${now} WHERE "sha256" = ANY(${rows.map((r) => r.sha256)}::text[])`;
        }
        return rows;
      });
      await store.delete(gone.map((r) => r.storageKey));
      expired += gone.length;
      if (gone.length < i.batch) break;
    }
  }

  // 4. One page of the store's keys: bytes no row names, stored before the grace.
  const page = await store.list({ ...(i.sweepAfter !== undefined ? { after: i.sweepAfter } : {}), limit: i.batch });
  const old = page.filter((o) => o.storedAt < graceEnd).map((o) => o.key);
  let orphans = 0;
  if (old.length) {
    const named = new Set(
      (await db.blob.findMany({ where: { storageKey: { in: old } }, select: { storageKey: true } })).map((b) => b.storageKey),
    );
    const unnamed = old.filter((k) => !named.has(k));
    await store.delete(unnamed);
    orphans = unnamed.length;
  }
  const sweepAfter = page.length < i.batch ? undefined : page.at(-1)!.key;
  return { released, deleted, expired, orphans, sweepAfter };
}
