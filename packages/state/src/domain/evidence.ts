// One schema per evidence kind: what the runtime (the executor, planner and summarizer), the API's model proxy and
// the core itself write into Evidence.data, and what a step row's action and outcome hold. The core parses every row
// with its kind's schema on insert (a malformed one is INVALID_INPUT naming the field); projections read stored rows
// back through readEvidenceData, so a row written before a field changed still opens. Browser-safe: the client and
// the web read the same types through @phoneloop/state/domain and the API's contract.
import { z } from "zod";
import { GATE_STATUSES, type EvidenceKind } from "./vocabulary.ts";
import { RUN_END_REASONS, RUN_END_STATUSES } from "./run.ts";

const Int = z.number().int().min(0);
/** 0–1000 on both axes of the screen (what the model is shown). */
const Norm = z.number().min(0).max(1000);
const Box = z.tuple([Norm, Norm, Norm, Norm]);
/** A point in the screenshot's pixels. */
const PixelPoint = z.strictObject({ x: z.number(), y: z.number() });
const ScreenSize = z.strictObject({ width: Int, height: Int });
const Words = z.record(z.string(), z.string());
const Tier = z.enum(["normal", "confirm", "high_risk"]);

/** An element of the screen as the model was shown it: its listed index, text, resource id and box (0–1000). */
export const ListedElement = z.strictObject({ i: Int, text: z.string().nullish(), id: z.string().nullish(), box: Box, password: z.literal(true).optional() });
export type ListedElement = z.infer<typeof ListedElement>;

/**
 * An action as the executor parsed it (coordinates in 0–1000, or an element of the list). The runtime's own action
 * schema checks every field where the model's reply is parsed; a recorded action keeps any field it carries.
 */
export const RecordedAction = z.looseObject({
  type: z.string().min(1),
  x: Norm.optional(),
  y: Norm.optional(),
  element: z.string().optional(),
  from: z.object({ x: Norm, y: Norm }).optional(),
  to: z.object({ x: Norm, y: Norm }).optional(),
  direction: z.enum(["up", "down", "left", "right"]).optional(),
  durationMs: z.number().optional(),
  ms: z.number().optional(),
  text: z.string().optional(),
  app: z.string().optional(),
  uri: z.string().optional(),
  question: z.string().optional(),
  options: z.array(z.string()).optional(),
  status: z.string().optional(),
  summary: z.string().optional(),
  outputs: Words.optional(),
  skill: z.string().optional(),
  params: Words.optional(),
  intent: z.string().optional(),
  thought: z.string().optional(),
});
export type RecordedAction = z.infer<typeof RecordedAction>;

/** The permission checkpoint's decision recorded with an action: its tier, kind, rule, the evidence it matched, its version. */
export const PolicyRecord = z.strictObject({ tier: Tier, kind: z.string(), ruleId: z.string(), evidence: z.array(z.string()), policyVersion: z.string() });
export type PolicyRecord = z.infer<typeof PolicyRecord>;

/** Why a gate opened: the rule, the evidence it matched and the policy's version. */
export const GatePolicy = z.strictObject({ ruleId: z.string(), evidence: z.array(z.string()), policyVersion: z.string() });
export type GatePolicy = z.infer<typeof GatePolicy>;

/** A gate the executor waits on (the run's checkpoint keeps it while the gate is open). */
export const PendingGate = z.object({
  gateId: z.string(),
  stepIndex: Int,
  action: RecordedAction,
  kind: z.string(),
  tier: z.enum(["confirm", "high_risk", "question"]),
  approvalKey: z.string().optional(),
  policy: GatePolicy.optional(),
});
export type PendingGate = z.infer<typeof PendingGate>;

/** The gate `gateId` the executor waits on, from its run's checkpoint (null: none, or a gate a person or the planner opened). */
export function pendingGateOf(checkpoint: unknown, gateId: string): PendingGate | null {
  const executor = typeof checkpoint === "object" && checkpoint !== null ? (checkpoint as { executor?: unknown }).executor : undefined;
  const pending = PendingGate.safeParse(typeof executor === "object" && executor !== null ? (executor as { pendingGate?: unknown }).pendingGate : undefined);
  return pending.success && pending.data.gateId === gateId ? pending.data : null;
}

// ─── The kinds ────────────────────────────────────────────────────────────────────────────────────────────

