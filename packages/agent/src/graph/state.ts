// The one state object of a run, checkpointed after every node and every executor step. It is a union by node:
// what the run carries depends on where it is.
import type { Action } from "../actions/schema.ts";
import type { ActionSample, ScreenSample } from "../detectors/index.ts";
import type { Blackboard } from "../memory/blackboard.ts";
import type { StepSummary } from "../memory/history.ts";
import type { SessionApprovals } from "../policy/index.ts";
import type { AgentPorts, EncodedImage, GateResolution, Lease, ModelRole, OcrReading, RunEndReason, RunEndStatus, RunStatus, UiNode } from "../ports.ts";
import type { AppRule, PermissionDecision, PolicyRules } from "../policy/index.ts";
import type { ImageTokenFormula } from "../model/tokens.ts";
import type { ElementRef } from "./observe.ts";
import type { Learned } from "./learning.ts";
import type { GatePolicy, ModelSkipped, PolicyRecord } from "@phoneloop/state/domain";
import type { SkillStep } from "../skills/contract.ts";

export type NodeName = "planner" | "executor" | "summarizer" | "end";

/** Why the executor handed back: the state core's run end reasons (one word list). */
export type ExitReason = RunEndReason;

export interface ExecutorReturn {
  todoId: string;
  status: "completed" | "partial" | "blocked";
  reason: ExitReason;
  summary: string;
  outputs: Blackboard;
  answers: string[];
  /** The last screen seen; `observationKey` is the idempotency key of its observation evidence. */
  finalScreen: { app: string; phash: string; observationKey?: string } | null;
  steps: number;
}

export interface PendingGate {
  gateId: string;
  stepIndex: number;
  action: Action;
  kind: string;
  tier: "confirm" | "high_risk" | "question";
  /** What approvals count under (kind, app and target); absent in states checkpointed before it existed. */
  approvalKey?: string;
  /** Why the gate opened: the policy's rule, the evidence it matched and its version (for replay). */
  policy?: GatePolicy;
}

/** Why a gate opened, and the decision recorded with an action: the core's evidence shapes (domain/evidence.ts). */
export type { GatePolicy, PolicyRecord } from "@phoneloop/state/domain";

/** What the executor sees of the phone in one step (not checkpointed: a resumed step senses again). */
export interface Screen {
  app: string;
  packageName: string | null;
  width: number;
  height: number;
  phash: string;
  /** Block luminance signature, finer than the pHash (for "did the screen change"). */
  blocks?: string;
  tree: UiNode | null;
  elements: ElementRef[];
  image: EncodedImage;
  /** The idempotency key of the observation evidence this screen is recorded as (the step's record writes it). */
  observationKey: string;
  /** The screen cannot be seen: its screenshot is black (`black`, images/dark.ts) or the device reports the window secure. */
  blind?: "black" | "secure";
}

/** The step in progress. Transient: dropped from checkpoints, rebuilt by sensing on resume. */
export interface Turn {
  stepIndex: number;
  screen?: Screen;
  /** Model reply rounds used in this step (one repair round after an unusable reply). */
  round: number;
  /** Tokens this step's model calls used (the step row's count). */
  tokens: number;
  /** Anomalies the detectors saw on this step's screen. */
  anomalies?: string[];
  /** The resolved point of the action being performed. */
  px?: { x: number; y: number } | undefined;
  /** The permission decision for this step's action (recorded with the action's evidence). */
  policy?: PolicyRecord;
  /** The guard model is being asked about this action (the rules were unsure). */
  guarding?: { action: Action; px?: { x: number; y: number }; decision: PermissionDecision };
  /** The gate this step is opening (until the core returns its id). */
  asking?: { action: Action; kind: string; approvalKey?: string; tier: PendingGate["tier"]; question: string; policy?: GatePolicy };
  /** The gate answer this step acts on (after waiting for a gate it opened). */
  /** `nextStepIndex`: after a takeover, the run's next free step index (the person's steps took the ones before). */
  gate?: { pending: PendingGate; resolution: GateResolution; nextStepIndex?: number };
  /** The screenshot is being read (the tree is blind where this action lands). */
  reading?: { action: Action };
  /** What OCR read around `at` on this step's screen (null: no reading could be had). */
  read?: { at: { x: number; y: number } | null; ocr: OcrReading | null };
  /** This step's action was taken without asking the model (a repeated wait). */
  modelSkipped?: ModelSkipped;
}

