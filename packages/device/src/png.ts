// Minimal PNG reader: header, pixels decoded to 8-bit grayscale, and a fast area-averaged gray thumbnail for
// perceptual hashing. Inflate comes from "#inflate": node:zlib in Node, DecompressionStream in browsers.
import { inflate } from "#inflate";

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

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function u32(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && SIGNATURE.every((v, i) => bytes[i] === v);
}

export function readPngHeader(bytes: Uint8Array): PngHeader {
  if (!isPng(bytes)) throw new PngDecodeError("Not a PNG (bad signature)");
  if (bytes.length < 33 || String.fromCharCode(...bytes.subarray(12, 16)) !== "IHDR") throw new PngDecodeError("PNG has no IHDR chunk");
  return { width: u32(bytes, 16), height: u32(bytes, 20), bitDepth: bytes[24]!, colorType: bytes[25]!, interlace: bytes[28]! };
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

interface DecodedRows {
  header: PngHeader;
  palette: Uint8Array | undefined;
  transparency: Uint8Array | undefined;
  /** Calls `row(y, line)` with each unfiltered scanline, top to bottom. */
  forEachRow(row: (y: number, line: Uint8Array) => void): void;
}

async function decodeRows(bytes: Uint8Array): Promise<DecodedRows> {
  const header = readPngHeader(bytes);
  const { width, height, bitDepth, colorType, interlace } = header;
  const channels = CHANNELS[colorType];
  if (channels === undefined) throw new PngDecodeError(`Unsupported PNG color type ${colorType}`);
  if (interlace !== 0) throw new PngDecodeError("Interlaced PNGs are not supported (Android screencap never interlaces)");
  if (![1, 2, 4, 8, 16].includes(bitDepth)) throw new PngDecodeError(`Unsupported PNG bit depth ${bitDepth}`);

  const idat: Uint8Array[] = [];
  let palette: Uint8Array | undefined;
  let transparency: Uint8Array | undefined;
  let offset = 8;
  while (offset + 8 <= bytes.length) {
    const length = u32(bytes, offset);
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (data.length !== length) throw new PngDecodeError(`PNG chunk ${type} is truncated`);
    if (type === "IDAT") idat.push(data);
    else if (type === "PLTE") palette = data;
    else if (type === "tRNS") transparency = data;
    else if (type === "IEND") break;
    offset += 12 + length;
  }
  if (idat.length === 0) throw new PngDecodeError("PNG has no image data");
  if (colorType === 3 && !palette) throw new PngDecodeError("Palette PNG without PLTE chunk");

  let raw: Uint8Array;
  try {
    raw = await inflate(idat.length === 1 ? idat[0]! : concat(idat));
  } catch (e) {
    throw new PngDecodeError(`PNG image data is corrupt: ${(e as Error).message}`);
  }
  const bitsPerPixel = bitDepth * channels;
  const bpp = Math.max(1, bitsPerPixel >> 3);
  const stride = Math.ceil((width * bitsPerPixel) / 8);
  if (raw.length < height * (stride + 1)) throw new PngDecodeError("PNG image data is shorter than its size says");

  return {
    header,
    palette,
    transparency,
    forEachRow(row) {
      let prev = new Uint8Array(stride);
      let line = new Uint8Array(stride);
      for (let y = 0; y < height; y++) {
        const base = y * (stride + 1);
        unfilter(raw[base]!, raw.subarray(base + 1, base + 1 + stride), prev, line, bpp);
        row(y, line);
        const t = prev;
        prev = line;
        line = t;
      }
    },
  };
}

export async function decodePngGray(bytes: Uint8Array): Promise<GrayImage> {
  const { header, palette, transparency, forEachRow } = await decodeRows(bytes);
  const { width, height, bitDepth, colorType } = header;
  const gray = new Uint8Array(width * height);
  forEachRow((y, line) => toGrayRow(line, gray, y * width, width, bitDepth, colorType, palette, transparency));
  return { width, height, data: gray };
}

/**
 * The image as a size×size grid of mean luma (0–255). By default each cell averages a regular sample of about
 * 8×8 of the pixels it covers (plenty for a 32×32 perceptual hash, and ~30× less work on a 1080×2400 screen);
 * `exact` averages every pixel. 8-bit RGB/RGBA (what screencap writes) takes an integer fast path.
 */
export async function decodePngThumbnail(
  bytes: Uint8Array,
  size = 32,
  opts: { exact?: boolean } = {},
): Promise<{ width: number; height: number; cells: Float64Array }> {
  const { header, palette, transparency, forEachRow } = await decodeRows(bytes);
  const { width, height, bitDepth, colorType } = header;
  const rowStep = opts.exact ? 1 : Math.max(1, Math.floor(height / (size * 8)));
  const colStep = opts.exact ? 1 : Math.max(1, Math.floor(width / (size * 8)));
  const sums = new Float64Array(size * size);
  const counts = new Float64Array(size * size);
  const xCell = new Int32Array(width);
  for (let x = 0; x < width; x++) xCell[x] = Math.min(size - 1, Math.floor((x * size) / width));
  const fast = bitDepth === 8 && (colorType === 2 || colorType === 6);
  const channels = colorType === 6 ? 4 : 3;
  const grayRow = fast ? undefined : new Uint8Array(width);
  forEachRow((y, line) => {
    if (y % rowStep !== 0) return;
    const rowBase = Math.min(size - 1, Math.floor((y * size) / height)) * size;
    if (fast) {
      const step = channels * colStep;
      for (let x = 0, i = 0; x < width; x += colStep, i += step) {
        // BT.601 luma in 16.16 fixed point, composited over black like decodePngGray.
        let l = line[i]! * 19595 + line[i + 1]! * 38470 + line[i + 2]! * 7471;
        if (channels === 4) l = (l / 255) * line[i + 3]!;
        const c = rowBase + xCell[x]!;
        sums[c]! += l / 65536;
        counts[c]! += 1;
      }
    } else {
      toGrayRow(line, grayRow!, 0, width, bitDepth, colorType, palette, transparency);
      for (let x = 0; x < width; x += colStep) {
        const c = rowBase + xCell[x]!;
        sums[c]! += grayRow![x]!;
        counts[c]! += 1;
      }
    }
  });
  const cells = new Float64Array(size * size);
  for (let i = 0; i < cells.length; i++) cells[i] = counts[i]! > 0 ? sums[i]! / counts[i]! : 0;
  return { width, height, cells };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function unfilter(filter: number, src: Uint8Array, prev: Uint8Array, out: Uint8Array, bpp: number): void {
  const n = src.length;
  switch (filter) {
    case 0:
      out.set(src);
      return;
    case 1:
      for (let i = 0; i < n; i++) out[i] = (src[i]! + (i >= bpp ? out[i - bpp]! : 0)) & 0xff;
      return;
    case 2:
      for (let i = 0; i < n; i++) out[i] = (src[i]! + prev[i]!) & 0xff;
      return;
    case 3:
      for (let i = 0; i < n; i++) out[i] = (src[i]! + (((i >= bpp ? out[i - bpp]! : 0) + prev[i]!) >> 1)) & 0xff;
      return;
    case 4:
      for (let i = 0; i < n; i++) {
        const a = i >= bpp ? out[i - bpp]! : 0;
        const b = prev[i]!;
        const c = i >= bpp ? prev[i - bpp]! : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        out[i] = (src[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
      return;
    default:
      throw new PngDecodeError(`Bad PNG filter type ${filter}`);
  }
}

function sample(line: Uint8Array, index: number, bitDepth: number): number {
  if (bitDepth === 8) return line[index]!;
  if (bitDepth === 16) return line[index * 2]!;
  const perByte = 8 / bitDepth;
  const byte = line[Math.floor(index / perByte)]!;
  const shift = 8 - bitDepth * ((index % perByte) + 1);
  return (byte >> shift) & ((1 << bitDepth) - 1);
}

function toGrayRow(
  line: Uint8Array,
  gray: Uint8Array,
  rowStart: number,
  width: number,
  bitDepth: number,
  colorType: number,
  palette: Uint8Array | undefined,
  transparency: Uint8Array | undefined,
): void {
  const scale = bitDepth < 8 ? 255 / ((1 << bitDepth) - 1) : 1;
  for (let x = 0; x < width; x++) {
    let r: number, g: number, b: number;
    let a = 255;
    switch (colorType) {
      case 0:
        r = g = b = sample(line, x, bitDepth) * scale;
        break;
      case 2:
        r = sample(line, x * 3, bitDepth);
        g = sample(line, x * 3 + 1, bitDepth);
        b = sample(line, x * 3 + 2, bitDepth);
        break;
      case 3: {
        const i = sample(line, x, bitDepth);
        r = palette![i * 3] ?? 0;
        g = palette![i * 3 + 1] ?? 0;
        b = palette![i * 3 + 2] ?? 0;
        a = transparency?.[i] ?? 255;
        break;
      }
      case 4:
        r = g = b = sample(line, x * 2, bitDepth);
        a = sample(line, x * 2 + 1, bitDepth);
        break;
      default:
        r = sample(line, x * 4, bitDepth);
        g = sample(line, x * 4 + 1, bitDepth);
        b = sample(line, x * 4 + 2, bitDepth);
        a = sample(line, x * 4 + 3, bitDepth);
    }
    gray[rowStart + x] = Math.round(((0.299 * r + 0.587 * g + 0.114 * b) * a) / 255);
  }
}
