// The control API on loopback (HTTP + JSON) for tests and the demo: scenarios, reset, state, tasks, input, faults.
// It can tap Allow on the USB prompt and inject input, so every request needs the phone's token.
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AdbKeyStore } from "../adb/auth.ts";
import type { PhoneEngine } from "../engine.ts";
import { builtinScenarios, ScenarioValidationError } from "../scenario/load.ts";
import { scenarioJsonSchema } from "../scenario/json-schema.ts";
import { taskGoal } from "../scenario/evaluator.ts";
import type { Listening } from "../transport/tcp.ts";
import { parseKeycode } from "../shell/commands/keycodes.ts";

export interface ControlServerInit {
  host: string;
  port: number;
  engine: PhoneEngine;
  keyStore: AdbKeyStore;
  adb: { tcp: Listening; ws: Listening };
  /** Every request must send `Authorization: Bearer <token>`. */
  token: string;
  /** Browser origins that may call the API (CORS headers are sent to these only). */
  allowOrigins: readonly string[];
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

function sameSecret(a: string, b: string): boolean {
  // hashing first gives equal lengths, so the comparison takes the same time whatever the guess
  return timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());
}

/** Refuses what a page in the browser could send on its own: a foreign Origin, a rebound Host, no token. */
function admit(req: IncomingMessage, init: ControlServerInit): HttpError | null {
  const origin = req.headers.origin;
  if (origin !== undefined && !init.allowOrigins.includes(origin)) {
    return new HttpError(403, "ORIGIN_NOT_ALLOWED", `pages from ${origin} may not call the phone's control API; start the phone with --allow-origin ${origin} to allow it`);
  }
  const host = (req.headers.host ?? "").replace(/:\d+$/, "");
  if (!LOOPBACK_HOSTS.has(host) && !host.startsWith("127.")) {
    return new HttpError(403, "HOST_NOT_ALLOWED", `the control API answers on loopback names only (127.0.0.1, localhost, [::1]), not "${host}"`);
  }
  const auth = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "");
  if (!auth || !sameSecret(auth[1]!, init.token)) {
    return new HttpError(401, "UNAUTHORIZED", "the control API needs the phone's token: send `Authorization: Bearer <token>` with the token the phone printed at start (VirtualPhone.controlToken)");
  }
  return null;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  const text = Buffer.concat(parts).toString("utf8").trim();
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== "object" || Array.isArray(v)) throw new Error("not an object");
    return v as Record<string, unknown>;
  } catch (e) {
    throw new HttpError(400, "BAD_JSON", `the request body must be a JSON object (${(e as Error).message})`);
  }
}

function num(v: unknown, name: string, optional = false): number | undefined {
  if (v === undefined && optional) return undefined;
  const n = Number(v);
  if (v === undefined || v === null || v === "" || !Number.isFinite(n)) throw new HttpError(400, "BAD_REQUEST", `"${name}" must be a number`);
  return n;
}

export const CONTROL_ROUTES = [
  "GET  /                      summary: serial, ports, scenario, routes",
  "GET  /scenarios             built-in scenarios",
  "POST /scenario              {name | scenario, seed?} load a scenario (built-in name, file path, or object)",
  "GET  /schema                JSON Schema of the scenario format",
  "POST /reset                 {seed?} reset the phone",
  "GET  /state                 app state (what evaluators read)",
  "GET  /tasks                 tasks of the scenario",
  "POST /tasks/:id/start       {seed?, variant?} reset and run the task's setup with a variant's params (0: its own); returns the goal",
  "POST /tasks/:id/evaluate    {answer?} score the task: {score, reason, checks}",
  "POST /events/ask_user       {question, answer?} the agent asked its user (evaluators check it with {asked: {}})",
  "GET  /screenshot            PNG of the screen",
  "GET  /ui                    uiautomator XML",
  "POST /input                 {type: tap|longpress|swipe|text|key|back|home|launch|url, …}",
  "GET  /faults                current faults",
  "POST /faults                {drop?: true, freeze?: bool, secure?: bool, slowMs?: n, failNext?: 'exit'|'close'|null}",
  "DELETE /faults              clear all faults",
  "GET  /auth                  ADB keys: accepted and waiting on the prompt",
  "POST /auth/accept           {fingerprint?, always?: true} tap Allow on the USB debugging prompt (always: 'Always allow from this computer')",
  "POST /auth/reject           {fingerprint?} tap Cancel",
  "POST /auth/revoke           forget every key in adb_keys",
];