/** A sensed screen (app, perceptual hash, size, listed elements; the screenshot is the row's blob), or what OCR read on it. */
export const ObservationData = z.strictObject({
  app: z.string().optional(),
  phash: z.string().optional(),
  screen: ScreenSize.optional(),
  elements: z.array(ListedElement).optional(),
  /** What OCR read where the tree is blind (null: the screenshot could not be read), and where the action lands. */
  ocr: z.array(z.strictObject({ text: z.string(), bounds: z.strictObject({ left: z.number(), top: z.number(), right: z.number(), bottom: z.number() }) })).nullable().optional(),
  at: PixelPoint.nullable().optional(),
});

/** An action performed (or lost with the connection: `error`), where it landed in pixels, the app, the policy's decision; a skill's step with the screen it started from. */
export const ActionData = z.strictObject({
  action: RecordedAction,
  px: PixelPoint.nullish(),
  app: z.string().optional(),
  policy: PolicyRecord.optional(),
  error: z.string().optional(),
  /** A part of that step, numbered, not a step of the skill: `seek`, a scroll looking for its element in a list (or a
   *  wheel's further drag); `popup`, a tap closing a popup the skill did not expect. */
  skill: z.strictObject({ id: z.string(), step: Int, seek: Int.optional(), popup: Int.optional() }).optional(),
  before: z.strictObject({ app: z.string(), screen: ScreenSize, elements: z.array(ListedElement.omit({ i: true })) }).optional(),
});

/** A detector's finding (`kind`: repetition, cycle, no_change, …) or a fault the run lived through (`fault`). */
export const AnomalyData = z.discriminatedUnion("fault", [
  z.strictObject({ fault: z.undefined().optional(), kind: z.string().min(1) }),
  /** The state core did not answer a call for a while; the client's retries got it through. */
  z.strictObject({ fault: z.literal("outage"), procedure: z.string(), cause: z.string(), lastCause: z.string(), startedAt: z.string(), durationMs: Int, attempts: Int, retried: Int, outcome: z.enum(["recovered", "gave_up"]) }),
  /** The run's worker waited for the state core and resumed from its last checkpoint. */
  z.strictObject({
    fault: z.literal("suspended"),
    cause: z.enum(["api_unreachable", "lease_expired", "run_interrupted"]),
    suspendedMs: Int,
    retriedMs: Int.optional(),
    outageMs: Int.optional(),
    attempts: Int.optional(),
    node: z.string(),
    todoId: z.string().optional(),
    stepIndex: Int,
    error: z.string(),
  }),
  /** A model call failed (and whether it is tried again). */
  z.strictObject({ fault: z.literal("model_call_failed"), role: z.string(), code: z.string(), status: z.number().int().optional(), attempt: Int, willRetry: z.boolean(), message: z.string() }),
  /** A stopped run was taken up again (run.resume). */
  z.strictObject({
    fault: z.literal("resumed"),
    status: z.string(),
    endReason: z.string(),
    cause: z.string(),
    remedy: z.string(),
    stoppedAt: z.string().nullable(),
    stoppedSummary: z.string().nullable(),
    from: z.string(),
    to: z.string(),
    lastStepIndex: Int.nullable(),
    deviceSerial: z.string().nullable(),
  }),
]);

const RulesDecision = z.strictObject({ tier: Tier, kind: z.string(), ruleId: z.string() });
const TodoLine = z.strictObject({ id: z.string().optional(), title: z.string(), kind: z.enum(["executor", "host"]), app: z.string().optional(), inputs: z.array(z.string()).optional(), outputs: z.array(z.string()).optional() });

/**
 * A check and its verdict: the guard model's (guard, rules, decided), an unparseable reply (code, message, raw),
 * a todo's outputs accepted (outputs) or refused (code, keys), the supervisor's decision, a host todo's answer
 * (answer, outputs, expression), the plan (plan, todos), a virtual phone task's score (evaluator, task, score, reason, checks).
 */
export const ValidationData = z.strictObject({
  guard: z.strictObject({ tier: Tier, category: z.string().optional(), reason: z.string() }).nullable().optional(),
  error: z.string().nullable().optional(),
  rules: RulesDecision.optional(),
  decided: RulesDecision.optional(),
  code: z.string().optional(),
  message: z.string().optional(),
  raw: z.string().optional(),
  outputs: Words.optional(),
  keys: z.array(z.string()).optional(),
  decision: z.enum(["retry", "replan", "summarise", "complete"]).optional(),
  reason: z.string().optional(),
  todos: z.array(TodoLine).optional(),
  attemptsExhausted: z.boolean().optional(),
  answer: z.string().optional(),
  expression: z.string().optional(),
  plan: z.string().optional(),
  evaluator: z.literal("virtual_phone_task").optional(),
  task: z.string().optional(),
  score: z.number().optional(),
  checks: z.unknown().optional(),
});

