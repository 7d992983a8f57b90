// The tab's composition root for runs: the agent runtime (`runAgent`) in this tab over packages/client's
// ControlPlane, acting with an agent token the signed-in person mints for the tab, the connected phone, the models
// behind the API's model proxy (keys stay on the server), the browser's image codec and the OCR that reads blind
// screens (loaded when a run first meets one). Nothing else wires these.
import {
  browserImages,
  ControlPlaneConflict,
  createModels,
  outageFeed,
  readingInLocale,
  runAgent,
  systemClock,
  type AgentConfig,
  type AgentEvent,
  type ControlPlane,
  type Device,
  type Ocr,
  type OutageFeed,
  type RoleModelInit,
  type RunOutcome,
} from "@phoneloop/agent";
import { createApiClient, createControlPlane, newAgentId, trimUrl, type ApiClient } from "@phoneloop/client";
import type { OcrReader } from "@phoneloop/ocr/browser";

/** The header that names the run a model call is metered against (the API's model proxy reads it). */
export const RUN_HEADER = "x-phoneloop-run";

/**
 * A tab's lease on its todo: short, so a closed tab frees the todo soon for another tab or worker to resume; the
 * runtime renews it at every step while the tab runs.
 */
export const TAB_LEASE_TTL_MS = 30_000;

/** The tab as an agent: one id and one agent token for the tab's life (the token is bound to the id it registers). */
export interface TabAgent {
  agentId: string;
  name: string;
  client: ApiClient;
  controlPlane: ControlPlane;
  token: string;
  /** The state core's outages the tab's client rode out (retried until the API answered), for its runs to record. */
  outages: OutageFeed;
}

/** A tab's agent as cached: `fresh()` says whether its token is still safely inside its idle timeout. */
const agents = new Map<string, Promise<TabAgent & { fresh(): boolean }>>();

/** A token this close to its idle timeout is replaced rather than used (a run's first calls must not outlive it). */
const TOKEN_RENEW_MARGIN_MS = 30 * 60_000;

/**
 * The tab's agent for this API, minted (`agentToken.mintForTab` from the person's session) and kept in memory only:
 * a reloaded or closed tab is a new agent, and its old token expires unused (or is revoked on the team page). A tab
 * left idle past the token's idle timeout mints a new agent when it next runs.
 */
export async function tabAgent(session: ApiClient, apiUrl: string): Promise<TabAgent> {
  const key = trimUrl(apiUrl);
  const cached = agents.get(key);
  if (cached && (await cached.then((a) => a.fresh(), () => false))) return cached;
  const agent = (async () => {
    const agentId = newAgentId();
    const name = `Browser tab ${agentId.slice(-6)}`;
    const { token, idleTimeoutMs } = await session.agentToken.mintForTab.mutate({ name });
    let usedAt = Date.now();
    // Every request with the token renews it on the API; the tab notes when it last sent one.
    const client = createApiClient({
      apiUrl: key,
      auth: () => {
        usedAt = Date.now();
        return { kind: "token", token };
      },
    });
    const fresh = () => idleTimeoutMs === null || Date.now() - usedAt < idleTimeoutMs - TOKEN_RENEW_MARGIN_MS;
    const outages = outageFeed();
    return { agentId, name, client, controlPlane: createControlPlane(client, { apiUrl: key, onOutage: outages.report }), token, outages, fresh };
  })();
  agent.catch(() => agents.get(key) === agent && agents.delete(key));
  agents.set(key, agent);
  return agent;
}

/** The registration the tab's runs and its stand-by share. */
export function tabRegistration(agent: TabAgent, device: { serial: string; model: string } | null) {
  return {
    id: agent.agentId,
    name: agent.name,
    kind: "browser" as const,
    capabilities: ["phone"],
    ...(device ? { meta: { device: { serial: device.serial, model: device.model } } } : {}),
  };
}

export interface TabRunInit {
  apiUrl: string;
  agent: TabAgent;
  device: Device;
  deviceInfo: { serial: string; model: string; locale: string | null } | null;
  /** Start a new run on this goal … */
  goalId?: string;
  /** … or resume this run (interrupted, or one whose tab was closed: waits for its lease to expire). */
  runId?: string;
  /** Graceful stop: the run is summarised and its lease released. */
  signal?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
  /** Every model call's tokens and cost, as the API's model proxy metered them. */
  onUsage?: (u: ModelUsage) => void;
  /** Called while waiting for a closed tab's lease on the run's todo to expire. */
  onWait?: (w: { holder: string; until: string }) => void;
  config?: Partial<AgentConfig>;
}

/** What one model call spent, as the proxy metered it. */
export interface ModelUsage {
  tokens: number;
  microUsd: number;
}

