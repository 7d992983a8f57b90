// A real DCT perceptual hash (pHash): 32×32 luminance → 2-D DCT-II → the 8×8 lowest frequencies
// (DC excluded from the median) → 64 bits, as 16 hex characters.
import type { GrayImage } from "../ports.ts";

export const PHASH_SIZE = 32;
const LOW = 8;

const COS: Float64Array = (() => {
  const t = new Float64Array(PHASH_SIZE * PHASH_SIZE);
  for (let u = 0; u < PHASH_SIZE; u++)
    for (let x = 0; x < PHASH_SIZE; x++) t[u * PHASH_SIZE + x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * PHASH_SIZE));
  return t;
})();

export function phash(img: GrayImage): string {
  if (img.width !== PHASH_SIZE || img.height !== PHASH_SIZE) throw new Error(`phash needs a ${PHASH_SIZE}×${PHASH_SIZE} image`);
  const N = PHASH_SIZE;
  // Separable DCT, only the LOW×LOW coefficients we need: rows first, then columns.
  const rows = new Float64Array(N * LOW); // [y][u]
  for (let y = 0; y < N; y++)
    for (let u = 0; u < LOW; u++) {
      let s = 0;
      for (let x = 0; x < N; x++) s += img.data[y * N + x]! * COS[u * N + x]!;
      rows[y * LOW + u] = s;
    }
  const coeffs = new Float64Array(LOW * LOW); // [v][u]
  for (let v = 0; v < LOW; v++)
    for (let u = 0; u < LOW; u++) {
      let s = 0;
      for (let y = 0; y < N; y++) s += rows[y * LOW + u]! * COS[v * N + y]!;
      coeffs[v * LOW + u] = s;
    }
  const ac = Array.from(coeffs.slice(1)).sort((a, b) => a - b);
  // Flat UI screens have many (near-)zero coefficients: a tiny margin keeps float noise from flipping their bits.
  const eps = 1e-6 * Math.max(Math.abs(ac[0]!), Math.abs(ac[62]!));
  const median = (ac[31]! + ac[32]!) / 2 + eps;
  let hex = "";
  for (let nib = 0; nib < 16; nib++) {
    let n = 0;
    for (let b = 0; b < 4; b++) n = (n << 1) | (coeffs[nib * 4 + b]! > median ? 1 : 0);
    hex += n.toString(16);
  }
  return hex;
}

export function hammingDistance(a: string, b: string): number {
  let d = 0;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    let x = (parseInt(a[i] ?? "0", 16) ^ parseInt(b[i] ?? "0", 16)) & 0xf;
    while (x) {
      d += x & 1;
      x >>= 1;
    }
  }
  return d;
}
