// The runtime's ports: everything with an effect goes through one of these. Decisions elsewhere are pure.
import type { Device } from "@phoneloop/device";
import type { TakeoverReason } from "./actions/schema.ts";

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

// ─── Clock: one interface for the runtime and the state core ─────────────────────────────────────────
export { systemClock, type Clock } from "@phoneloop/state/domain";
import type { Clock, EvidenceBody, StepAction, StepOutcome } from "@phoneloop/state/domain";

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

// ─── OCR: the text a person sees where the UI tree is blind ───────────────────────────────────────────
// A WebView or canvas without nodes, a screen without a tree: the permission checkpoint decides on the words read
// from the screenshot. Implemented by packages/ocr (Node and browser entries); the runtime imports none of it.
export interface OcrItem {
  text: string;
  bounds: { left: number; top: number; right: number; bottom: number };
}

export interface OcrReading {
  items: OcrItem[];
}

export interface Ocr {
  /**
   * Reads a screenshot (PNG bytes). `around`: the point the action lands on, in screenshot pixels (read closely).
   * `locale`: the phone's language (BCP 47), when known: the reader tries that language's model first.
   */
  read(png: Uint8Array, opts?: { around?: { x: number; y: number }; locale?: string }): Promise<OcrReading>;
}


// ─── Model ────────────────────────────────────────────────────────────────────────────────────────────
/** "guard": an optional cheap model the permission checkpoint asks when its rules are unsure. */
export type ModelRole = "planner" | "executor" | "summarizer" | "guard";

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
  /** OpenAI-style functions offered (a tool-calls model adapter); the reply's calls come back as {"tool_calls":[…]} text. */
  tools?: Array<{ type: "function"; function: { name: string; description: string; parameters: Record<string, unknown> } }>;
  maxOutputTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  /** Cost in micro-USD, from the adapter's price table (0 when unknown). */
  microUsd: number;
  /** The endpoint reported no usage (or only part of it): the rest is the tokenizer's count of the prompt and the reply. */
  estimated?: true;
}

export interface ModelResponse {
  text: string;
  model: string;
  usage: ModelUsage;
  latencyMs: number;
  /** Whether the endpoint honoured the JSON schema (so parse can be strict). */
  structured: boolean;
}

/** CIRCUIT_OPEN: the role's endpoint failed too often in a row and rests (model/circuit-breaker.ts). */
/** DEVICE_LOST: the phone disconnected while the executor waited for the model (the call is aborted). */
/**
 * QUOTA_EXCEEDED: the API's model proxy would not reserve the call against the quota (what is left does not hold the
 * prompt, though the quota may not be exhausted); the message is the proxy's: what is left and what to do.
 * SPEND_REFUSED: the proxy refused the call for another reason of the state core (paused, a gate, the run ended).
 */
export type ModelErrorCode = "RATE_LIMITED" | "SERVER_ERROR" | "TIMEOUT" | "BAD_REQUEST" | "AUTH" | "NETWORK" | "ABORTED" | "CIRCUIT_OPEN" | "DEVICE_LOST" | "SPEND_REFUSED" | "QUOTA_EXCEEDED";
export interface ModelError extends AgentError {
  code: ModelErrorCode;
  status?: number;
}

export interface Model {
  readonly name: string;
  /**
   * True when the endpoint records each call's usage itself: the API's model proxy writes model_call evidence and
   * has settled the call against the quota, so the runtime spends none of it again.
   */
  readonly recordsUsage: boolean;
  /** Retries after a retryable failure (5xx, 429, timeout) for this role; default the run's modelRetries. */
  readonly retries?: number;
  /** The model adapter this role's model speaks (model/adapters: id, and version where it has several); default phoneloop. */
  readonly adapter?: { id: string; version?: string };
  complete(req: ModelRequest): Promise<Result<ModelResponse, ModelError>>;
}

export type Models = Record<Exclude<ModelRole, "guard">, Model> & { guard?: Model };

// ─── ControlPlane: the state core's operators, in the state core's words ──────────────────────────────
// Every rule (which todo is next, leases and fencing, idempotency, replans, turn routing and the transition a turn
// result causes) lives in the state core. This port only names its operators; an implementation forwards calls.
// The vocabulary (states, kinds, reasons) is imported from the core's pure domain, so there is one list of each.
import type {
  AgentKind,
  LessonKind,
  ShortcutStatus,
  SkillStatus,
  EvidenceKind,
  GateKind,
  GateStatus,
  GoalStatus,
  RunEndReason,
  RunEndStatus,
  RunStatus,
  SkipReason,
  TodoKind,
  TodoState,
  TurnResultKind,
  TurnRoute,
  ClaimRefusal,
} from "@phoneloop/state/domain";

