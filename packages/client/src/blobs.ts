// Blob uploads: the raw bytes in the body of POST /blobs (never base64 inside JSON), with the client's credentials.
// The API computes the sha256, stores the image (a PNG as WebP unless `exact`) and answers with it. A failure is
// thrown as the tRPC client's error with the same data a procedure's failure has, so the ControlPlane retries and
// reports it like any call (retry.ts, errors.ts): no answer or a 5xx is retried, a 4xx is not.
import { TRPCClientError } from "@trpc/client";
import { BLOB_PATH } from "@phoneloop/api/contract";
import { transportOf, type ApiClient } from "./api-client.ts";

export interface BlobUpload {
  bytes: Uint8Array;
  /** image/png, image/jpeg or image/webp (the API refuses anything else with UNSUPPORTED_MEDIA_TYPE). */
  mime: string;
  /** Keep a PNG's exact pixels (default: a PNG is stored as WebP; screenshots need not be pixel-exact). */
  exact?: boolean;
}

/** HTTP statuses as the tRPC error codes a procedure would have answered with. */
const CODE_OF: Record<number, string> = { 400: "BAD_REQUEST", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE" };

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
  const code = body?.error?.code ?? CODE_OF[res.status] ?? (res.status >= 500 ? "INTERNAL_SERVER_ERROR" : "BAD_REQUEST");
  const message = body?.error?.message ?? `POST ${BLOB_PATH} answered ${res.status}.`;
  throw TRPCClientError.from({ error: { message, code: -32000, data: { code, httpStatus: res.status, stateCode: code } } });
}
