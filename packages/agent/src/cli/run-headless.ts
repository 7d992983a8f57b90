// Headless composition (Node): connect the phone, build the role models, register as a peer agent, claim, run —
// leaving the same evidence and replay as a browser run. The ControlPlane is a parameter: the composition root
// (packages/cli) passes the tRPC adapter; the agent never imports the state core.
import { hostname } from "node:os";
import { AdbDevice } from "@phoneloop/device";
import { connectAdbServer, connectTcp, connectWebSocketNode, NodeCredentialStore } from "@phoneloop/device/node";
import { nodeImages } from "../images/node.ts";
import { createModels, type ModelsInit } from "../model/models.ts";
import { runAgent, type RunOutcome } from "../graph/run.ts";
import type { AgentConfig, AgentEvent } from "../graph/state.ts";
import { systemClock, type Clock, type ControlPlane, type Device, type Images, type Models } from "../ports.ts";
import { parseDeviceSpec, type CliArgs, type DeviceSpec } from "./args.ts";

export { parseCliArgs, parseDeviceSpec, USAGE, CliError, type CliArgs, type DeviceSpec } from "./args.ts";

export interface HeadlessOptions {
  /** The goal (creates an objective), unless resuming with runId or working on goalId. */
  goal?: string;
  /** A Device already connected, or a spec: "tcp:host:port", "ws:url", "adb-server[:serial]". */
  device: Device | DeviceSpec | string;
  models: Models | ModelsInit;
  controlPlane: ControlPlane;
  runId?: string;
  goalId?: string;
  config?: Partial<AgentConfig>;
  agentName?: string;
  signal?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
  images?: Images;
  clock?: Clock;
}

export async function connectDevice(spec: DeviceSpec | string): Promise<AdbDevice> {
  const s = typeof spec === "string" ? parseDeviceSpec(spec) : spec;
  const credentialStore = new NodeCredentialStore();
  const adb =
    s.kind === "tcp"
      ? await connectTcp({ host: s.host, port: s.port, credentialStore })
      : s.kind === "ws"
        ? await connectWebSocketNode({ url: s.url, credentialStore })
        : await connectAdbServer({ ...(s.serial ? { serial: s.serial } : {}), ...(s.host ? { host: s.host } : {}), ...(s.port ? { port: s.port } : {}) });
  return new AdbDevice(adb);
}

function isDevice(d: unknown): d is Device {
  return typeof d === "object" && d !== null && typeof (d as Device).screenshot === "function";
}

function isModels(m: Models | ModelsInit): m is Models {
  return typeof (m as Models).executor?.complete === "function";
}

export async function runHeadless(opts: HeadlessOptions): Promise<RunOutcome> {
  const clock = opts.clock ?? systemClock;
  const owned = !isDevice(opts.device);
  const device = isDevice(opts.device) ? opts.device : await connectDevice(opts.device);
  try {
    const info = await device.info().catch(() => null);
    const models = isModels(opts.models) ? opts.models : createModels({ ...opts.models, clock });
    return await runAgent(
      { device, models, controlPlane: opts.controlPlane, clock, images: opts.images ?? nodeImages },
      {
        ...(opts.goal ? { goal: opts.goal } : {}),
        ...(opts.runId ? { runId: opts.runId } : {}),
        ...(opts.goalId ? { goalId: opts.goalId } : {}),
        agent: {
          name: opts.agentName ?? `headless@${hostname()}`,
          kind: "headless",
          capabilities: opts.config?.capabilities ?? ["phone"],
          ...(info ? { device: { serial: info.serial, model: info.model } } : {}),
        },
        ...(opts.config ? { config: opts.config } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
      },
    );
  } finally {
    if (owned) await device.close().catch(() => undefined);
  }
}

/** CLI arguments → the models of runHeadless (per-role model names and endpoints). */
export function modelsFromArgs(a: CliArgs): ModelsInit {
  const baseURL = a.baseURL ?? "https://api.openai.com/v1";
  const role = (model: string | undefined, fallback: string, url?: string) => ({ baseURL: url ?? baseURL, model: model ?? fallback, ...(a.apiKey ? { apiKey: a.apiKey } : {}) });
  return {
    executor: role(a.executorModel, "gpt-4o", a.executorBaseURL),
    planner: role(a.plannerModel, "gpt-4o-mini", a.plannerBaseURL),
    summarizer: role(a.summarizerModel ?? a.plannerModel, "gpt-4o-mini", a.plannerBaseURL),
  };
}
