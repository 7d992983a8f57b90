// `screencap` without -p: a 16-byte header (width, height, format RGBA_8888, colour space) and raw pixels.
import type { PhoneEngine } from "../engine.ts";
import { renderRgba } from "./draw.ts";

/** The screen's pixels as screencap reads them: black over a secure window (the engine's secure fault). */
function pixels(phone: PhoneEngine): { width: number; height: number; rgba: Buffer } {
  const frame = renderRgba(phone.runtime.layout());
  if (!phone.faults.secure) return frame;
  const rgba = Buffer.alloc(frame.rgba.length);
  for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
  return { width: frame.width, height: frame.height, rgba };
}

export async function decodeRawScreen(phone: PhoneEngine): Promise<Buffer> {
  const { width, height, rgba } = pixels(phone);
  const head = Buffer.alloc(16);
  head.writeUInt32LE(width, 0);
  head.writeUInt32LE(height, 4);
  head.writeUInt32LE(1, 8);
  head.writeUInt32LE(1, 12); // sRGB
  return Buffer.concat([head, rgba]);
}

/** The `framebuffer:` service's reply: version 2 header (RGBA_8888, sRGB) followed by the pixels. */
export function framebufferV2(phone: PhoneEngine): Buffer {
  const { width, height, rgba } = pixels(phone);
  const h = Buffer.alloc(4 * 14);
  const fields = [2, 32, 1, rgba.length, width, height, 0, 8, 16, 8, 8, 8, 24, 8]; // version 2, bpp, colour space (1 = sRGB, as screencap says), size, w, h, r/b/g/a offset+length
  fields.forEach((v, i) => h.writeUInt32LE(v, i * 4));
  return Buffer.concat([h, rgba]);
}
