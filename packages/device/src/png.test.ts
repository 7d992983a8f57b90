import { describe, expect, it } from "vitest";
import { decodePngGray, decodePngThumbnail, isPng, PngDecodeError, readPngHeader } from "./png.ts";
import { downscaleGray } from "./phash.ts";
import { encodePng } from "./testing/png-encode.ts";

function rgbaNoise(w: number, h: number, seed = 7): Uint8Array {
  const px = new Uint8Array(w * h * 4);
  let s = seed;
  for (let i = 0; i < px.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    px[i] = i % 4 === 3 ? 255 : s & 0xff;
  }
  return px;
}

const luma = (r: number, g: number, b: number, a = 255) => Math.round(((0.299 * r + 0.587 * g + 0.114 * b) * a) / 255);

describe("png", () => {
  it("reads the header", () => {
    const png = encodePng(5, 3, rgbaNoise(5, 3));
    expect(isPng(png)).toBe(true);
    expect(readPngHeader(png)).toMatchObject({ width: 5, height: 3, bitDepth: 8, colorType: 6, interlace: 0 });
  });

  it("decodes RGBA through all five filter types to the same luma as computed directly", async () => {
    const w = 17, h = 11;
    const px = rgbaNoise(w, h);
    const img = await decodePngGray(encodePng(w, h, px));
    expect(img.width).toBe(w);
    expect(img.height).toBe(h);
    for (let i = 0; i < w * h; i++) expect(img.data[i]).toBe(luma(px[i * 4]!, px[i * 4 + 1]!, px[i * 4 + 2]!, px[i * 4 + 3]!));
  });

  it("decodes RGB and grayscale", async () => {
    const w = 9, h = 6;
    const rgb = rgbaNoise(w, h).filter((_, i) => i % 4 !== 3);
    const a = await decodePngGray(encodePng(w, h, rgb, { channels: 3 }));
    for (let i = 0; i < w * h; i++) expect(a.data[i]).toBe(luma(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!));
    const gray = rgb.subarray(0, w * h);
    const b = await decodePngGray(encodePng(w, h, gray, { channels: 1 }));
    expect(Array.from(b.data)).toEqual(Array.from(gray));
  });

  it("thumbnails RGBA to the same cell means as downscaling the full gray image", async () => {
    const w = 123, h = 77;
    const png = encodePng(w, h, rgbaNoise(w, h, 3));
    const thumb = await decodePngThumbnail(png, 32, { exact: true });
    const reference = downscaleGray(await decodePngGray(png), 32);
    expect(thumb).toMatchObject({ width: w, height: h });
    for (let i = 0; i < reference.length; i++) expect(Math.abs(thumb.cells[i]! - reference[i]!)).toBeLessThan(1);
  });

  it("samples a large screen to nearly the same cells", async () => {
    const w = 1080, h = 2400;
    const px = new Uint8Array(w * h * 4);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
      const o = (y * w + x) * 4;
      px[o] = (x * 255) / w; px[o + 1] = (y * 255) / h; px[o + 2] = ((x + y) % 300) < 150 ? 200 : 40; px[o + 3] = 255;
    }
    const png = encodePng(w, h, px, { filter: 4 });
    const sampled = await decodePngThumbnail(png, 32);
    const exact = await decodePngThumbnail(png, 32, { exact: true });
    for (let i = 0; i < exact.cells.length; i++) expect(Math.abs(sampled.cells[i]! - exact.cells[i]!)).toBeLessThan(12);
  });

  it("rejects non-PNG input with a PngDecodeError", async () => {
    await expect(decodePngGray(new TextEncoder().encode("error: no display"))).rejects.toBeInstanceOf(PngDecodeError);
  });
});
