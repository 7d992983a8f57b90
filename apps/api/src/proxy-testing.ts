// A loopback reverse proxy for tests of several API processes: what nginx does with K upstreams — each request to the
// next upstream in turn (the first to the first), a refused connection tried on the next one, an answer lost mid-way
// a 502. Event streams pass through unbuffered (the answer is piped as it comes).
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface RoundRobinProxy {
  url: string;
  server: Server;
  /** Which upstream (0, 1) answered each request, in order, with its path. */
  served: { upstream: number; path: string }[];
  /** Called once a request is on its way to an upstream (before its answer). */
  onForward?: (upstream: number, path: string) => void;
}

export async function startRoundRobinProxy(upstreams: string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const proxy: RoundRobinProxy = { url: "", server: undefined as unknown as Server, served: [] };
  proxy.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const attempt = (tries: number) => {
        const k = next++ % upstreams.length;
        const target = new URL(req.url ?? "/", upstreams[k]);
        const up = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
          proxy.served.push({ upstream: k, path: target.pathname });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on("error", () => res.destroy());
        });
        up.on("error", (e: NodeJS.ErrnoException) => {
          if (e.code === "ECONNREFUSED" && tries + 1 < upstreams.length) return attempt(tries + 1);
          if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(`upstream ${k} failed: ${e.code ?? e.message}`);
          else res.destroy();
        });
        up.end(body);
        proxy.onForward?.(k, target.pathname);
      };
      attempt(0);
    });
  });
  await new Promise<void>((r) => proxy.server.listen(0, "127.0.0.1", r));
  proxy.url = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
  return proxy;
}
