// The HTTP server: /health, accounts (/api/auth, /api/account), the tRPC router at /trpc (queries, mutations and
// SSE subscriptions) and the model proxy. Every request first passes the Host / CSRF / CORS rules
// (http-hygiene.ts); then who calls is resolved once (resolvePrincipal). Used by server.ts and by tests.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { TRPCError } from "@trpc/server";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import superjson from "superjson";
import { postgresBlobStore, useBlobStore, type BlobStore, type Db } from "@phoneloop/state";
import { createAuth, type Auth } from "./auth/auth.ts";
import { handleBlob } from "./blob-route.ts";
import { startBlobCollector, type BlobCollector, type BlobCollectorOptions } from "./blob-collector.ts";
import { accountRoutes, sendJson, toHeaders, type AccountRoutes } from "./auth/http.ts";
import { resolvePrincipal, SHARE_HEADER, WORKSPACE_HEADER, type PrincipalServices } from "./auth/principal.ts";
import { newSecret } from "./auth/secret-key.ts";
import { sessionReader } from "./auth/auth.ts";
import { EventHub } from "./events.ts";
import { checkHealth, checkReadiness } from "./health.ts";
import { batchRefusal, callsIn, newRequestBudget } from "./input-guard.ts";
import { applyCors, LOOPBACK_HOSTS, refusal, type HygieneRules } from "./http-hygiene.ts";
import type { DemoPhoneControl } from "./demo-phone.ts";
import { handleModelProxy, handleReferencePolicyRoute, METER_HEADERS, MODEL_PROXY_PATH, REFERENCE_POLICY_PATH } from "./model-proxy.ts";
import { errorFields, logProcedureFailure, REQUEST_ID_HEADER, requestIdOf, runIdOf, silentLogger, type ApiLogger } from "./logger.ts";
import { modelSettingsStore, type ModelSettingsInput, type ModelSettingsStore } from "./model-settings.ts";
import { appRouter } from "./root.ts";
import { BLOB_PATH, HEALTH_PATH, LIVEZ_PATH, READYZ_PATH, TRPC_PATH } from "./contract.ts";
import { createTRPCContext } from "./trpc.ts";
import { startReaper, type Reaper, type ReaperOptions } from "./reaper.ts";
import { startLessonMerger, type LessonMerger, type LessonMergerOptions } from "./lesson-merger.ts";
import { DEFAULT_NOTIFICATION_CONFIG, startNotificationDispatcher, type NotificationConfig, type NotificationDispatcher } from "./notifications/dispatcher.ts";

export { TRPC_PATH } from "./contract.ts";

export interface ApiServerInit {
  db: Db;
  /** For the dedicated LISTEN connection of the event stream and better-auth's pool. */
  databaseUrl: string;
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** Browser origins allowed to call the API. Default: the web app on port 3000. */
  webOrigins?: string[];
  /** Host names the API answers to, besides loopback (API_ALLOWED_HOSTS). */
  allowedHosts?: string[];
  /**
   * PHONELOOP_SECRET_KEY: signs session cookies and encrypts model settings at rest. Default: a random one for
   * this process (tests), so sessions and stored model keys do not outlive it.
   */
  secretKey?: string;
  /** The demo phone's control API (DEMO_PHONE_CONTROL_URL / _TOKEN), to answer its USB debugging prompt. */
  demoPhone?: DemoPhoneControl | null;
  /** Model settings the setup link's new workspace starts with (the MODEL_* environment), if any. */
  modelSeed?: ModelSettingsInput | null;
  /** Where the API's log lines go (logger.ts); default: nowhere. */
  logger?: ApiLogger;
  /** Interrupts runs whose worker died and expires overdue gates every intervalMs (server.ts turns it on). */
  reaper?: Omit<ReaperOptions, "onLog"> | null;
  /** Merges each app's new lessons every intervalMs (server.ts turns it on). */
  lessonMerge?: Omit<LessonMergerOptions, "onLog"> | null;
  /**
   * The blob store (default: Postgres, in this database), whether reads redirect to presigned URLs (S3 only, valid
   * that many seconds), the retention, and the collector's timer (server.ts turns it on).
   */
  blobs?: { store?: BlobStore; presignedReadS?: number | null; retentionDays?: number | null; collector?: Pick<BlobCollectorOptions, "intervalMs" | "graceMs" | "eventRetentionDays"> | null };
  /** A request not answered within this is answered 503 (REQUEST_TIMEOUT_MS; see timeBudgetOf). Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * Notifications (webhooks, Web Push, e-mail) and their dispatcher (server.ts turns it on); webOrigin defaults to
   * the first web origin. Unset: no dispatcher runs in this process.
   */
  notifications?: Partial<NotificationConfig> | null;
  /** How long close() lets requests in flight finish before it ends their connections (SHUTDOWN_GRACE_MS). Default 20 s. */
  shutdownGraceMs?: number;
}

