// Blobs over plain HTTP, never base64 inside JSON:
//   POST /blobs        the raw bytes of a screenshot (Content-Type image/png, image/jpeg or image/webp; at most
//                      MAX_BLOB_BYTES), by a caller holding the "run" permission (an agent token, an operator's or
//                      admin's session), UPLOADS_PER_CALLER at once. The API computes the sha256, stores the image
//                      re-encoded without metadata (blob-encoding.ts: a PNG becomes WebP unless `?exact=1`; over
//                      its pixel budget is a 413, one that does not decode whole a 400), records the caller's
//                      workspace as an owner, and answers {sha256, size, mime, created}. Identical bytes are stored once.
//   GET /blobs/<sha>   the bytes, streamed from the blob store in chunks (or a redirect to a presigned URL when the
//                      S3 store is set to presign reads), with an immutable cache header and the sha256 as ETag.
//                      A share link (?share=) reads only its run's blobs, streamed the same way; a screen with
//                      password fields on it is the one exception: it is boxed over first (share/shared-replay.ts,
//                      a few at a time, each in memory while it is).
// Uploads always pass through the API, also with the S3 store: it computes the sha256 and checks (and re-encodes)
// the image, which a presigned upload straight to the bucket would skip.
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { findBlob, MAX_BLOB_BYTES, openBlob, putBlob, type BlobInfo, type BlobScope, type BlobStore, type Db } from "@phoneloop/state";
import { sendJson, toHeaders } from "./auth/http.ts";
import { resolvePrincipal, SHARE_HEADER, type Principal, type PrincipalServices } from "./auth/principal.ts";
import { BLOB_PATH, BLOB_SHARE_PARAM } from "./contract.ts";
import { BLOB_MIMES, BlobEncodingError, encodeForStorage, isBlobMime } from "./blob-encoding.ts";
import { holdsNow } from "./permissions.ts";
import { maskedBlob, passwordBoxesOn } from "./share/shared-replay.ts";

export { BLOB_PATH, blobUrl } from "./contract.ts";

const SHA256 = /^[0-9a-f]{64}$/;
/** Content-addressed: the bytes under a URL never change. Private: they are read with the person's session. */
const IMMUTABLE = "private, max-age=31536000, immutable";

export interface BlobRouteOptions {
  store: BlobStore;
  /** Answer a read with a redirect to a presigned URL of the store (S3 only), valid this long; null streams. */
  presignedReadS: number | null;
  /** BLOB_RETENTION_DAYS, for the answer to a read of a screenshot retention deleted. */
  retentionDays: number | null;
}

