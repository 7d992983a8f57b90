// The S3-compatible blob store (AWS S3, MinIO, R2, …) over the AWS SDK: one object per storage key under a prefix,
// streamed both ways, with presigned URLs for reads (and writes) that need not pass through the API.
import { Readable } from "node:stream";
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { BlobStore, StoredObject } from "./blob-store.ts";

export interface S3BlobStoreConfig {
  bucket: string;
  region: string;
  /** An S3-compatible server's URL (MinIO, R2, a local test server); AWS S3 itself needs none. */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Bucket in the path (http://host/bucket/key) instead of the host name: most self-hosted servers need it. */
  forcePathStyle?: boolean;
  /** Object keys start with this (default "blobs/"). */
  prefix?: string;
}

/** DeleteObjects takes at most this many keys per call. */
const DELETE_BATCH = 1000;

export function s3BlobStore(config: S3BlobStoreConfig): BlobStore {
  const prefix = config.prefix ?? "blobs/";
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle ?? false,
    // Checksums only where S3 requires them: S3-compatible servers differ in the newer flexible checksums.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(config.accessKeyId && config.secretAccessKey ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } } : {}),
  });
  const Bucket = config.bucket;
  const objectKey = (key: string) => `${prefix}${key}`;
  const missing = (e: unknown) => e instanceof S3ServiceException && (e.name === "NotFound" || e.name === "NoSuchKey" || e.$metadata.httpStatusCode === 404);

  return {
    kind: "s3",
    async put(key, bytes, mime) {
      await client.send(new PutObjectCommand({ Bucket, Key: objectKey(key), Body: bytes, ContentType: mime, ContentLength: bytes.byteLength }));
    },
    async head(key) {
      try {
        const r = await client.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }));
        return { size: r.ContentLength ?? 0 };
      } catch (e) {
        if (missing(e)) return null;
        throw e;
      }
    },
    async get(key) {
      try {
        const r = await client.send(new GetObjectCommand({ Bucket, Key: objectKey(key) }));
        if (!(r.Body instanceof Readable)) throw new Error("The S3 client returned no Node stream for the object body.");
        return { size: r.ContentLength ?? 0, body: r.Body };
      } catch (e) {
        if (missing(e)) return null;
        throw e;
      }
    },
    async delete(keys) {
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH);
        const r = await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: batch.map((k) => ({ Key: objectKey(k) })), Quiet: true } }));
        const failed = (r.Errors ?? []).filter((e) => e.Code !== "NoSuchKey");
        if (failed.length) throw new Error(`S3 refused to delete ${failed.length} object(s) in bucket ${Bucket}: ${failed[0]!.Code} ${failed[0]!.Message ?? ""}`.trim());
      }
    },
    async list({ after, limit }) {
      // ListObjects (v1) with a marker: every S3-compatible server has it, and the marker is simply the last key.
      const r = await client.send(new ListObjectsCommand({ Bucket, Prefix: prefix, MaxKeys: limit, ...(after !== undefined ? { Marker: objectKey(after) } : {}) }));
      return (r.Contents ?? []).map((o): StoredObject => ({ key: o.Key!.slice(prefix.length), size: o.Size ?? 0, storedAt: o.LastModified ?? new Date(0) }));
    },
    async presign(op, key, { expiresInS, mime }) {
      const command =
        op === "get" ? new GetObjectCommand({ Bucket, Key: objectKey(key) }) : new PutObjectCommand({ Bucket, Key: objectKey(key), ...(mime ? { ContentType: mime } : {}) });
      return getSignedUrl(client, command, { expiresIn: expiresInS });
    },
    async check() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (e) {
        const status = e instanceof S3ServiceException ? e.$metadata.httpStatusCode : undefined;
        const why =
          status === 404 ? "it does not exist: create it first"
          : status === 403 ? "access is denied: check S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY and the bucket's policy"
          : `the server did not answer as S3 does (${e instanceof Error ? e.message : String(e)}): check S3_ENDPOINT and S3_REGION`;
        throw new Error(`The blob store cannot use S3 bucket "${Bucket}"${config.endpoint ? ` at ${config.endpoint}` : ""}: ${why}.`);
      }
    },
  };
}