export interface ApiServer {
  /** Base URL, e.g. http://127.0.0.1:4000; tRPC is at `${url}/trpc`. */
  url: string;
  port: number;
  /** better-auth, for the setup link and tests (auth/testing.ts). */
  auth: Auth;
  modelSettings: ModelSettingsStore;
  reaper: Reaper | null;
  lessonMerger: LessonMerger | null;
  blobCollector: BlobCollector | null;
  notifications: NotificationDispatcher | null;
  /**
   * Graceful shutdown: /readyz answers 503 at once, no new connection is accepted, open event
   * streams end telling their clients to resume elsewhere, requests in flight finish (for at most the grace, then
   * their connections are ended), the timers stop and the event reader and auth's pool close. The caller ends the
   * database client it passed in.
   */
  close(opts?: { graceMs?: number }): Promise<void>;
}

/** Default of ApiServerInit.shutdownGraceMs. */
export const SHUTDOWN_GRACE_MS = 20_000;

/** What an open event stream ends with when its process shuts down: resume from the last event id, on another process. */
export const SHUTDOWN_STREAM_MESSAGE = "This API process is shutting down: reconnect (a load balancer sends you to another process) and resume after your last event id; nothing is lost.";

const ALLOWED_HEADERS = [
  "content-type",
  "authorization",
  "trpc-accept",
  "last-event-id",
  WORKSPACE_HEADER,
  SHARE_HEADER,
  METER_HEADERS.run,
  METER_HEADERS.step,
  // the openai client's own headers, for a tab calling the model proxy
  ...["arch", "lang", "os", "package-version", "retry-count", "runtime", "runtime-version", "timeout"].map((h) => `x-stainless-${h}`),
].join(", ");

/** How long the API works on one request before it answers 503 (the client's own timeout is the same 30 s). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** The model proxy's budget: the longest a role's endpoint may take (its timeout is at most 600 s), and a margin. */
const MODEL_PROXY_TIMEOUT_MS = 610_000;

/**
 * Every request's time budget, by route: ordinary requests the server's (requestTimeoutMs), a blob's transfer of
 * up to 16 MiB four times that, a model call its endpoint's longest timeout; an event stream none (it stays open
 * by design, and ends with its subscriber or the server).
 */
function timeBudgetOf(req: IncomingMessage, path: string, requestTimeoutMs: number): number | null {
  if ((req.headers.accept ?? "").includes("text/event-stream")) return null;
  if (path.startsWith(`${MODEL_PROXY_PATH}/`)) return MODEL_PROXY_TIMEOUT_MS;
  if (path === BLOB_PATH || path.startsWith(`${BLOB_PATH}/`)) return 4 * requestTimeoutMs;
  return requestTimeoutMs;
}

/** Requests answered 503 for their time budget: what their handler does after that is neither sent nor logged. */
const timedOut = new WeakSet<IncomingMessage>();

