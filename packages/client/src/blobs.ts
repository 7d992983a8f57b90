// Blobs over plain HTTP, never base64 inside JSON, with the client's credentials: uploads are the raw bytes in the
// body of POST /blobs (the API computes the sha256, stores the image — a PNG as WebP unless `exact` — and answers
// with it); reads are GET /blobs/<sha256>, streamed. A failure is thrown as the tRPC client's error with the same
// data a procedure's failure has, so the ControlPlane retries and reports it like any call (retry.ts, errors.ts):
// no answer or a 5xx is retried, and a 429 that says when to come back (Retry-After) is retried then; any other 4xx
// is not.
import { TRPCClientError } from "@trpc/client";
import { BLOB_PATH, blobUrl } from "@phoneloop/api/contract";
import { transportOf, type ApiClient } from "./api-client.ts";

export interface BlobUpload {
  bytes: Uint8Array;
  /** image/png, image/jpeg or image/webp (the API refuses anything else with UNSUPPORTED_MEDIA_TYPE). */
  mime: string;
  /** Keep a PNG's exact pixels (default: a PNG is stored as WebP; screenshots need not be pixel-exact). */
  exact?: boolean;
}

/** HTTP statuses as the tRPC error codes a procedure would have answered with. */
const CODE_OF: Record<number, string> = { 400: "BAD_REQUEST", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND", 410: "GONE", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE", 429: "TOO_MANY_REQUESTS" };

function httpFailure(what: string, res: Response, error: { code?: string; message?: string } | undefined): TRPCClientError<never> {
  const status = res.status;
  const code = error?.code ?? CODE_OF[status] ?? (status >= 500 ? "INTERNAL_SERVER_ERROR" : "BAD_REQUEST");
  const message = error?.message || `${what} answered ${status}.`;
  // Retry-After in seconds (the API's form; an HTTP date is not sent by it and is ignored).
  const retryAfter = Number(res.headers.get("retry-after") ?? Number.NaN);
  const retryAfterMs = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : undefined;
  return TRPCClientError.from({ error: { message, code: -32000, data: { code, httpStatus: status, stateCode: code, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) } } });
}

export async function uploadBlob(client: ApiClient, blob: BlobUpload): Promise<{ sha256: string }> {
  const { apiUrl, fetch } = transportOf(client);
  const url = `${apiUrl}${BLOB_PATH}${blob.exact ? "?exact=1" : ""}`;
  let res: Response;
  try {
    res = await fetch(url, { method: "POST", headers: { "content-type": blob.mime }, body: blob.bytes as Uint8Array<ArrayBuffer> });
  } catch (e) {
    throw new TRPCClientError(`POST ${BLOB_PATH} got no answer`, { cause: e instanceof Error ? e : new Error(String(e)) });
  }
  const body = (await res.json().catch(() => null)) as { sha256?: string; error?: { code?: string; message?: string } } | null;
  if (res.ok && typeof body?.sha256 === "string") return { sha256: body.sha256 };
  throw httpFailure(`POST ${BLOB_PATH}`, res, body?.error);
}

export interface BlobRead {
  mime: string;
  /** Bytes in the body, when the API said (it does when it streams from its store). */
  size: number | null;
  /** The bytes as they arrive: read them as a stream, nothing is held here. */
  body: ReadableStream<Uint8Array>;
}

/**
 * A blob's bytes, streamed by GET /blobs/<sha256>: one the caller's workspace stored, or with `share` (a share link's
 * token) one its run shows. A blob that does not exist or is not the caller's is NOT_FOUND; one the retention
 * deleted is GONE.
 */
export async function readBlob(client: ApiClient, sha256: string, opts: { share?: string } = {}): Promise<BlobRead> {
  const { apiUrl, fetch } = transportOf(client);
  const what = `GET ${BLOB_PATH}/${sha256}`;
  let res: Response;
  try {
    res = await fetch(blobUrl(apiUrl, sha256, opts.share), { method: "GET" });
  } catch (e) {
    throw new TRPCClientError(`${what} got no answer`, { cause: e instanceof Error ? e : new Error(String(e)) });
  }
  if (!res.ok || !res.body) throw httpFailure(what, res, { message: (await res.text().catch(() => "")).trim() });
  const length = res.headers.get("content-length");
  return { mime: res.headers.get("content-type") ?? "application/octet-stream", size: length === null ? null : Number(length), body: res.body };
}
