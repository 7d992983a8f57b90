// The blob store and collector the environment asks for (env.ts: BLOB_STORE, S3_*, BLOB_RETENTION_DAYS, BLOB_GC_*),
// checked once at start: a bucket that cannot be used stops the API with what to fix, not the first upload.
import { postgresBlobStore, s3BlobStore, type Db } from "@phoneloop/state";
import type { ApiServerInit } from "./api-server.ts";
import type { Env } from "./env.ts";

/** How long a presigned read URL is valid (S3_PRESIGNED_READS). */
export const PRESIGNED_READ_S = 15 * 60;

export async function blobsFromEnv(env: Env, db: Db): Promise<NonNullable<ApiServerInit["blobs"]>> {
  const store =
    env.BLOB_STORE === "s3"
      ? s3BlobStore({
          bucket: env.S3_BUCKET!,
          region: env.S3_REGION,
          forcePathStyle: env.S3_FORCE_PATH_STYLE,
          ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
          ...(env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY } : {}),
        })
      : postgresBlobStore(db);
  await store.check();
  return {
    store,
    presignedReadS: env.BLOB_STORE === "s3" && env.S3_PRESIGNED_READS ? PRESIGNED_READ_S : null,
    retentionDays: env.BLOB_RETENTION_DAYS ?? null,
    collector: { intervalMs: env.BLOB_GC_INTERVAL_MS, graceMs: env.BLOB_GC_GRACE_MS, eventRetentionDays: env.EVENT_RETENTION_DAYS },
  };
}
