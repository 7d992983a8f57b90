// PNG reading for screenshots: the header, pixels as 8-bit grayscale, and an area-averaged gray thumbnail for
// perceptual hashing. Decoding is fast-png's (pure JS, so the same code runs in a browser tab and in Node).
import { convertIndexedToRgb, decode, hasPngSignature } from "fast-png";

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

export interface GrayImage {
  width: number;
  height: number;
  /** One byte per pixel, row-major, luma (BT.601) composited over black for alpha. */
  data: Uint8Array;
}

export class PngDecodeError extends Error {
  override name = "PngDecodeError";
}

/** Whether two byte strings are equal: an unchanged screen gives byte-identical PNGs, so frames compare without decoding. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && hasPngSignature(bytes.subarray(0, 8));
}

/** Reads IHDR only: fast-png has no header-only mode, and learning the size must not inflate every pixel. */
export function readPngHeader(bytes: Uint8Array): PngHeader {
  if (!isPng(bytes)) throw new PngDecodeError("Not a PNG (bad signature)");
  if (bytes.length < 33 || String.fromCharCode(...bytes.subarray(12, 16)) !== "IHDR") throw new PngDecodeError("PNG has no IHDR chunk");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20), bitDepth: bytes[24]!, colorType: bytes[25]!, interlace: bytes[28]! };
}

/** 8-bit samples, `channels` per pixel: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA. */
interface Pixels {
  width: number;
  height: number;
  channels: number;
  data: Uint8Array;
}

function decodePixels(bytes: Uint8Array): Pixels {
  if (!isPng(bytes)) throw new PngDecodeError("Not a PNG (bad signature)");
  let png: ReturnType<typeof decode>;
  try {
    png = decode(bytes);
  } catch (e) {
    throw new PngDecodeError(`PNG is corrupt or truncated: ${(e as Error).message}`, { cause: e });
  }
  const { width, height, depth } = png;
  if (png.palette) {
    const data = convertIndexedToRgb(png);
    return { width, height, channels: png.palette[0]?.length ?? 3, data };
  }
  const channels = png.channels;
  if (depth === 8) return { width, height, channels, data: png.data as Uint8Array };
  const out = new Uint8Array(width * height * channels);
  if (depth === 16) {
    const src = png.data as Uint16Array;
    for (let i = 0; i < out.length; i++) out[i] = src[i]! >> 8;
    return { width, height, channels, data: out };
  }
  // Gray at 1, 2 or 4 bits: rows are packed and start on a byte boundary.
  const src = png.data as Uint8Array;
  const stride = Math.ceil((width * depth) / 8);
  const perByte = 8 / depth;
  const scale = 255 / ((1 << depth) - 1);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const byte = src[y * stride + Math.floor(x / perByte)]!;
      const shift = 8 - depth * ((x % perByte) + 1);
      out[y * width + x] = Math.round(((byte >> shift) & ((1 << depth) - 1)) * scale);
    }
  }
  return { width, height, channels: 1, data: out };
}

/** BT.601 luma of pixel `p`, composited over black for alpha. */
function lumaAt(data: Uint8Array, channels: number, p: number): number {
  const i = p * channels;
  switch (channels) {
    case 1:
      return data[i]!;
    case 2:
      return (data[i]! * data[i + 1]!) / 255;
    case 3:
      return 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
    default:
      return ((0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!) * data[i + 3]!) / 255;
  }
}

export async function decodePngGray(bytes: Uint8Array): Promise<GrayImage> {
  const { width, height, channels, data } = decodePixels(bytes);
  const gray = new Uint8Array(width * height);
  for (let p = 0; p < gray.length; p++) gray[p] = Math.round(lumaAt(data, channels, p));
  return { width, height, data: gray };
}

/**
 * The image as a size×size grid of mean luma (0–255). By default each cell averages a regular sample of about
 * 8×8 of the pixels it covers (plenty for a 32×32 perceptual hash); `exact` averages every pixel.
 */
export async function decodePngThumbnail(
  bytes: Uint8Array,
  size = 32,
  opts: { exact?: boolean } = {},
): Promise<{ width: number; height: number; cells: Float64Array }> {
  const { width, height, channels, data } = decodePixels(bytes);
  const rowStep = opts.exact ? 1 : Math.max(1, Math.floor(height / (size * 8)));
  const colStep = opts.exact ? 1 : Math.max(1, Math.floor(width / (size * 8)));
  const sums = new Float64Array(size * size);
  const counts = new Float64Array(size * size);
  const xCell = new Int32Array(width);
  for (let x = 0; x < width; x++) xCell[x] = Math.min(size - 1, Math.floor((x * size) / width));
  for (let y = 0; y < height; y += rowStep) {
    const rowBase = Math.min(size - 1, Math.floor((y * size) / height)) * size;
    for (let x = 0; x < width; x += colStep) {
      const c = rowBase + xCell[x]!;
      sums[c]! += lumaAt(data, channels, y * width + x);
      counts[c]! += 1;
    }
  }
  const cells = new Float64Array(size * size);
  for (let i = 0; i < cells.length; i++) cells[i] = counts[i]! > 0 ? sums[i]! / counts[i]! : 0;
  return { width, height, cells };
}
