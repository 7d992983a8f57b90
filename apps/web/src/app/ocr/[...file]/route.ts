// The files a tab's OCR reader loads (packages/ocr's browser entry), from this app's own origin: tesseract.js's
// worker script, its WebAssembly core (the build the browser picks: SIMD or plain, LSTM only) and the language data
// Debian's tesseract-ocr packages installed on this server. Only those names are served; nothing else of the disk.
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The language data: a folder of the server's system (Debian's packages), not of the app, so the build's file
 * tracing is told not to follow it (it cannot know the folder, and would trace the whole project instead).
 */
const TESSDATA = process.env.TESSDATA_PREFIX ?? "/usr/share/tesseract-ocr/5/tessdata";

/** A file in the web app's node_modules, else in the workspace root's, where npm hoisted it (the server runs in apps/web). */
const orHoisted = <T>(here: Promise<T>, root: () => Promise<T>): Promise<T> => here.catch(root);

/**
 * What a path names, and how to read it. Each read's path is written out at the read, scoped to its one folder,
 * so the build's file tracing takes in only those folders (a path computed elsewhere, or found by searching up
 * from the working directory, makes it trace the whole project); and no module id stands in for a package's
 * folder (require.resolve in the server bundle would give one).
 */
function fileOf(parts: string[]): { read: () => Promise<Buffer>; type: string } | null {
  const [kind, name, ...rest] = parts;
  if (rest.length) return null;
  if (kind === "worker.min.js" && name === undefined)
    return {
      read: () => orHoisted(readFile(join(process.cwd(), "node_modules/tesseract.js/dist/worker.min.js")), () => readFile(join(process.cwd(), "../../node_modules/tesseract.js/dist/worker.min.js"))),
      type: "text/javascript",
    };
  if (kind === "core" && name && /^tesseract-core(-relaxedsimd|-simd)?(-lstm)?\.wasm\.js$/.test(name))
    return {
      read: () => orHoisted(readFile(join(process.cwd(), "node_modules/tesseract.js-core", name)), () => readFile(join(process.cwd(), "../../node_modules/tesseract.js-core", name))),
      type: "text/javascript",
    };
  if (kind === "tessdata" && name && /^[a-z]{3}(_[a-z]+)?\.traineddata$/.test(name)) {
    const file = `${TESSDATA}/${name}`;
    return { read: () => readFile(/* turbopackIgnore: true */ file), type: "application/octet-stream" };
  }
  return null;
}

export async function GET(_req: Request, ctx: { params: Promise<{ file: string[] }> }): Promise<Response> {
  const f = fileOf((await ctx.params).file);
  if (!f) return new Response("Not found: the OCR reader's files are worker.min.js, core/tesseract-core-*.wasm.js and tessdata/<language>.traineddata.", { status: 404 });
  try {
    const bytes = await f.read();
    return new Response(new Uint8Array(bytes), { headers: { "content-type": f.type, "cache-control": "public, max-age=86400" } });
  } catch {
    return new Response(`Not installed on this server: ${(await ctx.params).file.join("/")}. Install the Debian tesseract-ocr language packages (scripts/ensure-system.sh) and restart the web app.`, { status: 404 });
  }
}