type Role = "planner" | "executor" | "summarizer";

/** The adapter each role's model speaks, as the workspace's model settings name it (a role left out: phoneloop). */
export type RoleAdapters = Partial<Record<Role, { id: string; version: string }>>;

/**
 * Models per role through the API's model proxy, the tab's token as the key, every call metered against its run;
 * each role speaks the adapter the model settings name for it.
 */
export function proxiedModels(apiUrl: string, token: string, currentRun: () => string | null, adapters: RoleAdapters, onUsage?: (u: ModelUsage) => void) {
  const meteredFetch: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const runId = currentRun();
    if (runId) headers.set(RUN_HEADER, runId);
    const res = await fetch(input, { ...init, headers });
    const n = (h: string) => Number(res.headers.get(h) ?? 0) || 0;
    if (res.ok) onUsage?.({ tokens: n("x-phoneloop-input-tokens") + n("x-phoneloop-output-tokens"), microUsd: n("x-phoneloop-micro-usd") });
    return res;
  };
  // The model is the workspace's per role (the proxy fills it in): an empty name asks for that.
  const role = (r: Role): RoleModelInit => {
    const adapter = adapters[r];
    return { baseURL: `${trimUrl(apiUrl)}/model/${r}/v1`, apiKey: token, model: "", fetch: meteredFetch, ...(adapter ? { adapter: { id: adapter.id, version: adapter.version } } : {}) };
  };
  return createModels({ executor: role("executor"), planner: role("planner"), summarizer: role("summarizer") });
}

/**
 * The OCR reader for blind screens: packages/ocr's browser entry and Tesseract's files (served by this app's /ocr
 * route) are loaded on the first read only, like the runtime itself; one reader for the tab's life.
 */
let reader: Promise<OcrReader> | null = null;
const tabOcr: Ocr = {
  async read(png, opts) {
    reader ??= import("@phoneloop/ocr/browser").then(({ createBrowserOcr }) => createBrowserOcr({ workerPath: "/ocr/worker.min.js", corePath: "/ocr/core", langPath: "/ocr/tessdata" }));
    reader.catch(() => (reader = null)); // a failed load is tried again at the next blind screen
    return (await reader).read(png, opts);
  },
};

/** Runs (or resumes) a goal in this tab on the connected phone until the run ends. */
export async function runInTab(init: TabRunInit): Promise<RunOutcome> {
  const cp = init.agent.controlPlane;
  const registration = tabRegistration(init.agent, init.deviceInfo);
  if (init.runId) await waitForRunLease(cp, init.runId, registration, init.signal, init.onWait);
  let runId: string | null = init.runId ?? null;
  // The adapters as saved when the run starts (the model settings' status: an agent token reads it).
  const { adapters } = await init.agent.client.modelSettings.status.query({});
  const models = proxiedModels(init.apiUrl, init.agent.token, () => runId, adapters, init.onUsage);
  return runAgent(
    { device: init.device, models, controlPlane: cp, clock: systemClock, images: browserImages, ocr: readingInLocale(tabOcr, init.deviceInfo?.locale), outages: init.agent.outages },
    {
      ...(init.goalId ? { goalId: init.goalId } : {}),
      ...(init.runId ? { runId: init.runId } : {}),
      agent: registration,
      config: { leaseTtlMs: TAB_LEASE_TTL_MS, ...init.config },
      ...(init.signal ? { signal: init.signal } : {}),
      onEvent: (e) => {
        if (e.type === "run") runId = e.runId;
        init.onEvent?.(e);
      },
    },
  );
}

/**
 * Resuming a run another tab or worker drove: while it still holds a lease on the goal's todo the core answers
 * CONFLICT with the lease's end; this waits until then and tries again (the same rule as the headless agent's
 * resume, packages/cli/src/agent/resume.ts; here it also reports the wait to the page).
 */
async function waitForRunLease(cp: ControlPlane, runId: string, registration: ReturnType<typeof tabRegistration>, signal?: AbortSignal, onWait?: (w: { holder: string; until: string }) => void): Promise<void> {
  await cp.registerAgent(registration);
  for (;;) {
    signal?.throwIfAborted();
    try {
      await cp.resumeRun({ runId, agentId: registration.id });
      return;
    } catch (e) {
      const until = e instanceof ControlPlaneConflict ? e.details?.expiresAt : undefined;
      if (typeof until !== "string") throw e;
      onWait?.({ holder: String(e instanceof ControlPlaneConflict ? (e.details?.currentHolder ?? "another tab") : "another tab"), until });
      await systemClock.sleep(Math.max(250, Date.parse(until) - Date.now() + 250), signal);
    }
  }
}
