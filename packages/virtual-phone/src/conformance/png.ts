// Test-only: reads a PNG's size and checks its chunk CRCs, so "a valid PNG of the right size" is really checked.
import { crc32, inflateSync } from "node:zlib";

export function inspectPng(buf: Buffer): { width: number; height: number; colorType: number } {
  if (!buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) throw new Error("not a PNG: bad signature");
  let off = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  let sawEnd = false;
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString("latin1", off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    const crc = buf.readUInt32BE(off + 8 + len);
    if ((crc32(buf.subarray(off + 4, off + 8 + len)) >>> 0) !== crc) throw new Error(`bad CRC in ${type}`);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      colorType = data[9]!;
    }
    if (type === "IDAT") idat.push(data);
    if (type === "IEND") sawEnd = true;
    off += 12 + len;
  }
  if (!sawEnd) throw new Error("PNG has no IEND");
  const channels = colorType === 6 ? 4 : colorType === 2 ? 3 : 1;
  const raw = inflateSync(Buffer.concat(idat));
  if (raw.length !== height * (width * channels + 1)) throw new Error(`PNG pixel data is ${raw.length} bytes, expected ${height * (width * channels + 1)}`);
  return { width, height, colorType };
}
