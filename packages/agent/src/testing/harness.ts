// Wiring for runtime tests: scripted model server (per role by model name), memory control plane, fake clock,
// a device, and the product's OpenAI client path in between.
import { createModels } from "../model/models.ts";
import { nodeImages } from "../images/node.ts";
import type { AgentPorts, Device } from "../ports.ts";
import { MemoryControlPlane, type GateAnswer, type GateRecord } from "./memory-control-plane.ts";
import { FakeClock } from "./fake-clock.ts";
import { startScriptedModelServer, type RecordedRequest, type ScriptEntry, type ScriptedModelServer } from "./scripted-model-server.ts";

export interface HarnessInit {
  device: Device;
  /** Executor replies by turn. */
  executor: ScriptEntry[];
  /** Planner replies in order (default: one executor todo titled after the goal, then "replan"/"summarise" as given). */
  planner?: ScriptEntry[];
  summarizer?: ScriptEntry[];
  onGate?: (g: GateRecord) => GateAnswer | undefined | Promise<GateAnswer | undefined>;
  /** The core's attempt limit on each todo (the core's default when absent). */
  maxAttempts?: number;
  rejectResponseFormat?: boolean;
  /** The runtime's clock; a test passes the one its virtual phone runs on, so a `wait` moves both (default: a new one). */
  clock?: FakeClock;
  /** The executor model's adapter setting (default phoneloop). */
  executorAdapter?: { id: string; version?: string };
}

export interface Harness {
  server: ScriptedModelServer;
  cp: MemoryControlPlane;
  clock: FakeClock;
  ports: AgentPorts;
  executorRequests(): RecordedRequest[];
  plannerRequests(): RecordedRequest[];
  summarizerRequests(): RecordedRequest[];
  stop(): Promise<void>;
}

export const planOf = (todos: { id: string; title: string; kind?: "executor" | "host"; app?: string; inputs?: string[]; outputs?: string[] }[], plan = "test plan"): ScriptEntry => ({
  text: JSON.stringify({ plan, todos: todos.map((t) => ({ kind: "executor", inputs: [], outputs: [], ...t })) }),
});

export async function startHarness(init: HarnessInit): Promise<Harness> {
  const server = await startScriptedModelServer({
    ...(init.rejectResponseFormat ? { rejectResponseFormat: true } : {}),
    rules: [
      { match: (r) => r.model === "planner-model", replies: init.planner ?? [planOf([{ id: "t1", title: "Do the task on the phone" }])] },
      { match: (r) => r.model === "summarizer-model", replies: init.summarizer ?? [{ text: JSON.stringify({ findings: [], conclusion: "Report written." }) }], repeatLast: true },
      { match: (r) => r.model === "executor-model", replies: init.executor },
    ],
  });
  const clock = init.clock ?? new FakeClock();
  const cp = new MemoryControlPlane({ clock, ...(init.onGate ? { onGate: init.onGate } : {}), ...(init.maxAttempts ? { maxAttempts: init.maxAttempts } : {}) });
  const models = createModels({
    executor: { baseURL: server.baseURL, model: "executor-model", price: { inputPerMTok: 2.5, outputPerMTok: 10 }, ...(init.executorAdapter ? { adapter: init.executorAdapter } : {}) },
    planner: { baseURL: server.baseURL, model: "planner-model", price: { inputPerMTok: 0.15, outputPerMTok: 0.6 } },
    summarizer: { baseURL: server.baseURL, model: "summarizer-model" },
    clock,
  });
  const ports: AgentPorts = { device: init.device, models, controlPlane: cp, clock, images: nodeImages };
  return {
    server,
    cp,
    clock,
    ports,
    executorRequests: () => server.requests.filter((r) => r.model === "executor-model"),
    plannerRequests: () => server.requests.filter((r) => r.model === "planner-model"),
    summarizerRequests: () => server.requests.filter((r) => r.model === "summarizer-model"),
    stop: () => server.stop(),
  };
}