export type { AgentKind, LessonKind, ShortcutStatus, SkillStatus, EvidenceKind, GateKind, GateStatus, GoalStatus, RunEndReason, RunEndStatus, RunStatus, SkipReason, ClaimRefusal, TodoKind, TodoState, TurnResultKind, TurnRoute };

export type Capability = string;

export interface AgentRegistration {
  /** Stable id when re-registering (a restarted worker, a reloaded tab); minted by the implementation otherwise. */
  id?: string;
  name: string;
  kind: AgentKind;
  capabilities: Capability[];
  meta?: Record<string, unknown>;
}

export interface Goal {
  id: string;
  title: string;
  objective: string;
  bounds: string[];
  nonGoals: string[];
  acceptance: string[];
  status: GoalStatus;
}

export interface CreateGoalInput {
  title?: string;
  objective: string;
  bounds?: string[];
  nonGoals?: string[];
  acceptance?: string[];
}

export interface Todo {
  id: string;
  goalId: string;
  position: number;
  title: string;
  detail: string;
  /** "executor": needs a live app on the phone; "host": answered without a screen. */
  kind: TodoKind;
  appHint: string | null;
  requiredCapabilities: Capability[];
  /** Blackboard keys this todo needs (inputs) and must produce (outputs). */
  inputs: string[];
  outputs: string[];
  /** What validated results wrote back (the blackboard's share of this todo). */
  values: Record<string, unknown>;
  state: TodoState;
  attempts: number;
  /** The core's limit on attempts for this todo: the runtime stops retrying at it, as the core's router does. */
  maxAttempts: number;
  lastResult: TurnResultKind | null;
  /** Why it is blocked, failed, superseded or waiting. */
  reason: string | null;
  supersededById: string | null;
  /** The gate open on this todo, if any (its question is shown to whoever must answer). */
  openGate: { id: string; question: string } | null;
}

export interface TodoDraft {
  /** A stable id chosen by the planner; the state core keeps it. */
  id?: string;
  title: string;
  detail?: string;
  kind: TodoKind;
  appHint?: string;
  requiredCapabilities?: Capability[];
  inputs?: string[];
  outputs?: string[];
}

/** The planner's write_todos, applied by the state core in one transaction: add, reorder, supersede — never delete. */
export type ReplanOp =
  | { op: "add"; todo: TodoDraft; after?: string }
  | { op: "reorder"; todoIds: string[] }
  | { op: "supersede"; todoId: string; reason: string; replacements?: TodoDraft[] };

export interface Lease {
  id: string;
  todoId: string;
  ownerId: string;
  /** The fencing key a holder's writes carry; a newer claim makes the old key a CONFLICT. */
  leaseKey: string;
  epoch: number;
  ttlMs: number;
  expiresAt: number;
}

/** What a holder's write names: the todo, its agent and the lease key from the claim. */
export interface LeaseRef {
  todoId: string;
  agentId: string;
  leaseKey: string;
}

export const leaseRefOf = (l: Lease): LeaseRef => ({ todoId: l.todoId, agentId: l.ownerId, leaseKey: l.leaseKey });

/** `refusal` wip_limit: a WIP limit of the workspace stood in the way; the runtime waits (its run stops resumable). */
export type ClaimResult = { claimed: true; todo: Todo; lease: Lease; reclaimedFrom: string | null } | { claimed: false; reason: string; refusal?: ClaimRefusal };

/** An evidence row's fields beside its kind and data (EvidenceBody: the core's schema of each kind's data). */
export interface EvidenceFields {
  idempotencyKey: string;
  goalId: string;
  runId?: string;
  todoId?: string;
  /** When given, the write is fenced: rejected unless this is the todo's current lease. */
  lease?: LeaseRef;
  stepIndex?: number;
  summary: string;
  /** A screenshot or other bytes, stored content-addressed by sha256. */
  blob?: { bytes: Uint8Array; mime: string };
}
/** An evidence row as a writer builds it: its data is held to its kind's schema at compile time (and by the core on insert). */
export type EvidenceInput = EvidenceFields & EvidenceBody;