const Usage = z.strictObject({ inputTokens: Int, outputTokens: Int, microUsd: Int });
const ModelRole = z.enum(["planner", "executor", "summarizer", "guard"]);

/**
 * A model call and what it cost, one shape whoever metered it: `via` names the meter — the API's model proxy ("api",
 * which spent it with its reservation's settlement) or the runtime's record of a direct endpoint's call ("runtime",
 * which the core spends as it inserts this row). Either way the row and its spend are one transaction, so the quota
 * spent is the sum of these rows. `estimated`: the endpoint reported no usage, so the tokens are the tokenizer's
 * count of the prompt as sent and of the reply, priced at the model settings' prices.
 */
export const ModelCallData = z.strictObject({
  via: z.enum(["api", "runtime"]),
  role: ModelRole,
  model: z.string(),
  ...Usage.shape,
  latencyMs: z.number(),
  estimated: z.literal(true).optional(),
  /** What the call's reservation held, and the reply budget it went out with (a proxied call). */
  reserved: z.strictObject({ tokens: Int, microUsd: Int, maxOutputTokens: Int.nullable() }).optional(),
  /** The demo model (the reference policy) answered. */
  demo: z.literal(true).optional(),
  /** The runtime's own count of the prompt it sent (text and images). */
  promptTokensCounted: z.strictObject({ text: Int, image: Int, total: Int }).optional(),
  structured: z.boolean().optional(),
  reply: z.string().optional(),
  attempt: Int.optional(),
});
export type ModelCallData = z.infer<typeof ModelCallData>;

/** The summarizer's report of the run. */
export const SummaryData = z.strictObject({
  goal: z.string(),
  status: z.enum(RUN_END_STATUSES),
  endReason: z.enum(RUN_END_REASONS),
  executed: z.array(z.strictObject({ todoId: z.string(), title: z.string(), status: z.string(), summary: z.string() })),
  findings: z.array(z.string()),
  blocked: z.array(z.string()),
  conclusion: z.string(),
  outputs: Words,
  totals: z.strictObject({ steps: Int, modelCalls: Int, inputTokens: Int, outputTokens: Int, microUsd: Int, promptTokensCounted: Int }),
  lessons: z.array(z.strictObject({ kind: z.enum(["failed", "worked"]), text: z.string() })),
});

/** A person's answer to a gate the executor opened, with what the gate was about. */
export const GateDecisionData = z.strictObject({
  gateId: z.string(),
  kind: z.string(),
  tier: z.enum(["confirm", "high_risk", "question"]),
  status: z.enum(GATE_STATUSES),
  answer: z.string().nullish(),
  rationale: z.string().nullish(),
  policy: GatePolicy.optional(),
});

/** The executor handing a todo back to the planner (its return). */
export const HandoffData = z.strictObject({
  todoId: z.string(),
  status: z.enum(["completed", "partial", "blocked"]),
  reason: z.string(),
  summary: z.string(),
  outputs: Words,
  answers: z.array(z.string()),
  finalScreen: z.strictObject({ app: z.string(), phash: z.string(), observationKey: z.string().optional() }).nullable(),
  steps: Int,
});

/** No writer records checkpoint evidence (a run's checkpoint is on the run); any JSON object. */
export const CheckpointData = z.record(z.string(), z.unknown());

/** The schema of each kind's data. */
export const EVIDENCE_DATA = {
  observation: ObservationData,
  action: ActionData,
  anomaly: AnomalyData,
  validation: ValidationData,
  model_call: ModelCallData,
  summary: SummaryData,
  gate_decision: GateDecisionData,
  handoff: HandoffData,
  checkpoint: CheckpointData,
} as const satisfies Record<EvidenceKind, z.ZodType>;

export type EvidenceData<K extends EvidenceKind = EvidenceKind> = z.output<(typeof EVIDENCE_DATA)[K]>;
/** What a writer of kind K gives (the same shape; no field has a default). */
export type EvidenceDataInput<K extends EvidenceKind = EvidenceKind> = z.input<(typeof EVIDENCE_DATA)[K]>;

