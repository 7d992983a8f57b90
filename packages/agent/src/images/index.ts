// Screenshot preparation shared by every Images implementation: one decode, a downscale for the model, a pHash.
import type { DecodedImage, EncodedImage, Images } from "../ports.ts";
import { PHASH_SIZE, phash } from "../detectors/phash.ts";
import { blockSignature } from "../detectors/blocks.ts";
import { darkShare } from "./dark.ts";

export function fitLongSide(width: number, height: number, longSide: number): { width: number; height: number } {
  const long = Math.max(width, height);
  if (long <= longSide) return { width, height };
  const k = longSide / long;
  return { width: Math.max(1, Math.round(width * k)), height: Math.max(1, Math.round(height * k)) };
}

export interface PreparedScreenshot {
  forModel: EncodedImage;
  phash: string;
  /** Block luminance signature (detectors/blocks.ts): tells small image changes the pHash misses. */
  blocks: string;
  /** The share of the frame's luminance samples that are black (images/dark.ts): 1 for a black screenshot. */
  dark: number;
  width: number;
  height: number;
}

export interface PrepareOptions {
  /** Long side of the image sent to the model, px (default 1024). */
  longSide?: number;
  mime?: EncodedImage["mime"];
  quality?: number;
}

/** A decoded, downscaled and hashed frame, not yet encoded for the model (frames that only settle skip encoding). */
export interface HashedFrame {
  small: DecodedImage;
  phash: string;
  blocks: string;
  dark: number;
  width: number;
  height: number;
}

export async function hashFrame(images: Images, png: Uint8Array, longSide = 1024): Promise<HashedFrame> {
  const img = await images.decode(png);
  const size = fitLongSide(img.width, img.height, longSide);
  const small = size.width === img.width && size.height === img.height ? img : await images.resize(img, size.width, size.height);
  const gray = await images.grayscale(small, PHASH_SIZE, PHASH_SIZE);
  return { small, phash: phash(gray), blocks: blockSignature(gray), dark: darkShare(gray), width: img.width, height: img.height };
}

export async function encodeFrame(images: Images, frame: HashedFrame, opts: PrepareOptions = {}): Promise<PreparedScreenshot> {
  const forModel = await images.encode(frame.small, opts.mime ?? "image/jpeg", opts.quality ?? 0.8);
  return { forModel, phash: frame.phash, blocks: frame.blocks, dark: frame.dark, width: frame.width, height: frame.height };
}

export async function prepareScreenshot(images: Images, png: Uint8Array, opts: PrepareOptions = {}): Promise<PreparedScreenshot> {
  return encodeFrame(images, await hashFrame(images, png, opts.longSide ?? 1024), opts);
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Base64 with a lookup table: works in the tab and in Node, and is ~30× faster than btoa over char codes. */
export function toBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  const n = bytes.length;
  const full = n - (n % 3);
  let chunk = "";
  for (let i = 0; i < full; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    chunk += B64[v >> 18]! + B64[(v >> 12) & 63]! + B64[(v >> 6) & 63]! + B64[v & 63]!;
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = "";
    }
  }
  if (n - full === 1) {
    const v = bytes[full]! << 16;
    chunk += B64[v >> 18]! + B64[(v >> 12) & 63]! + "==";
  } else if (n - full === 2) {
    const v = (bytes[full]! << 16) | (bytes[full + 1]! << 8);
    chunk += B64[v >> 18]! + B64[(v >> 12) & 63]! + B64[(v >> 6) & 63]! + "=";
  }
  parts.push(chunk);
  return parts.join("");
}