export interface Evidence {
  id: string;
  goalId: string;
  runId: string | null;
  todoId: string | null;
  stepIndex: number | null;
  kind: EvidenceKind;
  summary: string;
  data: Record<string, unknown>;
  blobSha256: string | null;
  createdAt: number;
}

export interface OpenGateInput {
  idempotencyKey: string;
  goalId: string;
  todoId: string;
  runId?: string;
  /** A concrete question a person can answer. */
  question: string;
  /** The answers offered; empty means free text. */
  options: string[];
  evidenceIds: string[];
  /** After this long nobody may answer any more: the gate expires. Without it the gate waits for an answer. */
  ttlMs?: number;
  /** approval (approve or deny `action`), question, or takeover (a person operates the phone and hands it back):
   * stored with the gate, so no reader guesses it. */
  kind: GateKind;
  /** A takeover's typed ask (with kind takeover only): login, captcha, one_time_code, blind_screen or other. */
  takeoverReason?: TakeoverReason;
  /** The permission tier that opened it. */
  tier: "confirm" | "high_risk" | "question";
  /** The action the gate asks about. */
  action?: Record<string, unknown>;
  /** Why the policy opened it: its rule, the evidence it matched and its version; the category it named (money,
   * destructive…) and its approval key (category|app|target), from which the core reads the gate's approval
   * category and target. */
  policy?: { ruleId: string; evidence: string[]; policyVersion: string; kind?: string; approvalKey?: string };
  /** The opener's lease: the core blocks the todo and ends this lease in the transaction that opens the gate. */
  lease?: LeaseRef;
}

/** How a gate ended (or that it is still open). */
export interface GateResolution {
  status: GateStatus;
  answer: string | null;
  rationale: string | null;
}

export type ShouldRunResult =
  | { decision: "run" }
  | { decision: "skip"; reason: SkipReason; message: string; retryAfterMs: number | null };

export interface SpendAmount {
  steps: number;
  tokens: number;
  microUsd: number;
}

export interface TurnResultInput {
  idempotencyKey: string;
  lease: LeaseRef;
  kind: TurnResultKind;
  summary: string;
  /** Written back with a validated result (merged into the todo's values). */
  values?: Record<string, unknown>;
  /** Spent by the core after a validated writeback; other results spend nothing. */
  spend?: { key: string } & SpendAmount;
}

export interface TurnResultOutcome {
  /** The kind as recorded: the input's, or quota_spend_failed when the spend after writeback was refused. */
  kind: TurnResultKind;
  todo: Todo;
  duplicate: boolean;
}

export interface Run {
  id: string;
  goalId: string;
  agentId: string;
  status: RunStatus;
  endReason: RunEndReason | null;
}

export interface StepInput {
  runId: string;
  agentId: string;
  index: number;
  node: "planner" | "executor" | "summarizer";
  todoId?: string;
  action: StepAction;
  /** The step's outcome (the core's StepOutcome); its screenshot is its observation evidence's blob. */
  outcome: StepOutcome;
  anomalies: string[];
  tokens: number;
}

/** A skill of the workspace for one app version (its body is the runtime's SkillBody, skills/contract.ts). */
export interface SkillRecord {
  id: string;
  app: string;
  appVersion: string;
  name: string;
  goal: string;
  body: Record<string, unknown>;
  status: SkillStatus;
  version: number;
  /** The run the current version was distilled from. */
  runId: string;
  successes: number;
  failures: number;
}

/** A deeplink of one app version and the activity it must open. */
export interface ShortcutRecord {
  id: string;
  app: string;
  appVersion: string;
  uri: string;
  activity: string;
  status: ShortcutStatus;
  reason: string | null;
}

/** What a run learned about an app. */
export interface LessonRecord {
  id: string;
  app: string;
  goal: string;
  kind: LessonKind;
  text: string;
  runId: string;
}

/** An evidence row of a step record: its goal, run, todo and lease are the record's. */
export type StepEvidence = {
  idempotencyKey: string;
  stepIndex?: number;
  summary: string;
  /** A blob put before the record (putBlob). */
  blobSha256?: string;
} & EvidenceBody;

/**
 * One step's writes, recorded in one transaction: its evidence, its step row, its turn result (and the spend of a
 * validated one), the run's checkpoint. Every part is idempotent on its own key (evidence and turn result by key,
 * the step by index), so a retried record changes nothing already written.
 */
