// The OCR reader's files, served from this app's origin: tesseract.js's worker, its WebAssembly core builds and the
// installed language data — and no other name, whatever the path says.
import { describe, expect, it } from "vitest";
import { GET } from "./route.ts";

const get = (...file: string[]) => GET(new Request("http://127.0.0.1/ocr"), { params: Promise.resolve({ file }) });

describe("GET /ocr/…", () => {
  it.each([
    [["worker.min.js"], "text/javascript"],
    [["core", "tesseract-core-simd-lstm.wasm.js"], "text/javascript"],
    [["core", "tesseract-core-lstm.wasm.js"], "text/javascript"],
    [["tessdata", "chi_sim.traineddata"], "application/octet-stream"],
  ])("serves %j", async (file, type) => {
    const r = await get(...file);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe(type);
    expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });

  it("serves the data of every language the reader reads (all 24), each one file a tab fetches only when it tries that model", async () => {
    const { DEFAULT_LANGUAGES } = await import("@phoneloop/ocr");
    expect(DEFAULT_LANGUAGES).toHaveLength(24);
    for (const lang of DEFAULT_LANGUAGES) {
      const r = await get("tessdata", `${lang}.traineddata`);
      expect(r.status, lang).toBe(200);
      expect((await r.arrayBuffer()).byteLength, lang).toBeGreaterThan(100_000);
    }
  });

  it.each([[["core", "..", "package.json"]], [["tessdata", "../../etc/passwd"]], [["core", "index.js"]], [["worker.min.js", "x"]], [["package.json"]]])("refuses %j", async (file) => {
    const r = await get(...file);
    expect(r.status).toBe(404);
    expect(await r.text()).toMatch(/worker\.min\.js, core\/tesseract-core-\*\.wasm\.js and tessdata/);
  });

  it("says what to install when a language's data is not on the server", async () => {
    const r = await get("tessdata", "xyz.traineddata");
    expect(r.status).toBe(404);
    expect(await r.text()).toMatch(/Install the Debian tesseract-ocr language packages/);
  });
});
