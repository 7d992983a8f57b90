// The HTTP server: /health, CORS for the web app, and the tRPC router at /trpc (queries, mutations and
// SSE subscriptions). Used by server.ts and by tests, which start several on one database.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { Db } from "@phoneloop/state";
import { EventHub } from "./events.ts";
import { checkHealth } from "./health.ts";
import { handleModelProxy, METER_HEADERS, MODEL_PROXY_PATH, type ModelUpstream } from "./model-proxy.ts";
import { appRouter } from "./root.ts";
import { AGENT_HEADER, HEALTH_PATH, MEMBER_HEADER, TRPC_PATH } from "./contract.ts";
import { createTRPCContext } from "./trpc.ts";

export { TRPC_PATH } from "./contract.ts";

export interface ApiServerInit {
  db: Db;
  /** For the dedicated LISTEN connection of the event stream. */
  databaseUrl: string;
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** Browser origins allowed to call the API. Default: the web app on port 3000. */
  webOrigins?: string[];
  /** Where the model proxy forwards; null (default) answers 503 saying how to configure it. */
  modelUpstream?: ModelUpstream | null;
  onLog?: (line: string) => void;
}

export interface ApiServer {
  /** Base URL, e.g. http://127.0.0.1:4000; tRPC is at `${url}/trpc`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const ALLOWED_HEADERS = [
  "content-type",
  "authorization",
  "trpc-accept",
  "last-event-id",
  MEMBER_HEADER,
  AGENT_HEADER,
  METER_HEADERS.goal,
  METER_HEADERS.run,
  METER_HEADERS.step,
  // the openai client's own headers, for a tab calling the model proxy
  ...["arch", "lang", "os", "package-version", "retry-count", "runtime", "runtime-version", "timeout"].map((h) => `x-stainless-${h}`),
].join(", ");

export async function createApiServer(init: ApiServerInit): Promise<ApiServer> {
  const log = init.onLog ?? (() => {});
  const origins = new Set(init.webOrigins ?? ["http://127.0.0.1:3000", "http://localhost:3000"]);
  const events = new EventHub({ databaseUrl: init.databaseUrl, onLog: log });
  await events.start();
  const services = { db: init.db, events };

  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: `${TRPC_PATH}/`,
    // Room for the largest blob (16 MiB) as base64 in JSON, and no more.
    maxBodySize: 24 * 1024 * 1024,
    createContext: ({ req }) => createTRPCContext({ services, headers: toHeaders(req) }),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") log(`500 in ${path ?? "(unknown)"}: ${error.cause?.stack ?? error.stack}`);
    },
  });

  const server = createServer((req, res) => {
    const origin = req.headers.origin;
    if (origin && (origins.has(origin) || origins.has("*"))) {
      res.setHeader("access-control-allow-origin", origin);
      res.setHeader("vary", "origin");
      res.setHeader("access-control-allow-headers", ALLOWED_HEADERS);
      res.setHeader("access-control-allow-methods", "GET, POST, OPTIONS");
      res.setHeader("access-control-max-age", "600");
    }
    if (req.method === "OPTIONS") {
      res.writeHead(204).end();
      return;
    }
    const path = (req.url ?? "/").split("?")[0];
    if (path === HEALTH_PATH && req.method === "GET") {
      void sendHealth(res, services.db, events);
      return;
    }
    if (path?.startsWith(`${MODEL_PROXY_PATH}/`)) {
      handleModelProxy(req, res, services.db, init.modelUpstream ?? null).catch((e: Error) => {
        log(`model proxy: ${e.stack ?? e.message}`);
        if (!res.headersSent) sendJson(res, 500, { error: { message: "The model proxy failed unexpectedly; the API log has the details." } });
      });
      return;
    }
    if (path === TRPC_PATH || path?.startsWith(`${TRPC_PATH}/`)) {
      trpc(req, res);
      return;
    }
    sendJson(res, 404, { error: `No route ${path}. The API serves GET /health, tRPC at ${TRPC_PATH} and the model proxy at ${MODEL_PROXY_PATH}/<role>/v1.` });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(init.port, init.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = init.host.includes(":") ? `[${init.host}]` : init.host;
  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    async close() {
      // Subscriptions keep connections open: end them, then stop listening.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await events.close();
    },
  };
}

async function sendHealth(res: ServerResponse, db: Db, events: EventHub): Promise<void> {
  const health = await checkHealth(db, events);
  sendJson(res, health.ok ? 200 : 503, health);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}
