// Images over @napi-rs/canvas, for Node (headless runs, tests, bench). Not imported by the browser entry.
import { createCanvas, loadImage, type Canvas, type Image } from "@napi-rs/canvas";
import type { DecodedImage, EncodedImage, GrayImage, Images } from "../ports.ts";

interface NodeImage extends DecodedImage {
  source: Image | Canvas;
}

function draw(img: NodeImage, width: number, height: number): Canvas {
  const c = createCanvas(width, height);
  const ctx = c.getContext("2d");
  ctx.imageSmoothingQuality = "medium";
  ctx.drawImage(img.source, 0, 0, width, height);
  return c;
}

export const nodeImages: Images = {
  async decode(bytes) {
    const image = await loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return { width: image.width, height: image.height, source: image } satisfies NodeImage;
  },
  async resize(img, width, height) {
    return { width, height, source: draw(img as NodeImage, width, height) } satisfies NodeImage;
  },
  async encode(img, mime, quality): Promise<EncodedImage> {
    const n = img as NodeImage;
    const c = "getContext" in n.source ? (n.source as Canvas) : draw(n, img.width, img.height);
    const q = Math.round((quality ?? 0.8) * 100);
    // Synchronous encoding: for a ~0.5 MP frame it is faster than the thread-pool round trip.
    const buf = mime === "image/png" ? c.toBuffer("image/png") : mime === "image/webp" ? c.toBuffer("image/webp", q) : c.toBuffer("image/jpeg", q);
    return { bytes: new Uint8Array(buf), mime, width: img.width, height: img.height };
  },
  async grayscale(img, width, height): Promise<GrayImage> {
    const px = draw(img as NodeImage, width, height).getContext("2d").getImageData(0, 0, width, height).data;
    const data = new Uint8Array(width * height);
    for (let i = 0; i < data.length; i++) data[i] = Math.round(0.299 * px[i * 4]! + 0.587 * px[i * 4 + 1]! + 0.114 * px[i * 4 + 2]!);
    return { width, height, data };
  },
};
