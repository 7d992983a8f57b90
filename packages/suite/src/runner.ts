// The suite: every selected task under seeds 1..n, each seed `trials` times, `parallel` attempts at a time, each
// recorded in the state core as it ends (a suite run whose attempts link their runs, with the settings its figures
// depend on: settings.ts), then the figures. The API is reached through packages/client with the suite's agent
// token. Attempts read the learning of the suite's start unless it is shared (learning.ts).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent, ControlPlane, ModelsInit } from "@phoneloop/agent";
import { createApiClient, newAgentId } from "@phoneloop/client";
import { MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine } from "@phoneloop/device/node";
import type { Perturbation } from "@phoneloop/virtual-phone";
import { runAttempt, type AttemptResult, type GateAnswerer } from "./attempt.ts";
import { learningAsOf, snapshotLearning, type LearningSnapshot, type SuiteLearning } from "./learning.ts";
import { summarize, type SuiteSummary } from "./report.ts";
import type { SuiteTask } from "./tasks.ts";
import { suiteSettingsOf } from "./settings.ts";
import type { SuiteSettings } from "@phoneloop/state/domain";

export interface SuiteInit {
  apiUrl: string;
  agentToken: string;
  /** The model profile: its name is recorded, its endpoints are used. */
  profile: { name: string; models: ModelsInit };
  tasks: SuiteTask[];
  /** How the tasks were picked, as recorded on the suite run. */
  tasksGlob: string;
  /** "pack", or the folder the scenario files came from. */
  scenarios: string;
  seeds: number;
  /** Attempts per task and seed under the same settings (default 1). */
  trials?: number;
  parallel: number;
  perturb: readonly Perturbation[];
  /** isolated (default): every attempt reads the learning of the suite's start; shared: what earlier attempts left, their order recorded. */
  learning?: SuiteLearning;
  answerGate?: GateAnswerer;
  attemptTimeoutMs?: number;
  signal?: AbortSignal;
  onAttempt?: (a: AttemptResult) => void;
  onEvent?: (attempt: { taskId: string; seed: number }, e: AgentEvent) => void;
}

export interface SuiteOutcome {
  suiteRunId: string;
  /** What was recorded as the figures' settings (models, adapters, sampling, the prompts' fingerprint). */
  settings: SuiteSettings;
  status: "completed" | "failed";
  attempts: AttemptResult[];
  summary: SuiteSummary;
  learning: SuiteLearning;
  /** isolated: what every attempt started from. */
  snapshot: LearningSnapshot | null;
}

export async function runSuite(init: SuiteInit): Promise<SuiteOutcome> {
  const learning = init.learning ?? "isolated";
  const trials = init.trials ?? 1;
  const settings = suiteSettingsOf(init.profile.models);
  const client = createApiClient({ apiUrl: init.apiUrl, auth: { kind: "token", token: init.agentToken } });
  const suite = await client.suite.start.mutate({
    modelProfile: init.profile.name,
    tasks: init.tasksGlob,
    scenarios: init.scenarios,
    seeds: init.seeds,
    trials,
    settings,
    perturbations: [...init.perturb],
    learning,
  });
  // Taken after the suite run is recorded: its attempts are what comes after.
  const snapshot = learning === "isolated" ? await snapshotLearning(client) : null;
  const controlPlaneView = snapshot ? (cp: ControlPlane) => learningAsOf(cp, snapshot) : undefined;
  // One ADB key for the suite: every attempt's phone trusts it from the start, as a phone that allowed this computer.
  const dir = mkdtempSync(join(tmpdir(), "phoneloop-suite-"));
  const credentialStore = new MemoryCredentialStore("suite@phoneloop");
  const key = await credentialStore.generateKey();
  const adbKeysFile = join(dir, "adbkey.pub");
  writeFileSync(adbKeysFile, adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name), { mode: 0o600 });

  // The token binds to the agent id it first registers: every attempt acts as this one agent.
  const agentId = newAgentId();
  const queue = init.tasks.flatMap((task) => Array.from({ length: init.seeds }, (_, i) => Array.from({ length: trials }, (_, t) => ({ task, seed: i + 1, trial: t + 1 }))).flat());
  const attempts: AttemptResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < queue.length && !init.signal?.aborted) {
      const order = next + 1;
      const { task, seed, trial } = queue[next++]!;
      const result = await runAttempt({
        apiUrl: init.apiUrl,
        agentToken: init.agentToken,
        agentId,
        models: init.profile.models,
        task,
        seed,
        trial,
        perturb: init.perturb,
        credentialStore,
        adbKeysFile,
        ...(init.answerGate ? { answerGate: init.answerGate } : {}),
        ...(init.attemptTimeoutMs ? { timeoutMs: init.attemptTimeoutMs } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
        ...(init.onEvent ? { onEvent: (e: AgentEvent) => init.onEvent!({ taskId: task.id, seed }, e) } : {}),
        ...(controlPlaneView ? { controlPlaneView } : {}),
      });
      if (learning === "shared") result.order = order;
      await client.suite.recordAttempt.mutate({ suiteRunId: suite.id, ...result, reason: result.reason.slice(0, 2000) });
      attempts.push(result);
      init.onAttempt?.(result);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(init.parallel, queue.length)) }, worker));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const status = attempts.length === queue.length ? "completed" : "failed";
  await client.suite.finish.mutate({ suiteRunId: suite.id, status });
  const place = (a: AttemptResult) => queue.findIndex((q) => q.task.id === a.taskId && q.seed === a.seed && q.trial === a.trial);
  attempts.sort((a, b) => place(a) - place(b));
  return { suiteRunId: suite.id, settings, status, attempts, summary: summarize(attempts), learning, snapshot };
}
