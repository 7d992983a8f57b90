// @phoneloop/ocr: reads the text a person sees on a phone screen where the UI tree is blind. The readers are
// platform entries: "@phoneloop/ocr/node" (headless worker) and "@phoneloop/ocr/browser" (a tab).
export { DEFAULT_LANGUAGES, type OcrBounds, type OcrItem, type OcrReader, type OcrReading, type ReadOptions } from "./reading.ts";
