// What an uploaded screenshot is stored as. A replay screenshot need not be pixel-exact: a PNG upload is stored as
// WebP (a fraction of the size), unless the uploader asks for the exact pixels (`?exact=1`, e.g. a screen a
// detector must compare bit for bit later). JPEG and WebP are stored as sent. Every upload is decoded once (sharp),
// so what is stored is an image of the type it claims, of a bounded size, with its metadata (EXIF, GPS) dropped.
// The encoding is deterministic: the same frame uploaded twice is the same bytes, stored once under one sha256.
import sharp from "sharp";

/** The image types a blob may be: the ones a browser shows and the agent produces (no SVG: it could run script). */
export const BLOB_MIMES = ["image/png", "image/jpeg", "image/webp"] as const;
export type BlobMime = (typeof BLOB_MIMES)[number];

/** Decoding stops past this many pixels (a 16 MiB PNG may decompress to gigabytes). */
export const MAX_BLOB_PIXELS = 40_000_000;
/** WebP quality for screenshots stored from PNG: text stays legible, a 1080×2400 screen is ~100 KB. */
export const SCREENSHOT_WEBP_QUALITY = 80;

const FORMAT_OF: Record<BlobMime, string> = { "image/png": "png", "image/jpeg": "jpeg", "image/webp": "webp" };

export class BlobEncodingError extends Error {
  override readonly name = "BlobEncodingError";
}

export function isBlobMime(mime: string): mime is BlobMime {
  return (BLOB_MIMES as readonly string[]).includes(mime);
}

/** The bytes to store for an upload of `mime`, and their type. Throws BlobEncodingError when they are not that image. */
export async function encodeForStorage(bytes: Buffer, mime: BlobMime, opts: { exact: boolean }): Promise<{ bytes: Buffer; mime: BlobMime }> {
  const image = sharp(bytes, { limitInputPixels: MAX_BLOB_PIXELS, failOn: "error" });
  let format: string | undefined;
  try {
    format = (await image.metadata()).format;
  } catch {
    throw new BlobEncodingError(`The body is not a readable ${mime} image (or it has more than ${MAX_BLOB_PIXELS} pixels).`);
  }
  if (format !== FORMAT_OF[mime]) {
    throw new BlobEncodingError(`The body is ${format ? `a ${format} image` : "no image"}, not ${mime} as its Content-Type says; send the matching Content-Type.`);
  }
  if (mime !== "image/png" || opts.exact) return { bytes, mime };
  try {
    return { bytes: await image.webp({ quality: SCREENSHOT_WEBP_QUALITY }).toBuffer(), mime: "image/webp" };
  } catch {
    throw new BlobEncodingError(`The PNG could not be decoded (or it has more than ${MAX_BLOB_PIXELS} pixels).`);
  }
}