export async function handleBlob(req: IncomingMessage, res: ServerResponse, services: PrincipalServices & { db: Db }, opts: BlobRouteOptions): Promise<void> {
  const url = new URL(req.url ?? "/", "http://api");
  if (req.method === "POST" && (url.pathname === BLOB_PATH || url.pathname === `${BLOB_PATH}/`)) return handleUpload(req, res, url, services, opts.store);
  if (req.method !== "GET" && req.method !== "HEAD") {
    return sendText(res, 405, `Blobs are read with GET ${BLOB_PATH}/<sha256> and uploaded with POST ${BLOB_PATH} (the raw image as the body).`);
  }
  const headers = toHeaders(req);
  const share = url.searchParams.get(BLOB_SHARE_PARAM);
  if (share && !headers.has(SHARE_HEADER)) headers.set(SHARE_HEADER, share);
  const principal = await resolvePrincipal(services, headers);
  const sha256 = url.pathname.slice(BLOB_PATH.length + 1);
  if (!SHA256.test(sha256)) return sendText(res, 400, `"${sha256}" is not a blob id: use ${BLOB_PATH}/<lowercase hex sha256>.`);
  // A share link that no longer opens is "not found", as its replay is.
  if (principal.kind === "anonymous" && share) return sendText(res, 404, "This share link was revoked or has expired; ask whoever shared it for a new one.");
  if (principal.kind === "anonymous") return sendText(res, 401, "Sign in to see this screenshot, or open it through a share link.");
  const etag = `"${sha256}"`;
  const notModified = () => res.writeHead(304, { etag, "cache-control": IMMUTABLE }).end();

  // A share reads only its run's blobs; a member or an agent its workspace's.
  const scope: BlobScope = principal.kind === "share" ? { share: principal } : { workspaceId: principal.workspaceId };
  const notHere = `No blob ${sha256} in this ${principal.kind === "share" ? "shared run" : "workspace"}.`;
  const info = await findBlob(services.db, sha256, scope);
  if (!info) return sendText(res, 404, notHere);
  if (!info.storageKey) return sendExpired(res, info, opts.retentionDays);
  if (req.headers["if-none-match"] === etag) return void notModified();
  if (principal.kind === "share") {
    // As the link shows it: a screen with password fields on it has them boxed over (re-encoded, so its size is
    // known only once done); any other blob of the run streams below.
    const boxes = await passwordBoxesOn(services.db, principal, sha256);
    if (boxes.length && req.method === "HEAD") return void res.writeHead(200, bodyHeaders(info.mime, null, etag)).end();
    if (boxes.length) {
      const masked = await maskedBlob(services.db, principal, sha256, boxes, opts.store);
      if (!masked) return sendText(res, 404, notHere);
      return void res.writeHead(200, bodyHeaders(masked.mime, masked.bytes.byteLength, etag)).end(masked.bytes);
    }
  }
  if (req.method === "HEAD") return void res.writeHead(200, bodyHeaders(info.mime, info.size, etag)).end();
  if (opts.presignedReadS && opts.store.presign) {
    const location = await opts.store.presign("get", info.storageKey, { expiresInS: opts.presignedReadS });
    // The redirect expires with the URL; the bytes behind it are cached by the browser for good.
    res.writeHead(302, { location, "cache-control": `private, max-age=${Math.max(0, opts.presignedReadS - 60)}` }).end();
    return;
  }
  const opened = await openBlob(services.db, sha256, scope, { store: opts.store });
  if (opened.status === "expired") return sendExpired(res, opened.info, opts.retentionDays);
  if (opened.status === "missing") return sendText(res, 404, notHere);
  res.writeHead(200, bodyHeaders(info.mime, info.size, etag));
  try {
    await pipeline(opened.body, res);
  } catch (e) {
    // The reader went away mid-transfer: nothing to answer. Anything else is the store failing mid-stream.
    if ((e as { code?: string }).code !== "ERR_STREAM_PREMATURE_CLOSE") throw e;
  }
}

function bodyHeaders(mime: string, size: number | null, etag: string): Record<string, string> {
  return { "content-type": mime, ...(size === null ? {} : { "content-length": String(size) }), "cache-control": IMMUTABLE, etag, "x-content-type-options": "nosniff" };
}

function sendExpired(res: ServerResponse, info: BlobInfo, retentionDays: number | null): void {
  const when = info.expiredAt ? ` on ${info.expiredAt.toISOString().slice(0, 10)}` : "";
  const rule = retentionDays ? ` (runs older than ${retentionDays} days keep their record, not their screenshots: BLOB_RETENTION_DAYS)` : "";
  sendText(res, 410, `This screenshot was deleted by the workspace's retention${when}${rule}; the evidence that showed it is still there.`);
}