export interface ExecutorState {
  todoId: string;
  todoTitle: string;
  /** null until (re)claimed: after a resume, or after a gate ended the previous lease. */
  lease: Lease | null;
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
  lastObservationKey?: string;
  /** The step whose model call the state core refused (SPEND_REFUSED): the core's route was asked once for it. */
  spendRefusedAt?: number;
  /**
   * The last step's action was a wait: that wait, the screen the model was last asked on, and how many repeated
   * waits (steps that waited again without asking the model) followed the model's wait. Gone after any other step.
   */
  waited?: { action: Extract<Action, { type: "wait" }>; asked: ScreenSample; repeats: number };
  /**
   * A skill stopped at step `from - 1`, which a person has to approve: the runtime takes that step through its gate
   * (or, when it cannot, the model does), and on the turn after `armed` the skill goes on from step `from` without
   * asking the model.
   */
  skillResume?: { skill: string; params: Record<string, string>; from: number; armed: boolean; /** The step to approve, bound: the runtime takes it itself when its element is there. */ step?: SkillStep };
  /** The step the skill now running started from (0, or where a resumed one went on). */
  skillFrom?: number;
  turn?: Turn;
}

export interface ExecutedTodo {
  todoId: string;
  title: string;
  status: ExecutorReturn["status"] | "done" | "host";
  summary: string;
}

export interface RunEnd {
  status: RunEndStatus;
  reason: RunEndReason;
  /** In words, for the report. */
  detail: string;
}

export interface RunCommon {
  version: 2;
  runId: string;
  goalId: string;
  agentId: string;
  goal: string;
  plan: string;
  blackboard: Blackboard;
  approvals: SessionApprovals;
  attempts: Record<string, number>;
  /** Global step counter of the run (evidence and steps are keyed by it). */
  stepIndex: number;
  plannerCalls: number;
  executed: ExecutedTodo[];
  findings: string[];
  blocked: string[];
  totals: { steps: number; modelCalls: number; inputTokens: number; outputTokens: number; microUsd: number; promptTokensCounted: number };
  /** What earlier runs left for this goal's apps (skills, shortcuts, lessons) and the skills this run used. */
  learned?: Learned;
}

/** A todo the runtime still holds and works on next without claiming it again (after a retry result). */
export interface HeldTodo {
  todoId: string;
  lease: Lease;
}

export type PlannerState = RunCommon & {
  node: "planner";
  lastReturn: ExecutorReturn | null;
  /** The executor's lease on the returned todo, while the planner decides about it. */
  held: HeldTodo | null;
  /** Told to the executor on the next attempt of a todo (why the previous one was not accepted). */
  retryFeedback?: string;
};
export type ExecutorRunState = RunCommon & { node: "executor"; executor: ExecutorState };
export type SummarizerState = RunCommon & { node: "summarizer"; end: RunEnd };
export type EndState = RunCommon & { node: "end"; end: RunEnd };
export type RunState = PlannerState | ExecutorRunState | SummarizerState | EndState;

export interface AgentConfig {
  capabilities: string[];
  leaseTtlMs: number;
  /**
   * How long a suspended run waits for the state core to answer again (ms), after its client's own retries gave up;
   * then the run stops at its last checkpoint (a later worker resumes it).
   */
  suspendMaxMs: number;
  maxStepsPerTodo: number;
  /** Per-run iteration cap: stops runaway loops. */
  maxStepsPerRun: number;
  senseRetries: number;
  executeRetries: number;
  modelRetries: number;
  /** While a model call is pending, a model_progress event every this many ms (0: none). */
  modelProgressMs: number;
  /** Long side of the screenshot sent to the model. */
  screenshotLongSide: number;
  imageMime: "image/jpeg" | "image/png" | "image/webp";
  imageTokenFormula: ImageTokenFormula;
  verbatimSteps: number;
  /**
   * How Device.waitForStable settles the screen after an action: how long it may wait, its frame interval, and
   * its criterion (consecutive matching frame pairs, and how long they must span; 0 = two matching frames suffice).
   */
  stable: { timeoutMs: number; intervalMs: number; requiredMatches: number; minQuietMs: number };
  /** Kinds auto-allowed from the start of the session (e.g. "input_text" from a CLI flag); never high-risk ones. */
  preapproved: string[];
  appRules?: AppRule[];
  /** The workspace's permission rules (validated and merged by parsePolicyRules); absent = the built-in policy. */
  policyRules?: PolicyRules;
  /** Ask the guard model role when the permission rules are unsure (runAgent sets it when a guard model is configured). */
  guardModel?: boolean;
  /** Read a blind screen's pixels before deciding on a tap there (runAgent sets it when an Ocr port is given). */
  ocr?: boolean;
  /** Store the downscaled screenshot with every observation. */
  storeScreenshots: boolean;
  /** Learn across runs: offer the goal's apps' validated skills, shortcuts and lessons; after the run, record what it teaches. */
  learn: boolean;
}