export interface StepRecord {
  runId: string;
  agentId: string;
  /** The todo the step works on (its evidence's todo, the turn result's, the route's). */
  todoId?: string;
  /** With a lease the evidence is fenced by it; a turn result needs it. Its todo and agent are the record's. */
  lease?: LeaseRef;
  evidence?: StepEvidence[];
  step?: Omit<StepInput, "runId" | "agentId">;
  turnResult?: Omit<TurnResultInput, "lease">;
  checkpoint?: Record<string, unknown>;
  /** Also answer the core's route for the agent's next turn on the todo, read after these writes. */
  route?: boolean;
}

export interface StepRecordOutcome {
  /** The evidence rows' ids, in the record's order (a repeated key gives the first row's). */
  evidenceIds: string[];
  /** null when the record had no step row; false when that index was recorded before. */
  stepCreated: boolean | null;
  turnResult: TurnResultOutcome | null;
  route: { route: TurnRoute; reason: string } | null;
}

/**
 * The code of a ControlPlane call that got no answer within its client's retries (the API or its database away, or
 * too slow to answer): the runner suspends the run and resumes it from its checkpoint once the state core answers.
 */
export const API_UNREACHABLE = "API_UNREACHABLE";

/** A write that lost to a newer lease or another holder: an explicit conflict, never a silent overwrite. */
export class ControlPlaneConflict extends Error {
  readonly code = "CONFLICT";
  override readonly name = "ControlPlaneConflict";
  /** The core's details (e.g. currentHolder, expiresAt), when it gave any. */
  constructor(
    message: string,
    readonly details: Record<string, unknown> | null = null,
  ) {
    super(message);
  }
}

export interface ControlPlane {
  registerAgent(reg: AgentRegistration): Promise<{ agentId: string }>;
  heartbeatAgent(agentId: string): Promise<void>;

  createGoal(input: CreateGoalInput): Promise<Goal>;
  /** null when there is no such goal. */
  getGoal(goalId: string): Promise<Goal | null>;

  listTodos(goalId: string): Promise<Todo[]>;
  replanTodos(input: { goalId: string; idempotencyKey: string; reason: string; ops: ReplanOp[] }): Promise<Todo[]>;
  /** A todo the supervisor retries after it asked for a replan (blocked/failed → pending). */
  reopenTodo(input: { todoId: string; reason: string }): Promise<Todo>;

  /** The next eligible todo of the goal, in order, in one call (an expired lease is reclaimed with a new epoch). */
  claimNext(input: { agentId: string; goalId: string; ttlMs: number; idempotencyKey?: string }): Promise<ClaimResult>;
  startTodo(lease: LeaseRef): Promise<void>;
  renewLease(lease: LeaseRef, ttlMs: number): Promise<Lease>;
  releaseLease(lease: LeaseRef, reason: string): Promise<void>;

  /** The core's turn router: where this agent's next turn on the todo goes. */
  routeTurn(input: { todoId: string; agentId: string }): Promise<{ route: TurnRoute; reason: string }>;
  recordTurnResult(input: TurnResultInput): Promise<TurnResultOutcome>;
  shouldRun(input: { agentId: string; goalId: string; todoId?: string }): Promise<ShouldRunResult>;
  /** Spends once per key (planner and summarizer calls, which no todo's turn result carries). */
  /** `runId`: the run the spend belongs to (the board and the run view show spend per run). */
  spendQuota(input: { key: string; agentId: string; goalId: string; todoId?: string; runId?: string } & SpendAmount): Promise<{ spent: boolean; duplicate: boolean }>;

  appendEvidence(e: EvidenceInput): Promise<{ evidenceId: string; created: boolean }>;
  listEvidence(filter: { goalId: string; runId?: string; kind?: EvidenceKind }): Promise<Evidence[]>;

  openGate(input: OpenGateInput): Promise<{ gateId: string; created: boolean }>;
  /** Resolves when the gate is no longer open (answered, approved, denied or expired). */
  waitForGate(gateId: string, signal?: AbortSignal): Promise<GateResolution>;

