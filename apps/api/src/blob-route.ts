// GET /blobs/<sha256>: a stored blob's bytes (screenshots), so pages show them as plain cacheable image URLs
// instead of base64 inside JSON. A blob never changes under its hash, so a browser keeps it for a year.
import type { IncomingMessage, ServerResponse } from "node:http";
import { getBlob } from "@phoneloop/state";
import { toHeaders } from "./auth/http.ts";
import { resolvePrincipal, SHARE_HEADER, type PrincipalServices } from "./auth/principal.ts";
import { BLOB_PATH, BLOB_SHARE_PARAM } from "./contract.ts";

export { BLOB_PATH, blobUrl } from "./contract.ts";

const SHA256 = /^[0-9a-f]{64}$/;

export async function handleBlobGet(req: IncomingMessage, res: ServerResponse, services: PrincipalServices): Promise<void> {
  const url = new URL(req.url ?? "/", "http://api");
  const headers = toHeaders(req);
  const share = url.searchParams.get(BLOB_SHARE_PARAM);
  if (share && !headers.has(SHARE_HEADER)) headers.set(SHARE_HEADER, share);
  const principal = await resolvePrincipal(services, headers);
  const sha256 = url.pathname.slice(BLOB_PATH.length + 1);
  if (req.method !== "GET" && req.method !== "HEAD") return sendText(res, 405, "Blobs are read with GET.");
  if (!SHA256.test(sha256)) return sendText(res, 400, `"${sha256}" is not a blob id: use ${BLOB_PATH}/<lowercase hex sha256>.`);
  // A share link that no longer opens is "not found", as its replay is.
  if (principal.kind === "anonymous" && share) return sendText(res, 404, "This share link was revoked or has expired; ask whoever shared it for a new one.");
  if (principal.kind === "anonymous") return sendText(res, 401, "Sign in to see this screenshot, or open it through a share link.");
  // A share reads only its run's blobs; anything else is "not found", as for another workspace.
  const scope = principal.kind === "share" ? { share: principal } : { workspaceId: principal.workspaceId };
  const blob = await getBlob(services.db, sha256, scope);
  if (!blob) return sendText(res, 404, `No blob ${sha256} in this workspace.`);
  const etag = `"${sha256}"`;
  const sent = {
    "content-type": blob.mime,
    "content-length": String(blob.bytes.byteLength),
    // Content-addressed: the bytes under this URL never change. Private: it is read with the person's session.
    "cache-control": "private, max-age=31536000, immutable",
    etag,
    "x-content-type-options": "nosniff",
  };
  if (req.headers["if-none-match"] === etag) {
    res.writeHead(304, { etag, "cache-control": sent["cache-control"] }).end();
    return;
  }
  res.writeHead(200, sent);
  res.end(req.method === "HEAD" ? undefined : Buffer.from(blob.bytes));
}

function sendText(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" }).end(message);
}

