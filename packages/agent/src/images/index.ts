// Screenshot preparation shared by every Images implementation: one decode, a downscale for the model, a pHash.
import type { DecodedImage, EncodedImage, Images } from "../ports.ts";
import { PHASH_SIZE, phash } from "../detectors/phash.ts";

export function fitLongSide(width: number, height: number, longSide: number): { width: number; height: number } {
  const long = Math.max(width, height);
  if (long <= longSide) return { width, height };
  const k = longSide / long;
  return { width: Math.max(1, Math.round(width * k)), height: Math.max(1, Math.round(height * k)) };
}

export interface PreparedScreenshot {
  forModel: EncodedImage;
  phash: string;
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
  width: number;
  height: number;
}

export async function hashFrame(images: Images, png: Uint8Array, longSide = 1024): Promise<HashedFrame> {
  const img = await images.decode(png);
  const size = fitLongSide(img.width, img.height, longSide);
  const small = size.width === img.width && size.height === img.height ? img : await images.resize(img, size.width, size.height);
  const gray = await images.grayscale(small, PHASH_SIZE, PHASH_SIZE);
  return { small, phash: phash(gray), width: img.width, height: img.height };
}

export async function encodeFrame(images: Images, frame: HashedFrame, opts: PrepareOptions = {}): Promise<PreparedScreenshot> {
  const forModel = await images.encode(frame.small, opts.mime ?? "image/jpeg", opts.quality ?? 0.8);
  return { forModel, phash: frame.phash, width: frame.width, height: frame.height };
}

export async function prepareScreenshot(images: Images, png: Uint8Array, opts: PrepareOptions = {}): Promise<PreparedScreenshot> {
  return encodeFrame(images, await hashFrame(images, png, opts.longSide ?? 1024), opts);
}

export function toBase64(bytes: Uint8Array): string {
  // btoa exists in browsers and Node ≥ 16; chunked to stay within argument limits.
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
