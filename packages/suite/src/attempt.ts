// One attempt: a fresh virtual phone in its own process with the task's scenario, seed and perturbations; the task
// started on it; the headless agent's composition root (runHeadless: the real runtime, writing through the API to
// the state core) given its goal; the phone's evaluator scoring the end state (recorded as the run's validation
// evidence). What it took — steps, tokens, cost, seconds — comes from the run's own report.
import type { AgentEvent, ControlPlane, ModelsInit } from "@phoneloop/agent";
import { runHeadless } from "@phoneloop/cli";
import { DeadlineExceeded, startDeadline } from "@phoneloop/client";
import { AdbDevice, type MemoryCredentialStore } from "@phoneloop/device";
import { connectTcp } from "@phoneloop/device/node";
import type { Perturbation } from "@phoneloop/virtual-phone";
import { startPhoneProcess } from "./phone-process.ts";
import type { SuiteTask } from "./tasks.ts";

export interface AttemptResult {
  taskId: string;
  seed: number;
  /** Which trial of this task and seed (1..trials). */
  trial: number;
  runId: string | null;
  score: number;
  reason: string;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
  durationMs: number;
  /** With shared learning: the place the attempt started in (1, 2, …); it read what attempts that ended before it left. */
  order?: number;
}

/** Who answers the gates an attempt opens (a person's part): approvals are approved, questions answered. */
export type GateAnswerer = (gate: { gateId: string; question: string }) => Promise<{ question: boolean }>;

export interface AttemptInit {
  apiUrl: string;
  agentToken: string;
  agentId: string;
  models: ModelsInit;
  /** The task the phone starts (its variant's params); without `task.task`, the phone starts none and the run gets `task.goal` (a skill's validation). */
  task: AttemptSubject;
  seed: number;
  trial: number;
  perturb: readonly Perturbation[];
  /** The suite's ADB key: the phone lists its public half (adbKeysFile) in adb_keys. */
  credentialStore: MemoryCredentialStore;
  adbKeysFile: string;
  answerGate?: GateAnswerer;
  /** An attempt still running after this long is cancelled (its run is summarised); default 10 minutes. */
  timeoutMs?: number;
  /** Stops the attempt (the suite was interrupted): its run is summarised. */
  signal?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
  /** The state core as the attempt's run sees it (learning as of the suite's start: learning.ts). */
  controlPlaneView?: (cp: ControlPlane) => ControlPlane;
}

/** What an attempt runs: a suite's task, or a goal on the scenario's phone with no task started (`task` left out). */
export type AttemptSubject = Pick<SuiteTask, "id" | "goal" | "maxSteps" | "scenario"> & Partial<Pick<SuiteTask, "task" | "variant">>;

async function control<T>(url: string, token: string, method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`the virtual phone answered ${res.status} to ${method} ${path}: ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as T;
}

export async function runAttempt(init: AttemptInit): Promise<AttemptResult> {
  const started = performance.now();
  const base = { taskId: init.task.id, seed: init.seed, trial: init.trial };
  const failed = (reason: string, runId: string | null = null): AttemptResult => ({ ...base, runId, score: 0, reason, steps: 0, inputTokens: 0, outputTokens: 0, costMicroUsd: 0, durationMs: Math.round(performance.now() - started) });
  let phone;
  try {
    phone = await startPhoneProcess({ scenario: init.task.scenario, seed: init.seed, perturb: init.perturb, adbKeysFile: init.adbKeysFile });
  } catch (e) {
    return failed(`the phone did not start: ${(e as Error).message}`);
  }
  // A plain timer (startDeadline, @phoneloop/client): a timeout signal combined with AbortSignal.any stops firing after a GC on Node 20.
  const deadline = startDeadline(init.timeoutMs ?? 600_000, `the attempt of ${init.task.id}`, init.signal);
  const signal = deadline.signal;
  const timedOut = () => signal.reason instanceof DeadlineExceeded;
  let runId: string | null = null;
  let device: AdbDevice | null = null;
  try {
    const goal =
      init.task.task === undefined
        ? init.task.goal
        : (await control<{ goal: string }>(phone.controlUrl, phone.controlToken, "POST", `/tasks/${encodeURIComponent(init.task.task)}/start`, { seed: init.seed, variant: init.task.variant ?? 0 })).goal;
    device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: phone.adbPort, credentialStore: init.credentialStore }));
    const out = await runHeadless({
      apiUrl: init.apiUrl,
      agentToken: init.agentToken,
      agentId: init.agentId,
      agentName: "suite runner",
      device,
      models: init.models,
      goal,
      phoneControl: { url: phone.controlUrl, token: phone.controlToken },
      config: { maxStepsPerRun: Math.max(init.task.maxSteps * 3, 60) },
      ...(init.controlPlaneView ? { controlPlaneView: init.controlPlaneView } : {}),
      signal,
      onEvent: (e) => {
        if (e.type === "run") runId = e.runId;
        if (e.type === "gate" && init.answerGate) {
          const pc = phone!;
          void init
            .answerGate({ gateId: e.gateId, question: e.question })
            // a question the agent asked its user is what a task's `asked` check looks for on the phone
            .then((a) => (a.question ? control(pc.controlUrl, pc.controlToken, "POST", "/events/ask_user", { question: e.question }) : undefined))
            .catch(() => undefined);
        }
        init.onEvent?.(e);
      },
    });
    const t = out.report.totals;
    return {
      ...base,
      runId: out.runId,
      score: out.taskScore?.score ?? 0,
      reason: timedOut() ? `cancelled after ${Math.round((init.timeoutMs ?? 600_000) / 1000)} s; ${out.taskScore?.reason ?? "not scored"}` : (out.taskScore?.reason ?? `the phone runs no task (run ${out.status})`),
      steps: t.steps,
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      costMicroUsd: Math.round(t.microUsd),
      durationMs: Math.round(performance.now() - started),
    };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return failed(`${typeof code === "string" ? `${code}: ` : ""}${(e as Error).message}`, runId);
  } finally {
    deadline.settle();
    await device?.close().catch(() => undefined);
    await phone.stop();
  }
}
