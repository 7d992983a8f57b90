// The one composition root of the headless agent: the API client and its ControlPlane, the phone, the models per
// role, the Node image codec, the OCR reader for blind screens and the clock, handed to the runtime's runAgent.
// Nothing else wires these parts.
import { hostname } from "node:os";
import { createModels, outageFeed, readingInLocale, runAgent, systemClock, type AgentConfig, type AgentEvent, type Clock, type Device, type Models, type ModelsInit, type RunOutcome } from "@phoneloop/agent";
import { nodeImages } from "@phoneloop/agent/node";
import type { ControlPlane, Ocr } from "@phoneloop/agent/ports";
import { createNodeOcr, OcrUnavailable, type OcrReader } from "@phoneloop/ocr/node";
import { checkApi, createApiClient, createControlPlane, newAgentId, type RetryNotice } from "@phoneloop/client";
import { connectDevice, type DeviceSpec } from "./device.ts";
import { recordPhoneTaskScore, type PhoneControl, type TaskScore } from "./phone-task-score.ts";
import { waitToResume, type ResumeWait } from "./resume.ts";

export interface HeadlessInit {
  apiUrl: string;
  /** Registers under this id (a restarted worker keeps its identity); a new one otherwise. */
  agentId?: string;
  /** The agent token it acts with (the API records this agent as the actor). */
  agentToken: string;
  /** An API request without an answer after this long (ms) is abandoned and retried (packages/client's default otherwise). */
  requestTimeoutMs?: number;
  /** A connected phone, or where to connect one (closed again when the run ends). */
  device: Device | DeviceSpec;
  models: Models | ModelsInit;
  goal?: string;
  goalId?: string;
  runId?: string;
  agentName?: string;
  config?: Partial<AgentConfig>;
  /** Graceful cancel: the run is summarised. */
  signal?: AbortSignal;
  /** Hard stop (crash tests): nothing more is written. */
  kill?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
  /** A virtual phone's control API: its active task's evaluator score becomes the run's validation evidence. */
  phoneControl?: PhoneControl;
  /** An API call failed in a way retrying may fix and is tried again (the API or its database is away or stuck). */
  onRetry?: (n: RetryNotice) => void;
  /** Resuming a run another worker still holds: called each time it waits for that worker's lease to end. */
  onWait?: (w: ResumeWait) => void;
  clock?: Clock;
  /**
   * Reads blind screens' pixels (a WebView or canvas without nodes) for the permission checkpoint. Default: the Node
   * reader over Debian's Tesseract language data; null, or no data installed: none (such taps are then gated).
   */
  ocr?: Ocr | null;
  /** What the run sees of the state core, when not all of it as it is now (a suite's attempt reads the learning of the suite's start). */
  controlPlaneView?: (cp: ControlPlane) => ControlPlane;
}

/** The Node OCR reader when its language data is installed (its worker starts on the first blind screen). */
function defaultOcr(): OcrReader | null {
  try {
    return createNodeOcr();
  } catch (e) {
    if (e instanceof OcrUnavailable) return null;
    throw e;
  }
}

export async function runHeadless(init: HeadlessInit): Promise<RunOutcome & { taskScore: TaskScore | null }> {
  const clock = init.clock ?? systemClock;
  // The id is chosen here so a restarted worker can keep it; the token is bound to it on first register.
  const agentId = init.agentId ?? newAgentId();
  // The phone connects while the API is checked and the run resumed, so a restarted worker's first step comes sooner.
  const owned = !isDevice(init.device);
  const connecting = isDevice(init.device) ? Promise.resolve(init.device) : connectDevice(init.device);
  connecting.catch(() => undefined); // its failure is reported below, after the API's
  let device: Device;
  let controlPlane: ReturnType<typeof createControlPlane>;
  // The client reports each outage of the API once it is over; the run records them as evidence.
  const outages = outageFeed();
  const registration = { id: agentId, name: init.agentName ?? `headless@${hostname()}`, kind: "headless" as const, capabilities: init.config?.capabilities ?? ["phone"] };
  try {
    await checkApi(init.apiUrl);
    const client = createApiClient({ apiUrl: init.apiUrl, auth: { kind: "token", token: init.agentToken }, ...(init.requestTimeoutMs ? { requestTimeoutMs: init.requestTimeoutMs } : {}) });
    controlPlane = createControlPlane(client, { apiUrl: init.apiUrl, clock, onOutage: outages.report, ...(init.onRetry ? { onRetry: init.onRetry } : {}) });
    const phone = connecting.then((d) => d.info()).then((i) => ({ serial: i.serial, model: i.model }), () => null);
    if (init.runId) await waitToResume(controlPlane, { runId: init.runId, agent: registration, phone, clock, ...(init.signal ? { signal: init.signal } : {}), ...(init.onWait ? { onWait: init.onWait } : {}) });
    device = await connecting;
  } catch (e) {
    if (owned) void connecting.then((d) => d.close()).catch(() => undefined);
    throw e;
  }
  const ownedOcr = init.ocr === undefined ? defaultOcr() : null;
  const ocr = init.ocr === undefined ? ownedOcr : init.ocr;
  try {
    const info = await device.info().catch(() => null);
    const models = isModels(init.models) ? init.models : createModels({ ...init.models, clock });
    const out = await runAgent(
      { device, models, controlPlane: init.controlPlaneView ? init.controlPlaneView(controlPlane) : controlPlane, clock, images: nodeImages, outages, ...(ocr ? { ocr: readingInLocale(ocr, info?.locale) } : {}) },
      {
        ...(init.goal ? { goal: init.goal } : {}),
        ...(init.goalId ? { goalId: init.goalId } : {}),
        ...(init.runId ? { runId: init.runId } : {}),
        agent: {
          ...registration,
          ...(info ? { meta: { device: { serial: info.serial, model: info.model } } } : {}),
        },
        ...(init.config ? { config: init.config } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
        ...(init.kill ? { kill: init.kill } : {}),
        ...(init.onEvent ? { onEvent: init.onEvent } : {}),
      },
    );
    // A virtual phone's task score is read from its control API here, so the runtime never knows the phone is simulated.
    // The run's answer is its report: the conclusion and the findings (where the executor's `answer` actions land).
    const answer = [out.report.conclusion, ...out.report.findings].join("\n");
    const taskScore = init.phoneControl ? await recordPhoneTaskScore(controlPlane, init.phoneControl, { runId: out.runId, goalId: out.goalId, answer }) : null;
    return { ...out, taskScore };
  } finally {
    if (owned) await device.close().catch(() => undefined);
    await ownedOcr?.close().catch(() => undefined);
  }
}

function isDevice(d: Device | DeviceSpec): d is Device {
  return typeof (d as Device).screenshot === "function";
}

function isModels(m: Models | ModelsInit): m is Models {
  return typeof (m as Models).executor?.complete === "function";
}