async function handleUpload(req: IncomingMessage, res: ServerResponse, url: URL, services: PrincipalServices & { db: Db }, store: BlobStore): Promise<void> {
  const principal: Principal = await resolvePrincipal(services, toHeaders(req));
  const refuse = (status: number, code: string, message: string) => {
    // Whatever of the body is still coming is not read: close the connection after the answer.
    res.setHeader("connection", "close");
    sendJson(res, status, { error: { code, message } });
    res.once("finish", () => req.socket.destroySoon());
  };
  if (principal.kind === "anonymous") {
    return refuse(401, "UNAUTHORIZED", "Sign in first (the web app), or send an agent token as `Authorization: Bearer plt_…`, to upload a screenshot.");
  }
  if (principal.kind === "share") return refuse(403, "FORBIDDEN", "A share link only reads its run's screenshots; it cannot upload.");
  if (principal.kind === "member" && !holdsNow(principal, "run")) {
    return refuse(403, "FORBIDDEN", `Uploading a screenshot needs the "run" permission (operator, admin or an agent); your role here is ${principal.role}. Ask an admin if you need it.`);
  }
  if (principal.kind === "agent" && !holdsNow(principal, "run")) {
    return refuse(403, "FORBIDDEN", `Uploading a screenshot needs the "run" permission; this agent token acts for the member who issued it, whose role here is now ${principal.issuerRole}. Ask an admin to change that role, or to re-own the token (agentToken.reassign).`);
  }
  const mime = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (!isBlobMime(mime)) {
    return refuse(415, "UNSUPPORTED_MEDIA_TYPE", `A blob is an image: send the raw bytes with Content-Type ${BLOB_MIMES.join(", ")}${mime ? `, not ${mime}` : ""}.`);
  }
  const tooLarge = () => refuse(413, "PAYLOAD_TOO_LARGE", `A blob is at most ${MAX_BLOB_BYTES} bytes (16 MiB); scale the screenshot down or send it as JPEG or WebP.`);
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > MAX_BLOB_BYTES) return tooLarge();
  const actor = principal.kind === "member" ? principal.userId : (principal.agentId ?? `token:${principal.tokenId}`);
  // Each caller (a person, or an agent token) stores a few screenshots at once; more are refused before their bodies are read.
  const caller = principal.kind === "member" ? `member:${principal.userId}` : `token:${principal.tokenId}`;
  const release = takeUploadSlot(caller);
  if (!release) {
    res.setHeader("retry-after", String(UPLOAD_RETRY_AFTER_S));
    return refuse(429, "TOO_MANY_REQUESTS", `You are storing ${UPLOADS_PER_CALLER} screenshots at once already; send the next when one is stored (retry after ${UPLOAD_RETRY_AFTER_S} s).`);
  }
  try {
    const body = await readCapped(req, MAX_BLOB_BYTES);
    if (body === "closed") return; // the uploader hung up: nobody to answer, and its slot is free again (finally)
    if (body === null) return tooLarge();
    if (body.length === 0) return refuse(400, "INVALID_INPUT", "The body is empty: send the image's bytes as the request body.");
    let stored;
    try {
      stored = await encodeForStorage(body, mime, { exact: url.searchParams.get("exact") === "1" });
    } catch (e) {
      if (e instanceof BlobEncodingError) return refuse(e.status, e.status === 413 ? "PAYLOAD_TOO_LARGE" : "INVALID_INPUT", e.message);
      throw e;
    }
    const put = await putBlob(services.db, { bytes: stored.bytes, mime: stored.mime, workspaceId: principal.workspaceId }, { actor, store });
    sendJson(res, put.created ? 201 : 200, { sha256: put.sha256, size: put.size, mime: stored.mime, created: put.created });
  } finally {
    release();
  }
}

/** Uploads one caller may have in progress (reading, decoding, storing) at once; the next is a 429. */
export const UPLOADS_PER_CALLER = 2;
const UPLOAD_RETRY_AFTER_S = 1;
const uploadsInProgress = new Map<string, number>();

/** A slot for one upload of this caller (its release), or null when they have UPLOADS_PER_CALLER in progress. */
function takeUploadSlot(caller: string): (() => void) | null {
  const n = uploadsInProgress.get(caller) ?? 0;
  if (n >= UPLOADS_PER_CALLER) return null;
  uploadsInProgress.set(caller, n + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (uploadsInProgress.get(caller) ?? 1) - 1;
    if (left > 0) uploadsInProgress.set(caller, left);
    else uploadsInProgress.delete(caller);
  };
}

/**
 * The request body; null once it passes `cap` bytes (then reading stops; the answer closes the connection);
 * "closed" when the uploader hung up before it had all arrived. The body is only listened to once the caller is
 * known, so a hang-up may already be over by then (its events were emitted to nobody): that is read from the
 * request's state, or the upload would wait for an end that never comes and hold its caller's slot for good.
 */
function readCapped(req: IncomingMessage, cap: number): Promise<Buffer | null | "closed"> {
  return new Promise((resolve, reject) => {
    if (req.destroyed && !req.complete) return resolve("closed");
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= cap) return void chunks.push(chunk);
      req.off("data", onData).off("end", onEnd).pause();
      resolve(null);
    };
    const onEnd = () => resolve(Buffer.concat(chunks, received));
    // After the end (or the cap) the promise is settled and this changes nothing.
    const onClose = () => resolve("closed");
    req.on("data", onData).on("end", onEnd).once("close", onClose).once("error", (e) => (req.complete ? reject(e) : resolve("closed")));
  });
}

function sendText(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" }).end(message);
}