/** A kind with its data: what a writer builds, so the compiler holds it to the kind's schema. */
export type EvidenceBody = { [K in EvidenceKind]: { kind: K; data: EvidenceDataInput<K> } }[EvidenceKind];

/** Parses `data` as kind `kind`'s; the issues' paths are within the data. */
export function parseEvidenceData<K extends EvidenceKind>(kind: K, data: unknown): z.ZodSafeParseResult<EvidenceData<K>> {
  return (EVIDENCE_DATA[kind] as unknown as z.ZodType<EvidenceData<K>>).safeParse(data);
}

/**
 * The check an operator's input runs on an evidence row (`kind` and `data`): each issue of the kind's schema, its
 * path under `data`, so the caller's error names the field (`data.elements.0.box`).
 */
export function refineEvidenceData(row: { kind: EvidenceKind; data: unknown }, ctx: z.RefinementCtx): void {
  // Data the JSON check refused already (too large, not storable) is not read again: one refusal per field.
  if (ctx.issues.some((i) => i.path?.[0] === "data")) return;
  const r = parseEvidenceData(row.kind, row.data);
  if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: ["data", ...issue.path] });
}

/**
 * A stored row's data as its kind's, for reading: a row that fits the schema as it is; a row written before a field
 * changed (or by a writer that is gone) keeps the fields that still fit, the rest left out — so a replay of a run
 * recorded before still opens. Reading never throws.
 */
export function readEvidenceData<K extends EvidenceKind>(kind: K, data: unknown): Partial<EvidenceData<K>> {
  const schema = EVIDENCE_DATA[kind] as z.ZodType;
  const exact = schema.safeParse(data);
  if (exact.success) return exact.data as EvidenceData<K>;
  return salvage(schema, data) as Partial<EvidenceData<K>>;
}

function salvage(schema: z.ZodType, data: unknown): Record<string, unknown> {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return {};
  const row = data as Record<string, unknown>;
  if (schema instanceof z.ZodDiscriminatedUnion) {
    const key = schema.def.discriminator;
    const options = schema.options as z.ZodType[];
    const option = options.find((o) => o instanceof z.ZodObject && (o.shape[key] as z.ZodType).safeParse(row[key]).success) ?? options[0]!;
    return salvage(option, data);
  }
  if (!(schema instanceof z.ZodObject)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    if (!(k in row)) continue;
    const r = field.safeParse(row[k]);
    if (r.success) out[k] = r.data;
  }
  return out;
}

// ─── A step row ───────────────────────────────────────────────────────────────────────────────────────────

/** A step's action: the parsed action, or the description of a reply that did not parse. */
export const StepAction = z.union([RecordedAction, z.string()]);
export type StepAction = z.infer<typeof StepAction>;

/**
 * Why a step's action was taken without asking the model: `unchanged_after_wait` — the last action was a wait and
 * the screen (image and tree text) is as the model last saw it, so the executor waited again (a repeated wait);
 * `skill_step` — a skill stopped at a step a person has to approve and the runtime took that step itself, through its
 * gate; `skill_resumed` — after that step (taken so, or by the model), the skill goes on from the step after it.
 */
export const MODEL_SKIPPED = ["unchanged_after_wait", "skill_resumed", "skill_step"] as const;
export type ModelSkipped = (typeof MODEL_SKIPPED)[number];

/**
 * A step's outcome (the row's `outcome` column): what came of the action, the app, the screen's hash, phase timings
 * (ms), the model's raw replies, and `modelSkipped` when the model was not asked for the action.
 */
export const StepOutcome = z.strictObject({
  outcome: z.string(),
  app: z.string().optional(),
  phash: z.string().nullable().optional(),
  timings: z.record(z.string(), z.number()).optional(),
  replies: z.array(z.string()).optional(),
  modelSkipped: z.enum(MODEL_SKIPPED).optional(),
});
export type StepOutcome = z.infer<typeof StepOutcome>;

/** A stored step's outcome for reading (see readEvidenceData). */
export function readStepOutcome(data: unknown): Partial<StepOutcome> {
  const exact = StepOutcome.safeParse(data);
  return exact.success ? exact.data : (salvage(StepOutcome, data) as Partial<StepOutcome>);
}

/** A stored step's action for reading: the action or its description, null when it is neither. */
export function readStepAction(data: unknown): StepAction | null {
  const r = StepAction.safeParse(data);
  return r.success ? r.data : null;
}
