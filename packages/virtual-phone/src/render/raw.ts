// `screencap` without -p: a 16-byte header (width, height, format RGBA_8888, colour space) and raw pixels.
import type { PhoneEngine } from "../engine.ts";
import { renderRgba } from "./draw.ts";

export async function decodeRawScreen(phone: PhoneEngine): Promise<Buffer> {
  const { width, height, rgba } = renderRgba(phone.runtime.layout());
  const head = Buffer.alloc(16);
  head.writeUInt32LE(width, 0);
  head.writeUInt32LE(height, 4);
  head.writeUInt32LE(1, 8);
  head.writeUInt32LE(1, 12); // sRGB
  return Buffer.concat([head, rgba]);
}