  startRun(input: { id?: string; goalId: string; agentId: string }): Promise<Run>;
  /** Takes over a run (after a crash or a closed tab): the caller becomes its agent. */
  resumeRun(input: { runId: string; agentId: string }): Promise<Run>;
  getRun(runId: string): Promise<(Run & { checkpoint: Record<string, unknown> | null }) | null>;
  saveCheckpoint(input: { runId: string; agentId: string; checkpoint: Record<string, unknown> }): Promise<void>;
  appendStep(step: StepInput): Promise<{ created: boolean }>;
  /** One step's writes in one transaction (see StepRecord); with `route`, the route of the agent's next turn. */
  recordStep(record: StepRecord): Promise<StepRecordOutcome>;
  /** Stores bytes (a screenshot) content-addressed; a step record's evidence then names them by sha256. */
  putBlob(blob: { bytes: Uint8Array; mime: string }): Promise<{ sha256: string }>;
  finishRun(input: { runId: string; agentId: string; status: RunEndStatus; endReason: RunEndReason; summary: string }): Promise<void>;

  /** The workspace's permission-policy rules in force (its newest saved version), or null when it saved none. */
  getPolicyRules(): Promise<{ version: number; rules: unknown } | null>;

  // ── learning: skills, deeplink shortcuts, lessons (the workspace's, per app) ──
  /** The workspace's skills; one app's (and app version's) when given. */
  listSkills(filter: { app?: string; appVersion?: string; status?: SkillStatus }): Promise<SkillRecord[]>;
  /** A skill distilled from a run; the same app, app version and name again is its repair (the next version, a candidate until a run's use validates it). */
  saveSkill(input: { app: string; appVersion: string; name: string; goal: string; body: Record<string, unknown>; runId: string }): Promise<SkillRecord>;
  /**
   * A use by the run's todo: reached its end screen (ok), or handed back before step `failedAt` for `reason`. The
   * core decides from the uses (an agent never sets a skill's status): a candidate whose use reached its end for a
   * todo that was accepted is validated when the run finishes; two failures in a row retire its version.
   */
  /** One use of a skill by a run's todo; a repeat of its idempotencyKey (a retry) counts nothing again. */
  recordSkillUse(input: { idempotencyKey: string; skillId: string; runId: string; todoId: string; ok: boolean; failedAt?: number; reason?: string; params?: Record<string, string> }): Promise<void>;
  listShortcuts(filter: { app: string; appVersion: string; status?: ShortcutStatus }): Promise<ShortcutRecord[]>;
  /** What the package manager declares; known URIs keep their status. Returns the app version's shortcuts. */
  saveShortcuts(input: { app: string; appVersion: string; shortcuts: { uri: string; activity: string }[] }): Promise<ShortcutRecord[]>;
  /** One validation on the phone: ok validates, a failure retires the shortcut for good. */
  recordShortcutValidation(input: { shortcutId: string; ok: boolean; reason?: string }): Promise<ShortcutRecord>;
  listLessons(filter: { app: string }): Promise<LessonRecord[]>;
  /** At most three lessons of a run for an app; a text the app already has is refreshed, not repeated. */
  addLessons(input: { app: string; goal: string; runId: string; lessons: { kind: LessonKind; text: string }[] }): Promise<LessonRecord[]>;
}

/**
 * One outage of the state core as one call lived it, told once it is over: the call failed in a way retrying can
 * fix (no answer, its deadline passed, a 5xx) until the core answered again ("recovered") or the client stopped
 * trying ("gave_up"). Times are the client's clock: `startedAt` when the first attempt started, `durationMs` from
 * then to the answer or the last failure, so a request that hung until its deadline counts whole.
 */
export interface Outage {
  procedure: string;
  /** Why the first attempt failed (ECONNREFUSED, ETIMEDOUT, "HTTP 503 …"). */
  fault: string;
  /** Why the last failed attempt failed. */
  lastFault: string;
  startedAt: number;
  durationMs: number;
  /** Attempts made, the last one included. */
  attempts: number;
  outcome: "recovered" | "gave_up";
}

/** Where the runtime hears of the state core's outages (the client reports them, its composer feeds them here). */
export interface OutageFeed {
  subscribe(listener: (o: Outage) => void): () => void;
}

/** A feed the composer reports outages into (the client's onOutage) and a run subscribes to, to record them. */
export function outageFeed(): OutageFeed & { report(o: Outage): void } {
  const listeners = new Set<(o: Outage) => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    report(o) {
      for (const l of listeners) l(o);
    },
  };
}

export interface AgentPorts {
  device: Device;
  models: Models;
  controlPlane: ControlPlane;
  clock: Clock;
  images: Images;
  /** Reads blind screens' pixels; without it a commit-shaped tap on a blind screen has no reading (and is gated). */
  ocr?: Ocr;
  /** The state core's outages, once each is over: a run records each one it lived through as evidence. */
  outages?: OutageFeed;
}