export function startControlServer(init: ControlServerInit): Promise<Listening & { port: number }> {
  const { engine } = init;
  const faultsView = () => ({ slowMs: engine.faults.slowMs, failNext: engine.faults.failNext, frozen: engine.faults.frozen !== null, secure: engine.faults.secure });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const m = req.method ?? "GET";
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
      res.end(JSON.stringify(body, null, 2));
    };
    if (m === "GET" && path === "/") {
      return json(200, {
        serial: engine.serial,
        adbPort: init.adb.tcp.port,
        wsPort: init.adb.ws.port,
        scenario: engine.scenario.name,
        connections: { tcp: init.adb.tcp.sessions().map((s) => s.state), ws: init.adb.ws.sessions().map((s) => s.state) },
        routes: CONTROL_ROUTES,
      });
    }
    if (m === "GET" && path === "/scenarios") return json(200, builtinScenarios());
    if (m === "GET" && path === "/schema") return json(200, scenarioJsonSchema());
    if (m === "POST" && path === "/scenario") {
      const body = await readJson(req);
      const seed = num(body.seed, "seed", true) ?? 1;
      const source = body.scenario ?? body.name;
      if (!source) throw new HttpError(400, "BAD_REQUEST", 'give "name" (built-in name or file path) or "scenario" (an object)');
      const s = engine.load(source as string | object, seed);
      return json(200, { scenario: s.name, apps: s.apps.map((a) => a.id), tasks: s.tasks.map((t) => t.id), seed });
    }
    if (m === "POST" && path === "/reset") {
      const body = await readJson(req);
      engine.reset(num(body.seed, "seed", true));
      return json(200, engine.state());
    }
    if (m === "GET" && path === "/state") return json(200, engine.state());
    if (m === "GET" && path === "/tasks") {
      return json(200, engine.tasks().map((t) => ({ id: t.id, goal: taskGoal(t), apps: t.apps, params: t.params, variants: t.variants, maxSteps: t.maxSteps, tags: t.tags })));
    }
    const task = /^\/tasks\/([a-z0-9_]+)(?:\/(start|evaluate))?$/.exec(path);
    if (task) {
      const id = task[1]!;
      if (m === "GET" && !task[2]) return json(200, engine.task(id));
      if (m === "POST" && task[2] === "start") {
        const body = await readJson(req);
        const r = engine.startTask(id, { seed: num(body.seed, "seed", true), variant: num(body.variant, "variant", true) });
        return json(200, { task: id, variant: r.variant, params: r.params, goal: r.goal, maxSteps: r.task.maxSteps, state: engine.state() });
      }
      if (m === "POST" && task[2] === "evaluate") {
        const body = await readJson(req);
        return json(200, engine.evaluate(id, { answer: typeof body.answer === "string" ? body.answer : undefined }));
      }
    }
    if (m === "POST" && path === "/events/ask_user") {
      const body = await readJson(req);
      if (typeof body.question !== "string" || body.question.trim() === "") throw new HttpError(400, "BAD_REQUEST", `"question" must be the text the agent asked its user`);
      engine.recordAskUser(body.question, typeof body.answer === "string" ? body.answer : undefined);
      return json(200, { recorded: "ask_user", question: body.question });
    }
    if (m === "GET" && path === "/screenshot") {
      const png = await engine.screenshot();
      res.writeHead(200, { "content-type": "image/png", "content-length": png.length, "cache-control": "no-store" });
      res.end(png);
      return;
    }
    if (m === "GET" && path === "/ui") {
      res.writeHead(200, { "content-type": "application/xml; charset=utf-8" });
      res.end(engine.uiDump());
      return;
    }
    if (m === "POST" && path === "/input") {
      const b = await readJson(req);
      switch (b.type) {
        case "tap":
          engine.tap(num(b.x, "x")!, num(b.y, "y")!);
          break;
        case "longpress":
          engine.longPress(num(b.x, "x")!, num(b.y, "y")!);
          break;
        case "swipe":
          engine.swipe(num(b.x1, "x1")!, num(b.y1, "y1")!, num(b.x2, "x2")!, num(b.y2, "y2")!, num(b.durationMs, "durationMs", true));
          break;
        case "text":
          if (typeof b.text !== "string") throw new HttpError(400, "BAD_REQUEST", '"text" must be a string');
          engine.typeText(b.text);
          break;
        case "key": {
          const code = parseKeycode(String(b.key ?? ""));
          if (code === null) throw new HttpError(400, "BAD_REQUEST", `unknown key "${String(b.key)}"; use a code (4) or a name (KEYCODE_BACK)`);
          engine.key(code);
          break;
        }
        case "back":
          engine.key(4);
          break;
        case "home":
          engine.key(3);
          break;
        case "launch":
          engine.launch(String(b.app ?? ""), typeof b.screen === "string" ? b.screen : undefined);
          break;
        case "url":
          if (!engine.runtime.openUrl(String(b.url ?? ""))) throw new HttpError(404, "NO_HANDLER", `no installed app handles ${String(b.url)}`);
          break;
        default:
          throw new HttpError(400, "BAD_REQUEST", '"type" must be one of tap, longpress, swipe, text, key, back, home, launch, url');
      }
      return json(200, engine.state());
    }
    if (path === "/faults") {
      if (m === "GET") return json(200, faultsView());
      if (m === "DELETE") {
        engine.faults.slowMs = 0;
        engine.faults.failNext = null;
        engine.freeze(false);
        engine.secureWindow(false);
        return json(200, faultsView());
      }
      if (m === "POST") {
        const b = await readJson(req);
        if (b.slowMs !== undefined) engine.faults.slowMs = Math.max(0, num(b.slowMs, "slowMs")!);
        if (b.failNext !== undefined) {
          if (b.failNext !== null && b.failNext !== "exit" && b.failNext !== "close" && b.failNext !== true) throw new HttpError(400, "BAD_REQUEST", '"failNext" must be "exit", "close", true or null');
          engine.faults.failNext = b.failNext === true ? "exit" : (b.failNext as "exit" | "close" | null);
        }
        if (b.freeze !== undefined) engine.freeze(Boolean(b.freeze));
        if (b.secure !== undefined) engine.secureWindow(Boolean(b.secure));
        if (b.drop) engine.dropConnections();
        return json(200, faultsView());
      }
    }
    const ks = init.keyStore;
    if (path === "/auth" && m === "GET") return json(200, { trust: ks.trust, accepted: ks.listAccepted(), pending: ks.listPending() });
    if (path === "/auth/revoke" && m === "POST") {
      // like "Revoke USB debugging authorizations": connected clients stay, new connections must be allowed again
      ks.revokeAll();
      return json(200, { accepted: [] });
    }
    const auth = /^\/auth\/(accept|reject)$/.exec(path);
    if (auth && m === "POST") {
      const b = await readJson(req);
      if (b.always !== undefined && typeof b.always !== "boolean") throw new HttpError(400, "BAD_REQUEST", '"always" must be true or false (the "Always allow from this computer" checkbox)');
      const fingerprint = typeof b.fingerprint === "string" ? b.fingerprint : undefined;
      const n = ks.answer(auth[1] as "accept" | "reject", { fingerprint, always: b.always ?? true });
      return json(200, { answered: n, pending: ks.listPending(), accepted: ks.listAccepted() });
    }
    throw new HttpError(404, "NOT_FOUND", `no route ${m} ${path}; GET / lists the routes`);
  }

  const fail = (res: ServerResponse, e: HttpError) => {
    const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
    if (e.status === 401) headers["www-authenticate"] = 'Bearer realm="virtual-phone"';
    res.writeHead(e.status, headers);
    res.end(JSON.stringify({ error: { code: e.code, message: e.message } }, null, 2));
  };
  const server = createServer((req, res) => {
    const origin = req.headers.origin;
    if (origin !== undefined && init.allowOrigins.includes(origin)) {
      // exact origin, never "*": only the configured web app may read answers
      res.setHeader("access-control-allow-origin", origin);
      res.setHeader("vary", "Origin");
      res.setHeader("access-control-allow-methods", "GET, POST, DELETE, OPTIONS");
      res.setHeader("access-control-allow-headers", "authorization, content-type");
    }
    if (req.method === "OPTIONS") {
      // a preflight carries no credentials; it is answered for allowed origins only
      if (origin === undefined || !init.allowOrigins.includes(origin)) return fail(res, new HttpError(403, "ORIGIN_NOT_ALLOWED", `pages from ${origin ?? "(no origin)"} may not call the phone's control API; start the phone with --allow-origin <origin> to allow one`));
      res.writeHead(204);
      res.end();
      return;
    }
    const refused = admit(req, init);
    if (refused) return fail(res, refused);
    route(req, res).catch((e: unknown) => {
      const err = e as Error & { code?: string; status?: number; issues?: unknown };
      const status = e instanceof HttpError ? e.status : e instanceof ScenarioValidationError ? 422 : err.code === "TASK_NOT_FOUND" ? 404 : err.code === "SCENARIO_ERROR" || err.code === "TASK_VARIANT_NOT_FOUND" ? 400 : 500;
      if (!res.headersSent) res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ error: { code: err.code ?? "INTERNAL", message: err.message, issues: e instanceof ScenarioValidationError ? e.issues : undefined } }, null, 2));
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(init.port, init.host, () => {
      server.off("error", reject);
      const addr = server.address();
      resolve({
        port: typeof addr === "object" && addr ? addr.port : init.port,
        sessions: () => [],
        dropAll: () => {},
        close: () =>
          new Promise<void>((res) => {
            server.closeAllConnections();
            server.close(() => res());
          }),
      });
    });
  });
}
