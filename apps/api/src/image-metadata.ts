// An image's own bytes without its metadata: the containers of PNG, JPEG and WebP are walked and every chunk or
// segment that carries metadata (EXIF with GPS and camera, XMP, ICC profiles, IPTC, text and comments) is left out;
// the chunks that make the pixels are kept byte for byte, so the pixels are exactly the ones sent and a clean image
// is stored exactly as sent.
// Hand-written, because the image libraries drop metadata only by decoding and compressing the pixels afresh (a
// JPEG loses quality each time, and the stored bytes are no longer the ones the uploader hashed). The layouts read
// here are small and fixed: PNG chunks (length, type, data, CRC), JPEG marker segments up to the first scan, RIFF
// chunks. Each function is called on an image sharp has just decoded whole, so its layout is known to be sound;
// a layout that still does not read as expected ends the walk, and what was read so far is what is kept.

/** PNG chunks that make its pixels; every other (tEXt, zTXt, iTXt, eXIf, iCCP, tIME, …) is metadata. */
const PNG_PIXEL_CHUNKS = new Set(["IHDR", "PLTE", "tRNS", "IDAT", "IEND"]);

/** The PNG's signature and its pixel chunks; nothing after IEND. */
export function pngWithoutMetadata(png: Buffer): Buffer {
  const SIGNATURE = 8;
  const kept: Buffer[] = [png.subarray(0, SIGNATURE)];
  for (let at = SIGNATURE; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString("latin1", at + 4, at + 8);
    const end = at + 12 + length;
    if (end > png.length) break;
    if (PNG_PIXEL_CHUNKS.has(type)) kept.push(png.subarray(at, end));
    if (type === "IEND") break;
    at = end;
  }
  return Buffer.concat(kept);
}

/**
 * The JPEG without APP1–APP13 and APP15 (EXIF, XMP, ICC, IPTC, vendor data) and COM segments. APP0 (JFIF) and APP14
 * (Adobe: how the colour channels are to be read) are kept: they say how the pixels decode. Everything from the first
 * scan (SOS) on is the compressed image and is kept as it is.
 */
export function jpegWithoutMetadata(jpeg: Buffer): Buffer {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return jpeg;
  const kept: Buffer[] = [jpeg.subarray(0, 2)];
  let at = 2;
  while (at + 4 <= jpeg.length) {
    if (jpeg[at] !== 0xff) break;
    const marker = jpeg[at + 1]!;
    if (marker === 0xff) {
      at++; // a fill byte before a marker
      continue;
    }
    if (marker === 0xda) {
      kept.push(jpeg.subarray(at)); // the first scan and everything after it
      return Buffer.concat(kept);
    }
    const length = jpeg.readUInt16BE(at + 2);
    const end = at + 2 + length;
    if (length < 2 || end > jpeg.length) break;
    const metadata = (marker >= 0xe1 && marker <= 0xed) || marker === 0xef || marker === 0xfe;
    if (!metadata) kept.push(jpeg.subarray(at, end));
    at = end;
  }
  kept.push(jpeg.subarray(at));
  return Buffer.concat(kept);
}

/** RIFF chunks of a WebP that are metadata. */
const WEBP_METADATA_CHUNKS = new Set(["EXIF", "XMP ", "ICCP"]);
/** VP8X flags announcing those chunks: ICC (0x20), EXIF (0x08), XMP (0x04). */
const VP8X_METADATA_FLAGS = 0x20 | 0x08 | 0x04;

/** The WebP without its EXIF, XMP and ICCP chunks (and their flags in the VP8X header), its RIFF size set anew. */
export function webpWithoutMetadata(webp: Buffer): Buffer {
  if (webp.length < 12 || webp.toString("latin1", 0, 4) !== "RIFF" || webp.toString("latin1", 8, 12) !== "WEBP") return webp;
  const kept: Buffer[] = [];
  for (let at = 12; at + 8 <= webp.length; ) {
    const type = webp.toString("latin1", at, at + 4);
    const size = webp.readUInt32LE(at + 4);
    const end = at + 8 + size + (size % 2);
    if (at + 8 + size > webp.length) break;
    if (!WEBP_METADATA_CHUNKS.has(type)) {
      const chunk = Buffer.from(webp.subarray(at, Math.min(end, webp.length)));
      if (type === "VP8X" && chunk.length > 8) chunk[8] = chunk[8]! & ~VP8X_METADATA_FLAGS;
      kept.push(chunk);
    }
    at = end;
  }
  const body = Buffer.concat(kept);
  const header = Buffer.alloc(12);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(4 + body.length, 4);
  header.write("WEBP", 8, "latin1");
  return Buffer.concat([header, body]);
}
