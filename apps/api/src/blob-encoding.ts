// What an uploaded screenshot is stored as. Every upload is decoded whole (sharp), so what is stored is an image of
// the type it claims that decodes to its last row (a truncated JPEG or PNG is refused), of a bounded size, with no
// metadata: EXIF (GPS, camera, dates), XMP, ICC profiles and text chunks never reach the blob store.
//   - A PNG is stored as WebP (a fraction of the size; replays need not be pixel-exact) unless the uploader asks for
//     its exact pixels (`?exact=1`, e.g. a screen a detector compares bit for bit later): then it is stored as the
//     PNG it is with only the chunks that make its pixels kept.
//   - A JPEG or WebP (already compressed: compressing again only loses quality) is stored as it is with only the
//     chunks that make its pixels kept, in every mode; so a clean one is stored byte for byte.
// Metadata is left out by image-metadata.ts, which walks each container's chunks. The result is deterministic: the
// same frame uploaded twice is the same bytes, stored once under one sha256.
//
// Decoding is bounded three ways, so uploads cannot stall the API for others: by the pixels the header declares
// (read before anything is decoded: over MAX_BLOB_PIXELS is a 413), by time (DECODE_TIMEOUT_S), and by how many
// decode at once API-wide (DECODES_AT_ONCE, each on one of sharp's threads, off the event loop: one core stays for
// it and the libuv pool keeps free threads for everything else). blob-route.ts adds the per-caller limit.
import { availableParallelism } from "node:os";
import pLimit from "p-limit";
import sharp, { type Metadata } from "sharp";
import { jpegWithoutMetadata, pngWithoutMetadata, webpWithoutMetadata } from "./image-metadata.ts";

/** The image types a blob may be: the ones a browser shows and the agent produces (no SVG: it could run script). */
export const BLOB_MIMES = ["image/png", "image/jpeg", "image/webp"] as const;
export type BlobMime = (typeof BLOB_MIMES)[number];

/** The pixels an upload may declare: 4096 × 4096 (a phone's screenshot is under 5 million). */
export const MAX_BLOB_PIXELS = 4096 * 4096;
/** A decode and re-encode that takes longer than this is abandoned (a screenshot takes well under a second). */
export const DECODE_TIMEOUT_S = 10;
/** Images decoded at once in this process: one per core but one, which stays for the event loop. */
export const DECODES_AT_ONCE = Math.max(1, availableParallelism() - 1);
/** WebP quality for screenshots stored from PNG: text stays legible, a 1080×2400 screen is ~100 KB. */
export const SCREENSHOT_WEBP_QUALITY = 80;

const FORMAT_OF: Record<BlobMime, string> = { "image/png": "png", "image/jpeg": "jpeg", "image/webp": "webp" };
const WITHOUT_METADATA: Record<BlobMime, (bytes: Buffer) => Buffer> = { "image/png": pngWithoutMetadata, "image/jpeg": jpegWithoutMetadata, "image/webp": webpWithoutMetadata };

// Each image on one thread: DECODES_AT_ONCE images use that many threads, not all of them each.
sharp.concurrency(1);
const decoding = pLimit(DECODES_AT_ONCE);

export class BlobEncodingError extends Error {
  override readonly name = "BlobEncodingError";
  /** 400: not the image it claims, or not whole; 413: more pixels, or more decoding time, than a blob may take. */
  constructor(
    message: string,
    readonly status: 400 | 413 = 400,
  ) {
    super(message);
  }
}

export function isBlobMime(mime: string): mime is BlobMime {
  return (BLOB_MIMES as readonly string[]).includes(mime);
}

/** The bytes to store for an upload of `mime`, and their type. Throws BlobEncodingError when they may not be stored. */
export async function encodeForStorage(bytes: Buffer, mime: BlobMime, opts: { exact: boolean }): Promise<{ bytes: Buffer; mime: BlobMime }> {
  let header: Metadata;
  try {
    // The header only: nothing is decoded yet.
    header = await sharp(bytes).metadata();
  } catch {
    throw new BlobEncodingError(`The body is not a readable ${mime} image; send the screenshot's bytes as they were saved.`);
  }
  if (header.format !== FORMAT_OF[mime]) {
    throw new BlobEncodingError(`The body is ${header.format ? `a ${header.format} image` : "no image"}, not ${mime} as its Content-Type says; send the matching Content-Type.`);
  }
  const pixels = (header.width ?? 0) * (header.height ?? 0) * Math.max(1, header.pages ?? 1);
  if (pixels > MAX_BLOB_PIXELS) {
    throw new BlobEncodingError(`The image declares ${header.width}×${header.height}${(header.pages ?? 1) > 1 ? ` × ${header.pages} frames` : ""} pixels, more than a blob may have (${MAX_BLOB_PIXELS.toLocaleString("en")}, 4096×4096): scale the screenshot down.`, 413);
  }
  const toWebp = mime === "image/png" && !opts.exact;
  return decoding(async () => {
    // A decode that only proves the image whole skips its colour profile: converting every pixel to sRGB through it
    // (lcms) cost three times the decode itself (a canvas's JPEG of a screen carries one), for pixels thrown away.
    const image = sharp(bytes, { limitInputPixels: MAX_BLOB_PIXELS, failOn: "truncated", ignoreIcc: !toWebp }).timeout({ seconds: DECODE_TIMEOUT_S });
    try {
      if (toWebp) return { bytes: await image.webp({ quality: SCREENSHOT_WEBP_QUALITY }).toBuffer(), mime: "image/webp" };
      // Decoded whole to prove it is whole; what is stored is its own pixels, without its metadata chunks.
      await image.raw().toBuffer();
      return { bytes: WITHOUT_METADATA[mime](bytes), mime };
    } catch (e) {
      if (/timeout/i.test((e as Error).message)) {
        throw new BlobEncodingError(`The image took more than ${DECODE_TIMEOUT_S} s to decode; send a smaller screenshot.`, 413);
      }
      throw new BlobEncodingError(`The ${FORMAT_OF[mime].toUpperCase()} does not decode whole (it is truncated or damaged: ${(e as Error).message.split("\n")[0]}); upload the complete file.`);
    }
  });
}
