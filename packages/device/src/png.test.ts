import { encode } from "fast-png";
import { describe, expect, it } from "vitest";
import { decodePngGray, decodePngThumbnail, isPng, PngDecodeError, readPngHeader } from "./png.ts";
import { downscaleGray } from "./phash.ts";

function noise(length: number, seed = 7, alphaEvery = 0): Uint8Array {
  const px = new Uint8Array(length);
  let s = seed;
  for (let i = 0; i < px.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    px[i] = alphaEvery && i % alphaEvery === alphaEvery - 1 ? 255 : s & 0xff;
  }
  return px;
}

const luma = (r: number, g: number, b: number, a = 255) => Math.round(((0.299 * r + 0.587 * g + 0.114 * b) * a) / 255);

describe("png", () => {
  it("reads the header without decoding the pixels", () => {
    const png = encode({ width: 5, height: 3, data: noise(5 * 3 * 4), channels: 4 });
    expect(isPng(png)).toBe(true);
    expect(readPngHeader(png)).toEqual({ width: 5, height: 3, bitDepth: 8, colorType: 6, interlace: 0 });
  });

  it("decodes RGBA (alpha composited over black) to BT.601 luma", async () => {
    const w = 17, h = 11;
    const px = noise(w * h * 4);
    const img = await decodePngGray(encode({ width: w, height: h, data: px, channels: 4 }));
    expect(img).toMatchObject({ width: w, height: h });
    for (let i = 0; i < w * h; i++) expect(img.data[i]).toBe(luma(px[i * 4]!, px[i * 4 + 1]!, px[i * 4 + 2]!, px[i * 4 + 3]!));
  });

  it("decodes RGB and 8-bit grayscale", async () => {
    const w = 9, h = 6;
    const rgb = noise(w * h * 3);
    const a = await decodePngGray(encode({ width: w, height: h, data: rgb, channels: 3 }));
    for (let i = 0; i < w * h; i++) expect(a.data[i]).toBe(luma(rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!));
    const gray = noise(w * h, 3);
    const b = await decodePngGray(encode({ width: w, height: h, data: gray, channels: 1 }));
    expect(Array.from(b.data)).toEqual(Array.from(gray));
  });

  it("decodes 16-bit RGBA by its high bytes", async () => {
    const w = 4, h = 3;
    const px = new Uint16Array(w * h * 4);
    for (let i = 0; i < px.length; i++) px[i] = i % 4 === 3 ? 0xffff : (i * 4099) & 0xffff;
    const img = await decodePngGray(encode({ width: w, height: h, data: px, channels: 4, depth: 16 }));
    for (let i = 0; i < w * h; i++) expect(img.data[i]).toBe(luma(px[i * 4]! >> 8, px[i * 4 + 1]! >> 8, px[i * 4 + 2]! >> 8));
  });

  it("decodes a palette image with transparency", async () => {
    // Opaque entries last: fast-png's encoder writes tRNS only for the translucent ones, in order.
    const palette = [[0, 0, 255, 128], [255, 255, 255, 0], [255, 0, 0, 255]];
    const indices = new Uint8Array([0, 1, 2, 1, 0, 2]);
    const img = await decodePngGray(encode({ width: 3, height: 2, data: indices, channels: 1, depth: 8, palette }));
    expect(Array.from(img.data)).toEqual(Array.from(indices, (i) => luma(palette[i]![0]!, palette[i]![1]!, palette[i]![2]!, palette[i]![3]!)));
  });

  it("thumbnails to the same cell means as downscaling the full gray image", async () => {
    const w = 123, h = 77;
    const png = encode({ width: w, height: h, data: noise(w * h * 4, 3, 4), channels: 4 });
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
    const png = encode({ width: w, height: h, data: px, channels: 4 });
    const sampled = await decodePngThumbnail(png, 32);
    const exact = await decodePngThumbnail(png, 32, { exact: true });
    for (let i = 0; i < exact.cells.length; i++) expect(Math.abs(sampled.cells[i]! - exact.cells[i]!)).toBeLessThan(12);
  });

  it("rejects non-PNG input and a cut-off PNG with a PngDecodeError", async () => {
    await expect(decodePngGray(new TextEncoder().encode("error: no display"))).rejects.toBeInstanceOf(PngDecodeError);
    const png = encode({ width: 40, height: 40, data: noise(40 * 40 * 4), channels: 4 });
    await expect(decodePngThumbnail(png.subarray(0, png.length >> 1))).rejects.toBeInstanceOf(PngDecodeError);
    expect(() => readPngHeader(png.subarray(0, 20))).toThrow(PngDecodeError);
  });
});
