// The runtime's ports: everything with an effect goes through one of these. Decisions elsewhere are pure.
import type { Device } from "@phoneloop/device";

export type { Device, UiNode, Screenshot, Bounds, Foreground, Point, Direction, KeyName } from "@phoneloop/device";

// ─── Errors are values ────────────────────────────────────────────────────────────────────────────────
export interface AgentError {
  code: string;
  message: string;
  retryable?: boolean;
  cause?: unknown;
}
export type Result<T, E = AgentError> = { ok: true; value: T } | { ok: false; error: E };
export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E extends AgentError>(error: E): Result<never, E> => ({ ok: false, error });

// ─── Clock ────────────────────────────────────────────────────────────────────────────────────────────
export interface Clock {
  now(): number;
  /** Monotonic milliseconds, for measuring durations. */
  monotonic(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const t = setTimeout(resolve, ms);
      signal?.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
    }),
};

// ─── Images ───────────────────────────────────────────────────────────────────────────────────────────
export interface EncodedImage {
  bytes: Uint8Array;
  mime: "image/png" | "image/jpeg" | "image/webp";
  width: number;
  height: number;
}

export interface GrayImage {
  width: number;
  height: number;
  /** One luminance byte per pixel, row-major. */
  data: Uint8Array;
}

/** A decoded bitmap, opaque to the runtime (an ImageBitmap/canvas in the browser, a canvas in Node). */
export interface DecodedImage {
  readonly width: number;
  readonly height: number;
}

export interface Images {
  decode(bytes: Uint8Array): Promise<DecodedImage>;
  resize(img: DecodedImage, width: number, height: number): Promise<DecodedImage>;
  encode(img: DecodedImage, mime: EncodedImage["mime"], quality?: number): Promise<EncodedImage>;
  /** Resamples to width×height luminance (used by the perceptual hash). */
  grayscale(img: DecodedImage, width: number, height: number): Promise<GrayImage>;
}

// ─── Model ────────────────────────────────────────────────────────────────────────────────────────────
export type ModelRole = "planner" | "executor" | "summarizer";

export type ChatContentPart =
  | { type: "text"; text: string }
  | { type: "image"; mime: EncodedImage["mime"]; base64: string; width: number; height: number };

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string | ChatContentPart[];
}

export interface ModelRequest {
  role: ModelRole;
  messages: ChatMessage[];
  /** JSON schema for structured output; adapters use it where the endpoint supports it. */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  maxOutputTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  /** Cost in micro-USD, from the adapter's price table (0 when unknown). */
  microUsd: number;
}

export interface ModelResponse {
  text: string;
  model: string;
  usage: ModelUsage;
  latencyMs: number;
  /** Whether the endpoint honoured the JSON schema (so parse can be strict). */
  structured: boolean;
}

export type ModelErrorCode = "rate_limited" | "server_error" | "timeout" | "bad_request" | "auth" | "network" | "aborted";
export interface ModelError extends AgentError {
  code: ModelErrorCode;
  status?: number;
}

export interface Model {
  readonly name: string;
  complete(req: ModelRequest): Promise<Result<ModelResponse, ModelError>>;
}

export type Models = Record<ModelRole, Model>;

// ─── ControlPlane: the state core's operators, in its words ───────────────────────────────────────────
export type Capability = string;

export interface AgentRegistration {
  /** Stable id when re-registering (e.g. a tab reload); the state core assigns one otherwise. */
  agentId?: string;
  name: string;
  kind: "browser" | "headless";
  capabilities: Capability[];
  device?: { serial: string; model: string };
}

export interface Goal {
  goalId: string;
  goal: string;
  bounds?: string[];
  nonGoals?: string[];
}

export type TodoStatus = "todo" | "claimed" | "in_progress" | "waiting" | "done" | "blocked" | "superseded";

export interface Todo {
  todoId: string;
  goalId: string;
  order: number;
  title: string;
  status: TodoStatus;
  /** "executor": needs a live app on the phone; "host": answered without a screen. */
  kind: "executor" | "host";
  appHint?: string;
  /** Blackboard keys this todo needs and must produce. */
  inputs: string[];
  outputs: string[];
  capabilities: Capability[];
  waitReason?: string;
  supersededBy?: string[];
  supersedeReason?: string;
  result?: string;
}

export interface TodoDraft {
  /** A stable id chosen by the planner; the state core keeps it. */
  todoId?: string;
  title: string;
  kind: "executor" | "host";
  appHint?: string;
  inputs?: string[];
  outputs?: string[];
  capabilities?: Capability[];
}

/** write_todos: insert, reorder, supersede with a reason — never delete. */
export type ReplanOp =
  | { op: "insert"; todo: TodoDraft; after?: string }
  | { op: "reorder"; todoIds: string[] }
  | { op: "supersede"; todoId: string; reason: string; replacements?: TodoDraft[] };

export interface Lease {
  leaseId: string;
  todoId: string;
  agentId: string;
  idempotencyKey: string;
  epoch: number;
  expiresAt: number;
}

export type LeaseRef = Pick<Lease, "leaseId" | "epoch">;

