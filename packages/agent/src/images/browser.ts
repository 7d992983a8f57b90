// Images over createImageBitmap + OffscreenCanvas, for the tab (also works in workers).
import type { DecodedImage, EncodedImage, GrayImage, Images } from "../ports.ts";

interface BrowserImage extends DecodedImage {
  source: CanvasImageSource;
}

function canvasOf(img: BrowserImage, width: number, height: number): OffscreenCanvas {
  const c = new OffscreenCanvas(width, height);
  const ctx = c.getContext("2d");
  if (!ctx) throw new Error("OffscreenCanvas 2d context is unavailable");
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(img.source, 0, 0, width, height);
  return c;
}

export const browserImages: Images = {
  async decode(bytes) {
    const bmp = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/png" }));
    return { width: bmp.width, height: bmp.height, source: bmp } satisfies BrowserImage;
  },
  async resize(img, width, height) {
    return { width, height, source: canvasOf(img as BrowserImage, width, height) } satisfies BrowserImage;
  },
  async encode(img, mime, quality): Promise<EncodedImage> {
    const c = canvasOf(img as BrowserImage, img.width, img.height);
    const blob = await c.convertToBlob({ type: mime, ...(quality !== undefined ? { quality } : {}) });
    return { bytes: new Uint8Array(await blob.arrayBuffer()), mime, width: img.width, height: img.height };
  },
  async grayscale(img, width, height): Promise<GrayImage> {
    const c = canvasOf(img as BrowserImage, width, height);
    const px = c.getContext("2d")!.getImageData(0, 0, width, height).data;
    const data = new Uint8Array(width * height);
    for (let i = 0; i < data.length; i++) data[i] = Math.round(0.299 * px[i * 4]! + 0.587 * px[i * 4 + 1]! + 0.114 * px[i * 4 + 2]!);
    return { width, height, data };
  },
};
