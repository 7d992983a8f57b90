// Screenshot preparation shared by every Images implementation: one decode, a downscale for the model, a pHash.
import type { EncodedImage, Images } from "../ports.ts";
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

export async function prepareScreenshot(images: Images, png: Uint8Array, opts: PrepareOptions = {}): Promise<PreparedScreenshot> {
  const img = await images.decode(png);
  const size = fitLongSide(img.width, img.height, opts.longSide ?? 1024);
  const small = size.width === img.width && size.height === img.height ? img : await images.resize(img, size.width, size.height);
  const [forModel, gray] = await Promise.all([
    images.encode(small, opts.mime ?? "image/jpeg", opts.quality ?? 0.8),
    images.grayscale(small, PHASH_SIZE, PHASH_SIZE),
  ]);
  return { forModel, phash: phash(gray), width: img.width, height: img.height };
}

export function toBase64(bytes: Uint8Array): string {
  // btoa exists in browsers and Node ≥ 16; chunked to stay within argument limits.
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
