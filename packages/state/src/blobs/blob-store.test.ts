// The BlobStore port's contract, run against both stores: Postgres (BlobBytes in a test database) and S3 (an
// S3-compatible server, s3rver, on a free loopback port). Same tests, same assertions.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import S3rver from "s3rver";
import { useTestDatabase } from "../testing/index.ts";
import type { BlobStore } from "./blob-store.ts";
import { newStorageKey } from "./blob-store.ts";
import { postgresBlobStore } from "./postgres-blob-store.ts";
import { s3BlobStore } from "./s3-blob-store.ts";

const t = useTestDatabase();
let s3: S3rver;
let s3Dir: string;
let s3Url: string;

beforeAll(async () => {
  s3Dir = mkdtempSync(join(tmpdir(), "phoneloop-s3-"));
  s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: "phoneloop", configs: [] }] });
  const { port } = await s3.run();
  s3Url = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await s3?.close();
  rmSync(s3Dir, { recursive: true, force: true });
});

const stores: [string, () => BlobStore][] = [
  ["postgres", () => postgresBlobStore(t.db, { chunkBytes: 64 * 1024 })],
  ["s3", () => s3BlobStore({ endpoint: s3Url, bucket: "phoneloop", region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER", forcePathStyle: true })],
];

async function readAll(store: BlobStore, key: string): Promise<{ size: number; bytes: Buffer; chunks: number } | null> {
  const got = await store.get(key);
  if (!got) return null;
  const parts: Buffer[] = [];
  for await (const part of got.body) parts.push(Buffer.from(part as Uint8Array));
  return { size: got.size, bytes: Buffer.concat(parts), chunks: parts.length };
}

function bytesOf(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return b;
}

describe.each(stores)("BlobStore over %s", (kind, make) => {
  it("puts, heads and reads back the same bytes, streamed in more than one chunk when large", async () => {
    const store = make();
    await store.check();
    const key = newStorageKey("a".repeat(64));
    const bytes = bytesOf(300 * 1024 + 17, 1);
    await store.put(key, bytes, "image/webp");
    expect(await store.head(key)).toEqual({ size: bytes.length });
    const read = await readAll(store, key);
    expect(read!.size).toBe(bytes.length);
    expect(read!.bytes.equals(Buffer.from(bytes))).toBe(true);
    expect(read!.chunks).toBeGreaterThan(1);
  });

  it("answers null for a key it does not hold, and deletes idempotently", async () => {
    const store = make();
    const key = newStorageKey("b".repeat(64));
    expect(await store.head(key)).toBeNull();
    expect(await store.get(key)).toBeNull();
    await store.put(key, bytesOf(10, 2), "image/jpeg");
    await store.delete([key, newStorageKey("c".repeat(64))]);
    expect(await store.head(key)).toBeNull();
    await store.delete([key]);
    await store.delete([]);
  });

  it("lists its keys in order, in pages after a key, with size and time stored", async () => {
    const store = make();
    const prefix = `${kind === "s3" ? "d" : "e"}`.repeat(64);
    const keys = [0, 1, 2, 3, 4].map((n) => `${prefix}-list${n}`);
    for (const [n, key] of keys.entries()) await store.put(key, bytesOf(n + 1, n), "image/png");
    const all: string[] = [];
    for (let after: string | undefined = `${prefix}-list`; ; ) {
      const page = await store.list({ ...(after ? { after } : {}), limit: 2 });
      const ours = page.filter((o) => o.key.startsWith(`${prefix}-list`));
      for (const o of ours) {
        expect(o.size).toBe(Number(o.key.at(-1)) + 1);
        expect(o.storedAt.getTime()).toBeGreaterThan(Date.now() - 10 * 60_000);
      }
      all.push(...ours.map((o) => o.key));
      if (page.length < 2 || ours.length < page.length) break;
      after = page.at(-1)!.key;
    }
    expect(all).toEqual(keys);
    await store.delete(keys);
  });

  it("replaces the bytes when a key is put again", async () => {
    const store = make();
    const key = newStorageKey("f".repeat(64));
    await store.put(key, bytesOf(100, 3), "image/png");
    await store.put(key, bytesOf(50, 4), "image/png");
    expect((await readAll(store, key))!.bytes.equals(Buffer.from(bytesOf(50, 4)))).toBe(true);
  });

  it(kind === "s3" ? "presigns a read and a write that work without credentials" : "has no presigned URLs (the API streams)", async () => {
    const store = make();
    if (kind !== "s3") {
      expect(store.presign).toBeUndefined();
      return;
    }
    const key = newStorageKey("9".repeat(64));
    const put = await store.presign!("put", key, { expiresInS: 60, mime: "image/webp" });
    const bytes = bytesOf(2048, 5);
    expect((await fetch(put, { method: "PUT", body: Buffer.from(bytes), headers: { "content-type": "image/webp" } })).status).toBe(200);
    const get = await store.presign!("get", key, { expiresInS: 60 });
    const res = await fetch(get);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    expect(get).toMatch(/X-Amz-Expires=60/);
  });
});

describe("S3 store check", () => {
  it("names the bucket and what to fix when the bucket does not exist", async () => {
    const store = s3BlobStore({ endpoint: s3Url, bucket: "no-such-bucket", region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER", forcePathStyle: true });
    await expect(store.check()).rejects.toThrow(/S3 bucket "no-such-bucket".*does not exist/);
  });
});