export type EvidenceKind =
  | "observation"
  | "action"
  | "anomaly"
  | "validation"
  | "model_call"
  | "summary"
  | "gate_decision"
  | "handoff"
  | "checkpoint";

export interface EvidenceInput {
  idempotencyKey: string;
  kind: EvidenceKind;
  goalId: string;
  runId?: string;
  todoId?: string;
  lease?: LeaseRef;
  stepIndex?: number;
  summary: string;
  data?: Record<string, unknown>;
  /** Screenshot or other bytes; stored content-addressed by sha256. */
  blob?: { bytes: Uint8Array; mime: string };
}

export interface EvidenceRecord extends Omit<EvidenceInput, "blob"> {
  evidenceId: string;
  createdAt: number;
  blobSha256?: string;
  blobMime?: string;
}

export type GateRole = "owner" | "reviewer" | "operator";

export interface GateRequest {
  idempotencyKey: string;
  goalId: string;
  todoId: string;
  lease?: LeaseRef;
  question: string;
  options: string[];
  evidenceIds: string[];
  answerRoles: GateRole[];
}

export interface GateDecision {
  decision: "approve" | "deny" | "answer";
  answer?: string;
  rationale?: string;
}

export type ShouldRun =
  | { run: true }
  | { run: false; reason: "paused" | "gate_waiting" | "throttled" | "exhausted" | "cancelled" | "lease_lost"; detail?: string };

export interface SpendAmount {
  steps: number;
  tokens: number;
  microUsd: number;
}

export type TurnResult =
  | "validated_progress"
  | "validated_completion"
  | "repair_required"
  | "replan_required"
  | "user_action_required"
  | "wait"
  | "host_failure"
  | "validation_failed"
  | "writeback_failed"
  | "quota_spend_failed";

export interface TurnRecord {
  idempotencyKey: string;
  goalId: string;
  todoId: string;
  lease?: LeaseRef;
  result: TurnResult;
  summary: string;
  /** For wait / user_action_required: why the todo waits (shown on the attention queue). */
  reason?: string;
  outputs?: Record<string, string>;
  evidenceIds: string[];
}

export type RunStatus = "completed" | "partial" | "blocked" | "waiting" | "cancelled" | "failed" | "device_lost";

export interface StepRecord {
  runId: string;
  index: number;
  todoId: string;
  action: unknown;
  outcome: string;
  evidenceIds: string[];
  at: number;
}

/** A write that lost to a newer lease epoch or a different owner: an explicit conflict, never a silent overwrite. */
export class ControlPlaneConflict extends Error {
  readonly code = "conflict";
  constructor(message: string) {
    super(message);
  }
}

export interface ControlPlane {
  registerAgent(reg: AgentRegistration): Promise<{ agentId: string }>;
  heartbeat(agentId: string): Promise<void>;

  createGoal(input: { goal: string; bounds?: string[]; nonGoals?: string[] }): Promise<Goal>;
  getGoal(goalId: string): Promise<Goal | null>;

  /** Next eligible todo for these capabilities (or the given one); null when nothing is claimable. */
  claim(input: { agentId: string; goalId: string; capabilities: Capability[]; todoId?: string; ttlMs: number }): Promise<Lease | null>;
  renewLease(lease: LeaseRef, ttlMs: number): Promise<Lease>;
  releaseLease(lease: LeaseRef): Promise<void>;
  startTodo(todoId: string, lease: LeaseRef): Promise<void>;

  readTodos(goalId: string): Promise<Todo[]>;
  replanTodos(input: { goalId: string; idempotencyKey: string; ops: ReplanOp[]; reason: string }): Promise<Todo[]>;

  appendEvidence(e: EvidenceInput): Promise<{ evidenceId: string; duplicate: boolean }>;
  listEvidence(filter: { goalId: string; runId?: string; kind?: EvidenceKind }): Promise<EvidenceRecord[]>;

  openGate(req: GateRequest): Promise<{ gateId: string }>;
  waitForGate(gateId: string, signal?: AbortSignal): Promise<GateDecision>;

  shouldRun(input: { agentId: string; goalId: string; todoId?: string }): Promise<ShouldRun>;
  /** Spends only once per key; call only after the turn's result was validated and written back. */
  spend(key: string, input: { agentId: string; goalId: string } & SpendAmount): Promise<{ spent: boolean; duplicate: boolean }>;

  recordTurnResult(turn: TurnRecord): Promise<{ duplicate: boolean }>;

  saveCheckpoint(runId: string, state: unknown): Promise<void>;
  loadCheckpoint(runId: string): Promise<unknown | null>;

  startRun(input: { runId?: string; goalId: string; agentId: string; goal: string }): Promise<{ runId: string; resumed: boolean }>;
  finishRun(runId: string, input: { status: RunStatus; summary: string }): Promise<void>;
  appendStep(step: StepRecord): Promise<{ duplicate: boolean }>;
}

export interface AgentPorts {
  device: Device;
  models: Models;
  controlPlane: ControlPlane;
  clock: Clock;
  images: Images;
}
