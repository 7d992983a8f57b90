-- The blob store: a Blob row keeps the metadata (mime, size, owners) and where the store keeps the bytes
-- (storageKey); the bytes move to the Postgres store's own table, BlobBytes (an S3 bucket is the other store).

-- CreateTable
CREATE TABLE "BlobBytes" (
    "key" TEXT NOT NULL,
    "bytes" BYTEA NOT NULL,
    "storedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BlobBytes_pkey" PRIMARY KEY ("key")
);

-- Screenshots are compressed already: no second compression, and substring() reads a slice without the rest.
ALTER TABLE "BlobBytes" ALTER COLUMN "bytes" SET STORAGE EXTERNAL;

-- AlterTable
ALTER TABLE "Blob" ADD COLUMN     "expiredAt" TIMESTAMPTZ(3),
ADD COLUMN     "storageKey" TEXT;

-- Blobs stored so far keep their bytes, in the Postgres store under their sha256.
INSERT INTO "BlobBytes" ("key", "bytes", "storedAt") SELECT "sha256", "bytes", "createdAt" FROM "Blob";
UPDATE "Blob" SET "storageKey" = "sha256";

ALTER TABLE "Blob" DROP COLUMN "bytes";

-- AlterTable
ALTER TABLE "WorkspaceBlob" ADD COLUMN     "touchedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
UPDATE "WorkspaceBlob" SET "touchedAt" = "createdAt";

-- CreateIndex
CREATE INDEX "Evidence_blobSha256_idx" ON "Evidence"("blobSha256");

-- CreateIndex
CREATE INDEX "Step_screenSha256_idx" ON "Step"("screenSha256");

-- A blob that evidence shows is never deleted under it (retention keeps the row and marks it expired instead).
ALTER TABLE "Evidence" DROP CONSTRAINT "Evidence_blobSha256_fkey";
ALTER TABLE "Evidence" ADD CONSTRAINT "Evidence_blobSha256_fkey" FOREIGN KEY ("blobSha256") REFERENCES "Blob"("sha256") ON DELETE RESTRICT ON UPDATE CASCADE;
