// The API with BLOB_STORE=s3 against an S3-compatible server running here (s3rver on a free loopback port): the
// environment is parsed and checked as server.ts does it, uploads land in the bucket, reads stream from it or
// redirect to a presigned URL, and the collector deletes from the bucket.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@phoneloop/state/testing";
import { createApiServer, type ApiServer } from "./api-server.ts";
import { agentTokenHeaders, signUpMember } from "./auth/testing.ts";
import { blobsFromEnv } from "./blob-config.ts";
import { parseEnv } from "./env.ts";

const t = useTestDatabase();
let s3: S3rver;
let s3Dir: string;
let s3Url: string;
const servers: ApiServer[] = [];

beforeAll(async () => {
  s3Dir = mkdtempSync(join(tmpdir(), "phoneloop-s3-"));
  s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: "screens", configs: [] }] });
  s3Url = `http://127.0.0.1:${(await s3.run()).port}`;
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await s3?.close();
  rmSync(s3Dir, { recursive: true, force: true });
});

const envOf = (over: Record<string, string>) =>
  parseEnv({ DATABASE_URL: t.url, PHONELOOP_SECRET_KEY: "k".repeat(40), BLOB_STORE: "s3", S3_ENDPOINT: s3Url, S3_BUCKET: "screens", S3_ACCESS_KEY_ID: "S3RVER", S3_SECRET_ACCESS_KEY: "S3RVER", S3_FORCE_PATH_STYLE: "true", ...over });

async function apiWith(over: Record<string, string>): Promise<ApiServer> {
  const env = envOf(over);
  const api = await createApiServer({ db: t.db, databaseUrl: t.url, port: 0, host: "127.0.0.1", secretKey: env.PHONELOOP_SECRET_KEY, blobs: await blobsFromEnv(env, t.db) });
  servers.push(api);
  return api;
}

describe("BLOB_STORE=s3", () => {
  it("refuses an S3 setup it cannot use, saying what to set", async () => {
    expect(() => parseEnv({ DATABASE_URL: t.url, PHONELOOP_SECRET_KEY: "k".repeat(40), BLOB_STORE: "s3" })).toThrow(/S3_BUCKET: BLOB_STORE=s3 needs S3_BUCKET/);
    expect(() => envOf({ S3_SECRET_ACCESS_KEY: "" })).toThrow(/S3_SECRET_ACCESS_KEY/);
    await expect(blobsFromEnv(envOf({ S3_BUCKET: "missing-bucket" }), t.db)).rejects.toThrow(/S3 bucket "missing-bucket".*does not exist: create it first/);
  });

  it("stores uploads in the bucket and streams them back; with S3_PRESIGNED_READS a read redirects to a presigned URL", async () => {
    const api = await apiWith({});
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const agent = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId });
    const png = await sharp({ create: { width: 64, height: 128, channels: 3, background: "#e67e22" } }).png().toBuffer();
    const up = await fetch(`${api.url}/blobs`, { method: "POST", headers: { ...agent.headers, "content-type": "image/png" }, body: png });
    expect(up.status).toBe(201);
    const { sha256, size } = (await up.json()) as { sha256: string; size: number };
    const row = await t.db.blob.findUniqueOrThrow({ where: { sha256 } });
    expect(await t.db.blobBytes.count({ where: { key: row.storageKey! } })).toBe(0);
    const object = await fetch(`${s3Url}/screens/blobs/${row.storageKey}`);
    expect(object.status).toBe(200);

    const streamed = await fetch(`${api.url}/blobs/${sha256}`, { headers: admin.headers });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    expect((await streamed.arrayBuffer()).byteLength).toBe(size);

    const presigning = await apiWith({ S3_PRESIGNED_READS: "true" });
    const redirect = await fetch(`${presigning.url}/blobs/${sha256}`, { headers: admin.headers, redirect: "manual" });
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get("location")!;
    expect(location).toContain(`${s3Url}/screens/blobs/${row.storageKey}`);
    expect(location).toMatch(/X-Amz-Signature=/);
    const direct = await fetch(location);
    expect(direct.status).toBe(200);
    expect(Buffer.from(await direct.arrayBuffer()).equals(Buffer.from(await (await fetch(`${s3Url}/screens/blobs/${row.storageKey}`)).arrayBuffer()))).toBe(true);
    // Someone outside the workspace gets no redirect.
    const stranger = await signUpMember({ db: t.db, auth: presigning.auth }, { role: "admin" });
    expect((await fetch(`${presigning.url}/blobs/${sha256}`, { headers: stranger.headers, redirect: "manual" })).status).toBe(404);
  });

  it("runs the collector on the bucket: an upload nothing references is deleted after the grace", async () => {
    const api = await apiWith({ BLOB_GC_GRACE_MS: "60000" });
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const jpeg = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#16a085" } }).jpeg().toBuffer();
    const { sha256 } = (await (await fetch(`${api.url}/blobs`, { method: "POST", headers: { ...admin.headers, "content-type": "image/jpeg" }, body: jpeg })).json()) as { sha256: string };
    const key = (await t.db.blob.findUniqueOrThrow({ where: { sha256 } })).storageKey!;
    // As if the grace had passed: the upload is an hour old.
    await t.db.workspaceBlob.updateMany({ where: { sha256 }, data: { touchedAt: new Date(Date.now() - 3_600_000) } });
    // The API's own collector (BLOB_GC_INTERVAL_MS apart; one pass now).
    const r = await api.blobCollector!.tick();
    expect(r.deleted).toBeGreaterThanOrEqual(1);
    expect(await t.db.blob.findUnique({ where: { sha256 } })).toBeNull();
    expect((await fetch(`${s3Url}/screens/blobs/${key}`)).status).toBe(404);
  });
});
