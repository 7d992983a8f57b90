// Test server for the WebUSB specs (Playwright webServer): serves the harness page bundled from packages/device's
// browser entry, and starts/stops virtual phones on request so each test gets its own.
import { createServer, type IncomingMessage } from "node:http";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { startVirtualPhone } from "@phoneloop/virtual-phone";

const port = Number(process.env.DEVICE_E2E_PORT ?? 41730);
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

const bundle = await build({
  entryPoints: [here("../harness/page.ts")],
  bundle: true,
  write: false,
  format: "iife",
  platform: "browser",
  target: "chrome120",
  sourcemap: "inline",
});
const pageJs = bundle.outputFiles[0]!.text;
const indexHtml = await readFile(here("../harness/index.html"), "utf8");

type Phone = Awaited<ReturnType<typeof startVirtualPhone>>;
const phones = new Map<string, Phone>();
let nextId = 1;

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
}

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`);
    if (req.method === "GET" && url.pathname === "/health") return void res.end("ok");
    if (req.method === "GET" && url.pathname === "/") {
      res.setHeader("content-type", "text/html; charset=utf-8");
      return void res.end(indexHtml);
    }
    if (req.method === "GET" && url.pathname === "/page.js") {
      res.setHeader("content-type", "text/javascript; charset=utf-8");
      return void res.end(pageJs);
    }
    if (req.method === "POST" && url.pathname === "/phones") {
      const opts = await body(req);
      const log = process.env.DEVICE_E2E_LOG ? (line: string) => console.log(`[phone ${nextId}] ${line}`) : undefined;
      // the harness page (this server's origin) opens the phone's ADB WebSocket
      const phone = await startVirtualPhone({ adbPort: 0, wsPort: 0, controlPort: 0, host: "127.0.0.1", log, allowOrigins: [`http://127.0.0.1:${port}`], ...opts });
      const id = String(nextId++);
      phones.set(id, phone);
      res.setHeader("content-type", "application/json");
      return void res.end(JSON.stringify({ id, serial: phone.serial, adbPort: phone.adbPort, wsUrl: phone.wsUrl, controlUrl: phone.controlUrl, controlToken: phone.controlToken }));
    }
    const m = /^\/phones\/(\d+)$/.exec(url.pathname);
    if (req.method === "DELETE" && m) {
      const phone = phones.get(m[1]!);
      phones.delete(m[1]!);
      await phone?.stop();
      return void res.end("stopped");
    }
    res.statusCode = 404;
    res.end("not found");
  } catch (e) {
    res.statusCode = 500;
    res.end(String((e as Error)?.stack ?? e));
  }
});

server.listen(port, "127.0.0.1", () => console.log(`device e2e server on http://127.0.0.1:${port}`));

async function shutdown() {
  await Promise.allSettled([...phones.values()].map((p) => p.stop()));
  server.close();
  process.exit(0);
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