/** Answers 503 when the request is still unanswered after `budgetMs` (in tRPC's error shape on its routes). */
function armTimeBudget(req: IncomingMessage, res: ServerResponse, path: string, budgetMs: number, log: ApiLogger): void {
  const timer = setTimeout(() => {
    timedOut.add(req);
    log.warn({ reqId: requestIdOf(req), path, budgetMs }, "request timed out");
    if (res.headersSent) return void res.destroy();
    const message = `The API did not finish this request within ${budgetMs / 1000} s (it is busy, or its database is slow); what it started may still complete: check before repeating a change.`;
    res.setHeader("connection", "close");
    res.setHeader("retry-after", "1");
    if (path.startsWith(`${TRPC_PATH}/`)) sendTrpcError(req, res, path, { status: 503, code: "SERVICE_UNAVAILABLE", message });
    else sendJson(res, 503, { error: { code: "TIMEOUT", message } });
  }, budgetMs);
  res.once("close", () => clearTimeout(timer));
}

/** An answer to every call of a tRPC request, in tRPC's error shape, for what the API refuses before tRPC reads it. */
function sendTrpcError(req: IncomingMessage, res: ServerResponse, path: string, e: { status: 413 | 503; code: "PAYLOAD_TOO_LARGE" | "SERVICE_UNAVAILABLE"; message: string }): void {
  const envelope = { error: superjson.serialize({ message: e.message, code: TRPC_ERROR_CODES_BY_KEY[e.code], data: { code: e.code, httpStatus: e.status, path: null } }) };
  const batched = new URL(req.url ?? "/", "http://api").searchParams.get("batch") === "1";
  const calls = callsIn(path.slice(TRPC_PATH.length + 1));
  // The body is not read for what it holds: discarded as it arrives.
  if (e.status === 413) req.resume();
  sendJson(res, e.status, batched ? Array.from({ length: calls }, () => envelope) : envelope);
}

