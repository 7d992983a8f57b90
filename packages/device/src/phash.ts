// Perceptual hash (DCT pHash): grayscale → 32×32 area-average → 2-D DCT-II → 8×8 lowest frequencies → bit per
// coefficient above their median (DC excluded from the median). 64 bits as 16 hex characters.
import { decodePngThumbnail, type GrayImage } from "./png.ts";

/** Side of the luminance grid the hash is computed on. */
export const PHASH_SIZE = 32;
const SIZE = PHASH_SIZE;
const LOW = 8;

/** Area-average downscale to SIZE×SIZE (each output pixel averages every source pixel it covers). */
export function downscaleGray(img: GrayImage, size = SIZE): Float64Array {
  const { width, height, data } = img;
  if (width === 0 || height === 0) return new Float64Array(size * size);
  const out = new Float64Array(size * size);
  const count = new Float64Array(size * size);
  for (let y = 0; y < height; y++) {
    const oy = Math.min(size - 1, Math.floor((y * size) / height));
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const o = oy * size + Math.min(size - 1, Math.floor((x * size) / width));
      out[o]! += data[row + x]!;
      count[o]! += 1;
    }
  }
  for (let i = 0; i < out.length; i++) out[i] = count[i]! > 0 ? out[i]! / count[i]! : 0;
  return out;
}

const COS = (() => {
  const table = new Float64Array(SIZE * SIZE);
  for (let u = 0; u < SIZE; u++) for (let x = 0; x < SIZE; x++) table[u * SIZE + x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * SIZE));
  return table;
})();

/** The LOW×LOW lowest-frequency coefficients of the 2-D DCT-II of a SIZE×SIZE block. */
export function dctLowFrequencies(pixels: Float64Array): Float64Array {
  // Separable: rows first (only the LOW lowest u are needed), then columns.
  const rows = new Float64Array(SIZE * LOW);
  for (let y = 0; y < SIZE; y++) {
    for (let u = 0; u < LOW; u++) {
      let s = 0;
      for (let x = 0; x < SIZE; x++) s += pixels[y * SIZE + x]! * COS[u * SIZE + x]!;
      rows[y * LOW + u] = s;
    }
  }
  const out = new Float64Array(LOW * LOW);
  for (let v = 0; v < LOW; v++) {
    for (let u = 0; u < LOW; u++) {
      let s = 0;
      for (let y = 0; y < SIZE; y++) s += rows[y * LOW + u]! * COS[v * SIZE + y]!;
      out[v * LOW + u] = s;
    }
  }
  return out;
}

export function phashGray(img: GrayImage): string {
  return phashCells(downscaleGray(img));
}

/** pHash of a SIZE×SIZE grid of mean luma (from downscaleGray or decodePngThumbnail). */
export function phashCells(cells: Float64Array): string {
  const coeffs = dctLowFrequencies(cells);
  const ac = Array.from(coeffs.subarray(1)).sort((a, b) => a - b);
  // Flat UI screens have many near-zero coefficients: a tiny margin keeps float noise from flipping their bits.
  const eps = 1e-6 * Math.max(Math.abs(ac[0]!), Math.abs(ac[ac.length - 1]!));
  const median = (ac[(ac.length - 1) >> 1]! + ac[ac.length >> 1]!) / 2 + eps;
  let hex = "";
  for (let nibble = 0; nibble < 16; nibble++) {
    let v = 0;
    for (let bit = 0; bit < 4; bit++) v = (v << 1) | (coeffs[nibble * 4 + bit]! > median ? 1 : 0);
    hex += v.toString(16);
  }
  return hex;
}

export async function phashPng(png: Uint8Array): Promise<string> {
  return phashCells((await decodePngThumbnail(png, SIZE)).cells);
}

const POPCOUNT = Array.from({ length: 16 }, (_, i) => ((i >> 3) & 1) + ((i >> 2) & 1) + ((i >> 1) & 1) + (i & 1));

/** Number of differing bits between two hashes from `phashGray`. */
export function hammingDistance(a: string, b: string): number {
  if (a.length !== b.length) throw new RangeError("hashes differ in length");
  let d = 0;
  for (let i = 0; i < a.length; i++) d += POPCOUNT[parseInt(a[i]!, 16) ^ parseInt(b[i]!, 16)]!;
  return d;
}
