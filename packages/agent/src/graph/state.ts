// The one state object of a run, checkpointed after every node and every executor step.
import type { Action } from "../actions/schema.ts";
import type { ActionSample } from "../detectors/index.ts";
import type { Blackboard } from "../memory/blackboard.ts";
import type { StepSummary } from "../memory/history.ts";
import type { SessionApprovals } from "../policy/index.ts";
import type { AgentPorts, Lease, RunStatus } from "../ports.ts";
import type { AppRule } from "../policy/index.ts";
import type { ImageTokenFormula } from "../model/tokens.ts";

export type NodeName = "planner" | "executor" | "summarizer" | "end";

export type ExitReason =
  | "complete"
  | "answer"
  | "infeasible"
  | "scroll_streak"
  | "step_cap"
  | "run_step_cap"
  | "model_failed"
  | "quota"
  | "paused"
  | "throttled"
  | "gate_waiting"
  | "cancelled"
  | "device_lost"
  | "lease_lost"
  | "writeback_failed";

export interface ExecutorReturn {
  todoId: string;
  status: "completed" | "partial" | "blocked";
  reason: ExitReason;
  summary: string;
  outputs: Blackboard;
  answers: string[];
  finalScreen: { app: string; phash: string; evidenceId?: string } | null;
  steps: number;
}

export interface PendingGate {
  gateId: string;
  stepIndex: number;
  action: Action;
  kind: string;
  tier: "confirm" | "high_risk" | "question";
}

export interface ExecutorState {
  todoId: string;
  todoTitle: string;
  lease: Lease;
  inputs: Blackboard;
  outputsDeclared: string[];
  steps: StepSummary[];
  samples: ActionSample[];
  /** pHashes of the screenshots, in order: before the first action, then after each. */
  hashes: string[];
  /** Whether the last screenshot hash was taken after the last executed action (detectors ran). */
  sensedAfterAction: boolean;
  reminder?: string;
  feedback?: string;
  outputs: Blackboard;
  answers: string[];
  /** Write-ahead record of the action being performed; on resume its outcome is unknown and it is not repeated. */
  inFlight?: { stepIndex: number; action: Action; description: string };
  pendingGate?: PendingGate;
  stepCount: number;
  lastApp: string;
  lastObservationId?: string;
}

export interface ExecutedTodo {
  todoId: string;
  title: string;
  status: ExecutorReturn["status"] | "done" | "host";
  summary: string;
}

export interface RunState {
  version: 1;
  runId: string;
  goalId: string;
  agentId: string;
  goal: string;
  node: NodeName;
  plan: string;
  blackboard: Blackboard;
  approvals: SessionApprovals;
  attempts: Record<string, number>;
  /** Global step counter of the run (evidence and steps are keyed by it). */
  stepIndex: number;
  plannerCalls: number;
  executor: ExecutorState | null;
  lastReturn: ExecutorReturn | null;
  /** Told to the executor on the next attempt of a todo (why the previous one was not accepted). */
  retryFeedback?: string;
  executed: ExecutedTodo[];
  findings: string[];
  blocked: string[];
  totals: { steps: number; modelCalls: number; inputTokens: number; outputTokens: number; microUsd: number; promptTokensCounted: number };
  end: { status: RunStatus; reason: string } | null;
}

export interface AgentConfig {
  capabilities: string[];
  leaseTtlMs: number;
  maxStepsPerTodo: number;
  /** Per-task iteration cap (CONCEPTS §5). */
  maxStepsPerRun: number;
  maxAttemptsPerTodo: number;
  senseRetries: number;
  executeRetries: number;
  modelRetries: number;
  /** Long side of the screenshot sent to the model. */
  screenshotLongSide: number;
  imageMime: "image/jpeg" | "image/png" | "image/webp";
  imageTokenFormula: ImageTokenFormula;
  verbatimSteps: number;
  stable: { timeoutMs: number; intervalMs: number };
  /**
   * How the executor waits for the screen to settle after an action: "runtime" takes frames until two match
   * (and reuses the last as the next observation); "device" calls Device.waitForStable and then senses.
   */
  settle: "runtime" | "device";
  deviceTimeoutMs: number;
  /** Kinds auto-allowed from the start of the session (e.g. "input_text" from a CLI flag); never high-risk ones. */
  preapproved: string[];
  appRules?: AppRule[];
  gateAnswerRoles: ("owner" | "reviewer" | "operator")[];
  /** Store the downscaled screenshot with every observation. */
  storeScreenshots: boolean;
}

export const DEFAULT_CONFIG: AgentConfig = {
  capabilities: ["phone"],
  leaseTtlMs: 120_000,
  maxStepsPerTodo: 50,
  maxStepsPerRun: 200,
  maxAttemptsPerTodo: 3,
  senseRetries: 3,
  executeRetries: 3,
  modelRetries: 2,
  screenshotLongSide: 1024,
  imageMime: "image/jpeg",
  imageTokenFormula: "openai-high",
  verbatimSteps: 4,
  stable: { timeoutMs: 3000, intervalMs: 30 },
  settle: "runtime",
  deviceTimeoutMs: 10_000,
  preapproved: [],
  gateAnswerRoles: ["owner"],
  storeScreenshots: true,
};

export type AgentEvent =
  | { type: "node"; node: NodeName }
  | { type: "step"; stepIndex: number; todoId: string; action: string; outcome: string; promptTokens: number; overheadMs: number; modelMs: number; phases?: Record<string, number> }
  | { type: "anomaly"; kind: string; message: string }
  | { type: "gate"; gateId: string; question: string }
  | { type: "gate_decision"; gateId: string; decision: string }
  | { type: "executor_return"; ret: ExecutorReturn }
  | { type: "end"; status: RunStatus; reason: string };

/** Thrown only by a simulated or real hard stop of the worker (no cleanup, like a killed process). */
export class WorkerKilled extends Error {
  readonly code = "worker_killed";
}

export interface RunContext {
  ports: AgentPorts;
  config: AgentConfig;
  /** Graceful cancel: the run goes to the summarizer. */
  signal?: AbortSignal;
  /** Hard stop: nothing more is written, like a killed process. */
  kill?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
}

export function guard(ctx: RunContext): void {
  if (ctx.kill?.aborted) throw new WorkerKilled("worker stopped");
}

export function initialState(input: { runId: string; goalId: string; agentId: string; goal: string; preapproved: string[] }): RunState {
  return {
    version: 1,
    runId: input.runId,
    goalId: input.goalId,
    agentId: input.agentId,
    goal: input.goal,
    node: "planner",
    plan: "",
    blackboard: {},
    approvals: { streak: Object.fromEntries(input.preapproved.map((k) => [k, 3])) },
    attempts: {},
    stepIndex: 0,
    plannerCalls: 0,
    executor: null,
    lastReturn: null,
    executed: [],
    findings: [],
    blocked: [],
    totals: { steps: 0, modelCalls: 0, inputTokens: 0, outputTokens: 0, microUsd: 0, promptTokensCounted: 0 },
    end: null,
  };
}