export async function createApiServer(init: ApiServerInit): Promise<ApiServer> {
  const log = init.logger ?? silentLogger;
  const requestTimeoutMs = init.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  /** One line for a route's unexpected failure (the route answered 500). */
  const routeFailed = (route: string, req: IncomingMessage, e: unknown) => {
    if (timedOut.has(req)) return;
    const runId = runIdOf(req, undefined);
    log.error({ reqId: requestIdOf(req), ...(runId ? { runId } : {}), route, status: 500, err: errorFields(e) }, "route failed");
  };
  const secretKey = init.secretKey ?? newSecret();
  const rules: HygieneRules = {
    allowedHosts: new Set([...LOOPBACK_HOSTS, ...(init.allowedHosts ?? [])].map((h) => h.toLowerCase())),
    origins: new Set(init.webOrigins ?? ["http://127.0.0.1:3000", "http://localhost:3000"]),
    allowedHeaders: ALLOWED_HEADERS,
  };
  const blobStore = init.blobs?.store ?? postgresBlobStore(init.db);
  useBlobStore(init.db, blobStore);
  const blobRoute = { store: blobStore, presignedReadS: init.blobs?.presignedReadS ?? null, retentionDays: init.blobs?.retentionDays ?? null };
  const events = new EventHub({ databaseUrl: init.databaseUrl, onLog: (line) => log.warn({ component: "events" }, line) });
  await events.start();
  const modelSettings = modelSettingsStore(init.db, secretKey);
  const notifyConfig: NotificationConfig | null =
    init.notifications ? { ...DEFAULT_NOTIFICATION_CONFIG, webOrigin: [...rules.origins][0] ?? "http://127.0.0.1:3000", ...init.notifications } : null;
  const notificationServices = {
    secretKey,
    allowPrivateTargets: notifyConfig?.allowPrivateTargets ?? false,
    vapidPublicKey: notifyConfig?.vapid?.publicKey ?? null,
    emailEnabled: Boolean(notifyConfig?.smtp),
  };
  // better-auth needs the API's own origin, known once the port is: set in the listen callback, before any request.
  let auth!: Auth;
  let closeAuth!: () => Promise<void>;
  let accounts!: AccountRoutes;
  let services!: PrincipalServices & { events: EventHub; modelSettings: ModelSettingsStore; demoPhone: DemoPhoneControl | null; notifications: typeof notificationServices };

  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: `${TRPC_PATH}/`,
    // Room for a batch of inputs at their JSON caps (a 2 MiB checkpoint, 256 KiB fields); blobs travel raw (POST /blobs).
    maxBodySize: 24 * 1024 * 1024,
    // Once per request (a batch's calls share it): who calls, and the request's budget of items.
    createContext: async ({ req }) => createTRPCContext({ services, principal: await resolvePrincipal(services, toHeaders(req)), budget: newRequestBudget() }),
    onError({ error, path, type, req, input }) {
      if (timedOut.has(req)) return;
      logProcedureFailure(log, { error, path, type, req, input });
    },
  });

  /** Requests being answered (event streams too): a shutdown waits for them. */
  const inFlight = new Set<ServerResponse>();
  let shuttingDown = false;

  const server = createServer((req, res) => {
    res.setHeader(REQUEST_ID_HEADER, requestIdOf(req));
    inFlight.add(res);
    res.once("close", () => inFlight.delete(res));
    // A request on a kept-alive connection while shutting down is served, and its connection then closed.
    if (shuttingDown) res.setHeader("connection", "close");
    const refused = refusal(req, rules);
    if (refused) {
      sendJson(res, refused.status, { error: { code: refused.code, message: refused.message } });
      return;
    }
    applyCors(req, res, rules);
    if (req.method === "OPTIONS") {
      res.writeHead(204).end();
      return;
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const budgetMs = timeBudgetOf(req, path, requestTimeoutMs);
    if (budgetMs !== null) armTimeBudget(req, res, path, budgetMs, log);
    if (path === HEALTH_PATH && req.method === "GET") {
      void sendHealth(res, init.db, events);
      return;
    }
    if (path === LIVEZ_PATH && req.method === "GET") {
      // The process answers: nothing else is asked (a liveness probe that asked the database would restart every
      // replica when the database is down).
      sendJson(res, 200, { live: true });
      return;
    }
    if (path === READYZ_PATH && req.method === "GET") {
      void checkReadiness(init.db, events, shuttingDown).then((r) => sendJson(res, r.ready ? 200 : 503, r));
      return;
    }
    if (accounts.handle(req, res, path)) return;
    if (path.startsWith(`${MODEL_PROXY_PATH}/`)) {
      handleModelProxy(req, res, { db: init.db, principalOf: () => resolvePrincipal(services, toHeaders(req)), settings: modelSettings }).catch((e: unknown) => {
        routeFailed("model-proxy", req, e);
        sendJson(res, 500, { error: { message: "The model proxy failed unexpectedly; the API log has the details." } });
      });
      return;
    }
    if (path.startsWith(`${REFERENCE_POLICY_PATH}/`)) {
      handleReferencePolicyRoute(req, res, { principalOf: () => resolvePrincipal(services, toHeaders(req)) }).catch((e: unknown) => {
        routeFailed("reference-policy", req, e);
        sendJson(res, 500, { error: { message: "The reference policy failed unexpectedly; the API log has the details." } });
      });
      return;
    }
    if (path === BLOB_PATH || path.startsWith(`${BLOB_PATH}/`)) {
      handleBlob(req, res, services, blobRoute).catch((e: unknown) => {
        routeFailed("blob", req, e);
        if (!res.headersSent) sendJson(res, 500, { error: { code: "INTERNAL", message: "The blob could not be read or stored; the API log has the details." } });
        else res.destroy();
      });
      return;
    }
    if (path === TRPC_PATH || path.startsWith(`${TRPC_PATH}/`)) {
      // The request's work budget (input-guard.ts): how many calls it batches, then the items their inputs hold.
      const tooMany = batchRefusal(callsIn(path.slice(TRPC_PATH.length + 1)));
      if (tooMany) return sendTrpcError(req, res, path, { status: 413, code: "PAYLOAD_TOO_LARGE", message: tooMany });
      trpc(req, res);
      return;
    }
    sendJson(res, 404, { error: `No route ${path}. The API serves GET /health, /livez and /readyz, tRPC at ${TRPC_PATH}, blobs at ${BLOB_PATH}/<sha256>, accounts at /api/auth and /api/account, the model proxy at ${MODEL_PROXY_PATH}/<role>/v1 and the reference policy at ${REFERENCE_POLICY_PATH}/v1.` });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(init.port, init.host, () => {
      server.off("error", reject);
      const port = (server.address() as AddressInfo).port;
      const created = createAuth({ databaseUrl: init.databaseUrl, baseURL: urlOf(init.host, port), trustedOrigins: [...rules.origins], secretKey });
      auth = created.auth;
      closeAuth = created.close;
      services = { db: init.db, events, modelSettings, demoPhone: init.demoPhone ?? null, notifications: notificationServices, auth: sessionReader(auth) };
      accounts = accountRoutes(services, auth, { modelSeed: init.modelSeed ?? null, modelSettings }, (req, e) => routeFailed("account", req, e));
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const reaper = init.reaper ? startReaper(init.db, { ...init.reaper, onLog: (line) => log.info({ component: "reaper" }, line) }) : null;
  const lessonMerger = init.lessonMerge ? startLessonMerger(init.db, { ...init.lessonMerge, onLog: (line) => log.info({ component: "lesson-merge" }, line) }) : null;
  const collector = init.blobs?.collector;
  const blobCollector = collector
    ? startBlobCollector(init.db, { ...collector, retentionDays: blobRoute.retentionDays, store: blobStore, onLog: (line) => log.info({ component: "blob-collector" }, line) })
    : null;
  const notifications = notifyConfig
    ? startNotificationDispatcher(init.db, { events, secretKey, apiOrigin: urlOf(init.host, port), config: notifyConfig, onLog: (line) => log.info({ component: "notifications" }, line) })
    : null;
  return {
    url: urlOf(init.host, port),
    port,
    auth,
    modelSettings,
    reaper,
    lessonMerger,
    blobCollector,
    notifications,
    async close(opts = {}) {
      const graceMs = opts.graceMs ?? init.shutdownGraceMs ?? SHUTDOWN_GRACE_MS;
      shuttingDown = true;
      // No new connection from now on; the server's callback runs once every connection has closed.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Event streams end with a typed answer (SERVICE_UNAVAILABLE) that says to resume elsewhere: tRPC's
      // httpSubscriptionLink takes that code as "reconnect", with the last event id, which a proxy sends elsewhere.
      events.shutDown(new TRPCError({ code: "SERVICE_UNAVAILABLE", message: SHUTDOWN_STREAM_MESSAGE }));
      for (const res of inFlight) if (!res.headersSent) res.setHeader("connection", "close");
      // Kept-alive connections become idle as their requests finish: closed as they do.
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      let graceTimer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<"grace over">((resolve) => (graceTimer = setTimeout(() => resolve("grace over"), graceMs)));
      const outcome = await Promise.race([closed.then(() => "all closed" as const), graceOver]);
      clearInterval(idle);
      clearTimeout(graceTimer);
      if (outcome === "grace over") {
        log.warn({ component: "shutdown", graceMs, requests: inFlight.size }, "shutdown grace over: ending the connections of requests still in flight");
        server.closeAllConnections();
        await closed;
      }
      await notifications?.close();
      await reaper?.close();
      await lessonMerger?.close();
      await blobCollector?.close();
      await events.close();
      await closeAuth();
    },
  };
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

async function sendHealth(res: ServerResponse, db: Db, events: EventHub): Promise<void> {
  const health = await checkHealth(db, events);
  sendJson(res, health.ok ? 200 : 503, health);
}

