// A finer image signature than the 64-bit pHash: the mean luminance of a 16×16 grid of blocks over the screen.
// A counter's digit or a small icon moves a block by several levels while the pHash keeps every bit; a blinking
// cursor moves it by less than the tolerance. The top row (status bar: its clock ticks) is not compared.
import type { GrayImage } from "../ports.ts";

export const BLOCK_GRID = 16;
/** Luma levels (0–255) a block may move and still count as unchanged. */
export const BLOCK_TOLERANCE = 6;

/** Two hex digits per block, row by row, from a luminance thumbnail (any size ≥ the grid). */
export function blockSignature(gray: GrayImage): string {
  const { width, height, data } = gray;
  const sums = new Float64Array(BLOCK_GRID * BLOCK_GRID);
  const counts = new Float64Array(BLOCK_GRID * BLOCK_GRID);
  for (let y = 0; y < height; y++) {
    const by = Math.min(BLOCK_GRID - 1, Math.floor((y * BLOCK_GRID) / height));
    for (let x = 0; x < width; x++) {
      const b = by * BLOCK_GRID + Math.min(BLOCK_GRID - 1, Math.floor((x * BLOCK_GRID) / width));
      sums[b]! += data[y * width + x]!;
      counts[b]! += 1;
    }
  }
  let hex = "";
  for (let i = 0; i < sums.length; i++) hex += Math.round(counts[i]! ? sums[i]! / counts[i]! : 0).toString(16).padStart(2, "0");
  return hex;
}

/** Whether two signatures differ by more than the tolerance in any block below the status bar. */
export function blocksChanged(a: string, b: string, tolerance = BLOCK_TOLERANCE): boolean {
  if (a.length !== b.length) return true;
  for (let i = BLOCK_GRID * 2; i < a.length; i += 2) if (Math.abs(parseInt(a.slice(i, i + 2), 16) - parseInt(b.slice(i, i + 2), 16)) > tolerance) return true;
  return false;
}
