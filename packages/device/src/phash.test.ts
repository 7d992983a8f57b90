import { describe, expect, it } from "vitest";
import { hammingDistance, phashGray, phashPng } from "./phash.ts";
import { encode } from "fast-png";

function screen(w: number, h: number, draw: (x: number, y: number) => number) {
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data[y * w + x] = draw(x, y);
  return { width: w, height: h, data };
}

// A feed screen: dark app bar, search box, three cards with an image block each.
const list = (x: number, y: number) => {
  if (y < 200) return 30;
  if (y < 320) return x > 40 && x < 1040 ? 200 : 240;
  const card = Math.floor((y - 360) / 640);
  const inCard = (y - 360) % 640;
  if (card < 0 || card > 2 || inCard > 600) return 240;
  return x > 60 && x < 400 && inCard > 40 && inCard < 380 ? 90 + card * 40 : 250;
};
const grid = (x: number, y: number) => ((Math.floor(x / 180) + Math.floor(y / 300)) % 2 ? 250 : 10);

describe("phash", () => {
  it("is 64 bits of hex and identical for identical screens", () => {
    const a = phashGray(screen(108, 240, list));
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(phashGray(screen(108, 240, list))).toBe(a);
  });

  it("tolerates small noise and rescaling but separates different layouts", () => {
    const base = phashGray(screen(540, 1200, (x, y) => list(x * 2, y * 2)));
    const noisy = phashGray(screen(540, 1200, (x, y) => Math.min(255, list(x * 2, y * 2) + ((x * 7 + y * 13) % 9))));
    const scaled = phashGray(screen(270, 600, (x, y) => list(x * 4, y * 4)));
    const other = phashGray(screen(540, 1200, (x, y) => grid(x * 2, y * 2)));
    expect(hammingDistance(base, noisy)).toBeLessThanOrEqual(4);
    expect(hammingDistance(base, scaled)).toBeLessThanOrEqual(6);
    expect(hammingDistance(base, other)).toBeGreaterThan(12);
  });

  it("hashes PNG bytes the same as the decoded pixels", async () => {
    const img = screen(64, 128, grid);
    const png = encode({ width: 64, height: 128, data: img.data, channels: 1 });
    expect(await phashPng(png)).toBe(phashGray(img));
  });

  it("counts differing bits", () => {
    expect(hammingDistance("0000000000000000", "000000000000000f")).toBe(4);
    expect(hammingDistance("ffffffffffffffff", "0000000000000000")).toBe(64);
    expect(() => hammingDistance("00", "000")).toThrow(RangeError);
  });
});
