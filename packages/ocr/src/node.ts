// The reader in Node (the headless worker, tests, benchmarks): screenshots decoded by @napi-rs/canvas, Tesseract's
// language data from Debian's tesseract-ocr-* packages (scripts/ensure-system.sh installs them).
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { createCanvas, loadImage } from "@napi-rs/canvas";
import { createWorker } from "tesseract.js";
import type { Gray } from "./pixels.ts";
import { createReader, type ReaderOptions } from "./reader.ts";
import { DEFAULT_LANGUAGES, type OcrReader } from "./reading.ts";

/** Where Debian's tesseract-ocr packages put the language data (TESSDATA_PREFIX overrides it, as for Tesseract). */
export function tessdataDir(): string {
  return process.env.TESSDATA_PREFIX ?? "/usr/share/tesseract-ocr/5/tessdata";
}

/** The languages among `wanted` whose data is installed. */
export function installedLanguages(wanted: readonly string[] = DEFAULT_LANGUAGES, dir = tessdataDir()): string[] {
  return wanted.filter((l) => existsSync(`${dir}/${l}.traineddata`));
}

export class OcrUnavailable extends Error {
  override readonly name = "OcrUnavailable";
}

/**
 * A reader for Node. Throws OcrUnavailable when none of the languages' data is installed (the message says which
 * Debian packages to install).
 */
export function createNodeOcr(opts: ReaderOptions & { tessdata?: string } = {}): OcrReader {
  const dir = opts.tessdata ?? tessdataDir();
  const wanted = opts.languages ?? DEFAULT_LANGUAGES;
  const languages = installedLanguages(wanted, dir);
  if (!languages.length)
    throw new OcrUnavailable(
      `No Tesseract language data in ${dir} for ${wanted.join(", ")}. Install it with: apt-get install ${wanted.map((l) => `tesseract-ocr-${l.replace(/_/g, "-")}`).join(" ")} (or set TESSDATA_PREFIX to where it is).`,
    );
  return createReader(
    {
      async decode(bytes, longSide) {
        const img = await loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
        const scale = Math.min(1, longSide / Math.max(img.width, img.height));
        const width = Math.max(1, Math.round(img.width * scale));
        const height = Math.max(1, Math.round(img.height * scale));
        const ctx = createCanvas(width, height).getContext("2d");
        ctx.drawImage(img, 0, 0, width, height);
        return { rgba: ctx.getImageData(0, 0, width, height).data, width, height, scale: width / img.width };
      },
      // A binary PGM: Tesseract's image library reads it as is, with no encoding to pay for.
      async image(g: Gray) {
        return Buffer.concat([Buffer.from(`P5\n${g.width} ${g.height}\n255\n`, "ascii"), Buffer.from(g.data.buffer, g.data.byteOffset, g.data.byteLength)]);
      },
      createWorker: (langs) => createWorker(langs, 1, { langPath: dir, gzip: false, cacheMethod: "none" }),
      parallelism: availableParallelism(),
    },
    { ...opts, languages },
  );
}

export { DEFAULT_LANGUAGES, type OcrReader, type OcrItem, type OcrReading, type ReadOptions } from "./reading.ts";
