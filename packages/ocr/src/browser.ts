// The reader in a tab: screenshots decoded by createImageBitmap and an OffscreenCanvas; Tesseract's worker script,
// its WebAssembly core and the language data fetched from the web app's own origin (nothing from elsewhere). The
// tab's runner imports this module only when a run first meets a blind screen.
import { createWorker } from "tesseract.js";
import type { Gray } from "./pixels.ts";
import { createReader, type ReaderOptions } from "./reader.ts";
import type { OcrReader } from "./reading.ts";

export interface BrowserOcrInit extends ReaderOptions {
  /** Where the web app serves tesseract.js's worker script (…/worker.min.js). */
  workerPath: string;
  /** The folder it serves tesseract.js-core's files from (the core picks its SIMD or plain build there). */
  corePath: string;
  /** The folder it serves `<language>.traineddata` from. */
  langPath: string;
}

export function createBrowserOcr(init: BrowserOcrInit): OcrReader {
  return createReader(
    {
      async decode(bytes, longSide) {
        const bmp = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>]));
        const scale = Math.min(1, longSide / Math.max(bmp.width, bmp.height));
        const width = Math.max(1, Math.round(bmp.width * scale));
        const height = Math.max(1, Math.round(bmp.height * scale));
        const ctx = new OffscreenCanvas(width, height).getContext("2d");
        if (!ctx) throw new Error("This browser has no OffscreenCanvas 2D context, so the screen cannot be read.");
        ctx.drawImage(bmp, 0, 0, width, height);
        const out = { rgba: ctx.getImageData(0, 0, width, height).data, width, height, scale: width / bmp.width };
        bmp.close();
        return out;
      },
      // A binary PGM, as in Node: Tesseract's image library reads it with no encoding to pay for.
      async image(g: Gray) {
        return new Blob([new TextEncoder().encode(`P5\n${g.width} ${g.height}\n255\n`), g.data as Uint8Array<ArrayBuffer>]);
      },
      createWorker: (langs) => createWorker(langs, 1, { workerPath: init.workerPath, corePath: init.corePath, langPath: init.langPath, gzip: false, cacheMethod: "none" }),
      // One model at a time: a tab fetches a model's data only when the one before it did not read the control.
      parallelism: 1,
    },
    init,
  );
}

export { DEFAULT_LANGUAGES, type OcrReader, type OcrItem, type OcrReading, type ReadOptions } from "./reading.ts";
