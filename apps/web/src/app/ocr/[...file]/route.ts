// The files a tab's OCR reader loads (packages/ocr's browser entry), from this app's own origin: tesseract.js's
// worker script, its WebAssembly core (the build the browser picks: SIMD or plain, LSTM only) and the language data
// Debian's tesseract-ocr packages installed on this server. Only those names are served; nothing else of the disk.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";

const TESSDATA = process.env.TESSDATA_PREFIX ?? "/usr/share/tesseract-ocr/5/tessdata";

/**
 * An installed package's folder, found as Node finds it: in node_modules here or in a folder above (the workspace's
 * root). Looked up on disk, not with require.resolve, which the server bundle turns into module ids.
 */
function packageDir(name: string): string {
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return join(process.cwd(), "node_modules", name);
  }
}

function fileOf(parts: string[]): { path: string; type: string } | null {
  const [kind, name, ...rest] = parts;
  if (rest.length) return null;
  if (kind === "worker.min.js" && name === undefined) return { path: join(packageDir("tesseract.js"), "dist", "worker.min.js"), type: "text/javascript" };
  if (kind === "core" && name && /^tesseract-core(-relaxedsimd|-simd)?(-lstm)?\.wasm\.js$/.test(name)) return { path: join(packageDir("tesseract.js-core"), name), type: "text/javascript" };
  if (kind === "tessdata" && name && /^[a-z]{3}(_[a-z]+)?\.traineddata$/.test(name)) return { path: join(TESSDATA, name), type: "application/octet-stream" };
  return null;
}

export async function GET(_req: Request, ctx: { params: Promise<{ file: string[] }> }): Promise<Response> {
  const f = fileOf((await ctx.params).file);
  if (!f) return new Response("Not found: the OCR reader's files are worker.min.js, core/tesseract-core-*.wasm.js and tessdata/<language>.traineddata.", { status: 404 });
  try {
    const bytes = await readFile(f.path);
    return new Response(new Uint8Array(bytes), { headers: { "content-type": f.type, "cache-control": "public, max-age=86400" } });
  } catch {
    return new Response(`Not installed on this server: ${(await ctx.params).file.join("/")}. Install the Debian tesseract-ocr language packages (scripts/ensure-system.sh) and restart the web app.`, { status: 404 });
  }
}