export const DEFAULT_CONFIG: AgentConfig = {
  capabilities: ["phone"],
  leaseTtlMs: 120_000,
  suspendMaxMs: 15 * 60_000,
  maxStepsPerTodo: 50,
  maxStepsPerRun: 200,
  senseRetries: 3,
  executeRetries: 3,
  modelRetries: 4,
  modelProgressMs: 10_000,
  screenshotLongSide: 1024,
  imageMime: "image/jpeg",
  imageTokenFormula: "openai-high",
  verbatimSteps: 4,
  stable: { timeoutMs: 3000, intervalMs: 30, requiredMatches: 1, minQuietMs: 0 },
  preapproved: [],
  storeScreenshots: true,
  learn: true,
};

export type AgentEvent =
  /** The run is started or resumed: the first thing a worker can tell a person (what to resume after a crash). */
  | { type: "run"; runId: string; goalId: string; agentId: string; resumed: boolean }
  | { type: "node"; node: NodeName }
  /** A model call is still pending after elapsedMs (every config.modelProgressMs). */
  | { type: "model_progress"; role: ModelRole; elapsedMs: number; attempt: number }
  /**
   * An executor step's figures. `phases` (ms) add up to the step's wall time; `actionMs` is the part of `perform`
   * the phone spent carrying out the action (input injection: a swipe lasts its gesture, a wait its pause), and
   * `overheadMs` the runtime's own part: the step's time minus the model's and the action's (settling counts).
   */
  | { type: "step"; stepIndex: number; todoId: string; action: string; outcome: string; promptTokens: number; overheadMs: number; modelMs: number; actionMs?: number; phases?: Record<string, number> }
  | { type: "anomaly"; kind: string; message: string }
  | { type: "gate"; gateId: string; question: string }
  | { type: "gate_decision"; gateId: string; status: string }
  | { type: "executor_return"; ret: ExecutorReturn }
  | { type: "end"; status: RunStatus; endReason: RunEndReason; reason: string };

/** Thrown only by a simulated or real hard stop of the worker (no cleanup, like a killed process). */
export class WorkerKilled extends Error {
  readonly code = "WORKER_KILLED";
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
  if (ctx.kill?.aborted) throw new WorkerKilled("The worker was stopped; another worker may resume the run from its last checkpoint.");
}

export function initialState(input: { runId: string; goalId: string; agentId: string; goal: string; preapproved: string[] }): PlannerState {
  return {
    version: 2,
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
    lastReturn: null,
    held: null,
    executed: [],
    findings: [],
    blocked: [],
    totals: { steps: 0, modelCalls: 0, inputTokens: 0, outputTokens: 0, microUsd: 0, promptTokensCounted: 0 },
  };
}

/** The common part of a run state, for moving it to another node. */
export function commonOf(s: RunState): RunCommon {
  const { version, runId, goalId, agentId, goal, plan, blackboard, approvals, attempts, stepIndex, plannerCalls, executed, findings, blocked, totals, learned } = s;
  return { version, runId, goalId, agentId, goal, plan, blackboard, approvals, attempts, stepIndex, plannerCalls, executed, findings, blocked, totals, ...(learned ? { learned } : {}) };
}

export function toSummarizer(s: RunState, end: RunEnd): SummarizerState {
  return { ...commonOf(s), node: "summarizer", end };
}

/** What is saved: the state without the step in progress (a screen and an image are not worth storing). */
export function checkpointOf(s: RunState): RunState {
  if (s.node !== "executor" || !s.executor.turn) return s;
  const { turn: _turn, ...executor } = s.executor;
  return { ...s, executor };
}
