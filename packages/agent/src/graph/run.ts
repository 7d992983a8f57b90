// The runner: the only loop that performs effects. It registers the agent, starts or resumes a run from its last
// checkpoint, walks planner → executor → planner … → summarizer, checkpointing after every node, and performs the
// effects of the executor's pure steps, feeding each input's result back as the next observation.
import { resumableStop } from "@phoneloop/state/domain";
import { describeAction } from "../actions/schema.ts";
import { workspacePolicyRules } from "../policy/rules.ts";
import {
  API_UNREACHABLE,
  ControlPlaneConflict,
  leaseRefOf,
  type AgentPorts,
  type AgentRegistration,
  type EvidenceInput,
  type StepEvidence,
  type LeaseRef,
  type Outage,
  type RunEndReason,
  type RunEndStatus,
  type StepInput,
  type StepRecord,
  type StepRecordOutcome,
} from "../ports.ts";
import { callModel, isDeviceLost, perform, PreparedFrames, retryDevice, sense, type DeviceOutcome, type Sensed, type Settled } from "./effects.ts";
import { step, type Effect, type InputEffect, type Observation } from "./executor.ts";
import { listElements } from "./observe.ts";
import { emptyLearned, learnFromRun, prepareLearning, settleOf } from "./learning.ts";
import { runSkill } from "../skills/execute.ts";
import { runPlanner } from "./planner.ts";
import { runSummarizer, type RunReport } from "./summarizer.ts";
import {
  checkpointOf,
  DEFAULT_CONFIG,
  guard,
  initialState,
  type AgentConfig,
  type AgentEvent,
  type ExecutorReturn,
  type ExecutorRunState,
  type RunContext,
  type RunState,
} from "./state.ts";

export interface RunAgentOptions {
  /** Work on an existing goal, or create one from `goal`. */
  goalId?: string;
  goal?: string;
  /** Resume this run from its last checkpoint (another worker's, after a crash or a closed tab). */
  runId?: string;
  agent: AgentRegistration;
  config?: Partial<AgentConfig>;
  /** Graceful cancel: the run is summarised. */
  signal?: AbortSignal;
  /** Hard stop (tests of crash recovery): nothing more is written. */
  kill?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
}

export interface RunOutcome {
  runId: string;
  goalId: string;
  agentId: string;
  status: RunEndStatus;
  endReason: RunEndReason;
  resumed: boolean;
  report: RunReport;
}

function isRunState(x: unknown): x is RunState {
  return typeof x === "object" && x !== null && (x as RunState).version === 2 && typeof (x as RunState).runId === "string";
}

const emptyTotals = (): ExecutorRunState["totals"] => ({ steps: 0, modelCalls: 0, inputTokens: 0, outputTokens: 0, microUsd: 0, promptTokensCounted: 0 });

export async function runAgent(ports: AgentPorts, opts: RunAgentOptions): Promise<RunOutcome> {
  const cp = ports.controlPlane;
  const config: AgentConfig = { ...DEFAULT_CONFIG, ...opts.config, guardModel: opts.config?.guardModel ?? Boolean(ports.models.guard), ocr: opts.config?.ocr ?? Boolean(ports.ocr) };
  // The workspace's policy rules, unless the caller set its own: every decision then records their version.
  if (!config.policyRules) {
    const stored = await cp.getPolicyRules();
    if (stored) {
      const parsed = workspacePolicyRules(stored);
      if (!parsed.ok) throw Object.assign(new Error(parsed.message), { code: parsed.code });
      config.policyRules = parsed.rules;
    }
  }
  const ctx: RunContext = { ports, config, ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.kill ? { kill: opts.kill } : {}), ...(opts.onEvent ? { onEvent: opts.onEvent } : {}) };
  const { agentId } = await cp.registerAgent({ ...opts.agent, capabilities: opts.agent.capabilities.length ? opts.agent.capabilities : config.capabilities });

  // Resuming by run id alone: the checkpoint knows the goal.
  const previous = opts.runId ? await cp.getRun(opts.runId) : null;
  if (opts.runId && !previous) throw Object.assign(new Error(`No run ${opts.runId}; start a new run with --goal-id or a goal instead.`), { code: "NOT_FOUND" });
  // Whether the run may be taken up again (running, interrupted, or a stop whose cause is gone) is the core's to
  // decide: its resumeRun refuses a finished run, saying why.
  const saved = isRunState(previous?.checkpoint) ? previous.checkpoint : null;
  let goalId = opts.goalId ?? previous?.goalId;
  let goalText = opts.goal ?? saved?.goal;
  if (goalId) {
    const g = await cp.getGoal(goalId);
    if (!g) throw Object.assign(new Error(`No goal ${goalId}; create it first or pass a goal.`), { code: "NOT_FOUND" });
    goalText ??= g.objective;
  } else {
    if (!goalText) throw Object.assign(new Error("A run needs a goal: pass the goal's text or the id of an existing goal."), { code: "INVALID_INPUT" });
    goalId = (await cp.createGoal({ objective: goalText, title: goalText.slice(0, 120) })).id;
  }
  const run = previous ? await cp.resumeRun({ runId: previous.id, agentId }) : await cp.startRun({ goalId, agentId });
  const resumed = saved !== null;
  ctx.onEvent?.({ type: "run", runId: run.id, goalId, agentId, resumed: previous !== null });
  let state: RunState = saved ? restored(saved, agentId) : initialState({ runId: run.id, goalId, agentId, goal: goalText!, preapproved: config.preapproved });
  state.agentId = agentId;
  // What earlier runs left for the goal's apps; learning never stops a run.
  if (!state.learned && config.learn) {
    state.learned = await prepareLearning(ctx, state.goal).catch((e: unknown) => {
      ctx.onEvent?.({ type: "anomaly", kind: "learning_failed", message: `Skills, shortcuts and lessons could not be loaded: ${e instanceof Error ? e.message : String(e)}` });
      return emptyLearned();
    });
  }

  const checkpoint = async (s: RunState) => {
    guard(ctx);
    await cp.saveCheckpoint({ runId: s.runId, agentId, checkpoint: checkpointOf(s) as unknown as Record<string, unknown> });
  };
  await checkpoint(state);

  let report: RunReport | null = null;
  /** Suspensions since the last node that completed: a core that keeps failing the same node ends the run. */
  let suspensions = 0;
  // The state core's outages this run lives through, once each is over: evidence rows with their true durations.
  const outageLog = recordOutages(ctx, state.runId, goalId);
  try {
    while (state.node !== "end") {
      guard(ctx);
      try {
        ctx.onEvent?.({ type: "node", node: state.node });
        await cp.heartbeatAgent(agentId);
        switch (state.node) {
          case "planner":
            state = await runPlanner(ctx, state);
            break;
          case "executor": {
            const { state: after, ret } = await runExecutor(ctx, state);
            ctx.onEvent?.({ type: "executor_return", ret });
            const { executor, node: _node, ...common } = after;
            state = { ...common, node: "planner", lastReturn: ret, held: executor.lease ? { todoId: executor.todoId, lease: executor.lease } : null };
            break;
          }
          case "summarizer":
            // The summarizer finishes the run: its last write; a finished run takes no checkpoint.
            report = await runSummarizer(ctx, state);
            state = { ...state, node: "end" };
            if (config.learn) {
              await learnFromRun(ctx, state, report.lessons).catch((e: unknown) => {
                ctx.onEvent?.({ type: "anomaly", kind: "learning_failed", message: `What this run teaches could not be recorded: ${e instanceof Error ? e.message : String(e)}` });
              });
            }
            continue;
        }
        await checkpoint(state);
        suspensions = 0;
      } catch (e) {
        const cause = ctx.kill?.aborted || ctx.signal?.aborted ? null : suspensionOf(e, agentId);
        if (!cause || ++suspensions > MAX_SUSPENSIONS) throw e;
        state = await outlastSuspension(ctx, state, cause, e as Error, outageLog.takeGivenUp());
      }
    }
  } finally {
    await outageLog.stop();
  }
  report ??= ((await cp.listEvidence({ goalId, runId: state.runId, kind: "summary" })).at(-1)?.data as RunReport | undefined) ?? null;
  ctx.onEvent?.({ type: "end", status: state.end.status, endReason: state.end.reason, reason: state.end.detail });
  return { runId: state.runId, goalId, agentId, status: state.end.status, endReason: state.end.reason, resumed, report: report! };
}

/**
 * Records each outage of the state core the run lived through once it is over and the core answers again: an
 * anomaly row saying what failed, for how long and how often it was tried, so a brief outage is not an unexplained
 * gap between steps. One the client gave up on is the suspension's to record (the core is still away then).
 */
function recordOutages(ctx: RunContext, runId: string, goalId: string): { stop(): Promise<void>; takeGivenUp(): Outage | null } {
  const { controlPlane: cp, outages } = ctx.ports;
  if (!outages) return { stop: async () => undefined, takeGivenUp: () => null };
  /** Rows being written: the run waits for them before it returns, so the last outage is not lost with the process. */
  const writing = new Set<Promise<unknown>>();
  /** The last outage the client gave up on: the suspension it leads to says how long the client had tried. */
  let givenUp: Outage | null = null;
  const unsubscribe = outages.subscribe((o) => {
    if (o.outcome === "gave_up") givenUp = o;
    if (o.outcome !== "recovered" || ctx.kill?.aborted) return;
    const retried = o.attempts - 1;
    const seconds = (o.durationMs / 1000).toFixed(1);
    const write = cp
      .appendEvidence({
        idempotencyKey: `${runId}:outage:${o.procedure}:${o.startedAt}`,
        kind: "anomaly",
        goalId,
        runId,
        summary: `The state core did not answer ${o.procedure} for ${seconds} s (${o.fault}${o.lastFault !== o.fault ? `, then ${o.lastFault}` : ""}); the call was tried again ${retried} time${retried === 1 ? "" : "s"} and went through.`.slice(0, 500),
        data: { fault: "outage", procedure: o.procedure, cause: o.fault, lastCause: o.lastFault, startedAt: new Date(o.startedAt).toISOString(), durationMs: Math.round(o.durationMs), attempts: o.attempts, retried, outcome: o.outcome },
      })
      .catch(() => undefined) // an outage row that cannot be written leaves the run as it is
      .finally(() => writing.delete(write));
    writing.add(write);
  });
  return {
    async stop() {
      unsubscribe();
      await Promise.all(writing);
    },
    takeGivenUp() {
      const o = givenUp;
      givenUp = null;
      return o;
    },
  };
}

/** The worker's own lease and run state from a checkpoint: leases are claimed again (a new epoch fences any late write of the life that saved it). */
function restored(saved: RunState, agentId: string): RunState {
  // A run that stopped for a cause that can go away (its quota, a pause, a gate, a lost phone …) saved its last
  // checkpoint on the way to the summarizer: resumed, it goes back to the planner, which takes up the work again
  // (and stops again, in the core's words, if the cause remains).
  if (saved.node === "summarizer" && resumableStop({ status: saved.end.status, endReason: saved.end.reason })) {
    const { end: _end, node: _node, ...common } = saved;
    return { ...common, agentId, node: "planner", lastReturn: null, held: null };
  }
  const state = { ...saved, agentId };
  if (state.node === "executor") state.executor = { ...state.executor, lease: null };
  if (state.node === "planner" && state.held) state.held = null;
  return state;
}

/**
 * Why the state core stopped this run's worker without anyone else taking its work: it did not answer within the
 * client's retries (the API or Postgres away or frozen), this worker's own lease lapsed meanwhile (nobody else holds
 * the todo), or the reaper marked the run interrupted meanwhile. Anything else — another holder, a refused write —
 * is not a suspension.
 */
export type SuspensionCause = "api_unreachable" | "lease_expired" | "run_interrupted";

function suspensionOf(e: unknown, agentId: string): SuspensionCause | null {
  const { code, details } = (e ?? {}) as { code?: unknown; details?: Record<string, unknown> | null };
  if (code === API_UNREACHABLE) return "api_unreachable";
  // The API's reaper took this worker for dead while it could not write (its heartbeat stale, its lease lapsed).
  if (code === "ILLEGAL_TRANSITION" && details?.status === "interrupted") return "run_interrupted";
  if (e instanceof ControlPlaneConflict && e.details && "currentHolder" in e.details) {
    const holder = e.details.currentHolder;
    if (holder === null || holder === agentId) return "lease_expired";
  }
  return null;
}

/** Suspensions in a row, without a node completing between them, before the run stops (at its last checkpoint). */
const MAX_SUSPENSIONS = 3;

/**
 * The run outlives a pause of the state core: wait until the core answers again (at most `suspendMaxMs`), resume
 * the run as its restarted worker would — the same agent, from the last checkpoint, its todo claimed again under a
 * new epoch, an action in flight recorded as interrupted and never repeated — and leave a typed evidence row
 * saying what happened.
 */
async function outlastSuspension(ctx: RunContext, state: RunState, cause: SuspensionCause, error: Error, givenUp: Outage | null = null): Promise<RunState> {
  const { controlPlane: cp, clock } = ctx.ports;
  const since = clock.monotonic();
  const at = clock.now();
  const what = {
    api_unreachable: "the state core did not answer",
    lease_expired: "this worker's lease lapsed while the state core did not answer",
    run_interrupted: "the run was marked interrupted (its worker silent, its lease lapsed) while the state core did not answer",
  }[cause];
  ctx.onEvent?.({ type: "anomaly", kind: "suspended", message: `${what}: ${error.message.slice(0, 300)}; the run is suspended until the state core answers again` });
  let pause = 250;
  for (;;) {
    guard(ctx);
    try {
      await cp.heartbeatAgent(state.agentId);
      break;
    } catch (e) {
      if (suspensionOf(e, state.agentId) !== "api_unreachable" || clock.monotonic() - since >= ctx.config.suspendMaxMs) throw e;
      await clock.sleep(pause, ctx.signal).catch(() => undefined);
      pause = Math.min(pause * 2, 5_000);
    }
  }
  // The summarizer's last write (finishing the run) may have landed before the core went away: then the run is over.
  const now = await cp.getRun(state.runId);
  if (state.node === "summarizer" && now && now.status !== "running" && now.status !== "interrupted") return { ...state, node: "end" };
  // The reaper may have marked the run interrupted meanwhile: the same agent takes it back at once.
  await cp.resumeRun({ runId: state.runId, agentId: state.agentId });
  const saved = (await cp.getRun(state.runId))?.checkpoint;
  if (!isRunState(saved)) throw error;
  const next = restored(saved, state.agentId);
  const suspendedMs = Math.round(clock.monotonic() - since);
  // The client's own tries before it gave up (one request may have hung until its deadline) are part of the outage.
  const retriedMs = givenUp ? Math.round(givenUp.durationMs) : null;
  const tried = givenUp ? `The client tried ${givenUp.procedure} ${givenUp.attempts} time${givenUp.attempts === 1 ? "" : "s"} over ${((retriedMs ?? 0) / 1000).toFixed(1)} s (${givenUp.fault}) before giving up; then the` : "The";
  const where = next.node === "executor" ? `step ${next.stepIndex + 1} of todo ${next.executor.todoId}` : `the ${next.node}`;
  await cp.appendEvidence({
    idempotencyKey: `${state.runId}:suspended:${at}`,
    kind: "anomaly",
    goalId: state.goalId,
    runId: state.runId,
    summary: `Suspended: ${what}. ${tried} worker waited ${(suspendedMs / 1000).toFixed(1)} s more for it to answer again and resumed the run from its last checkpoint, at ${where}${next.node === "executor" ? ", claiming the todo again under a new lease" : ""}.`.slice(0, 500),
    data: { fault: "suspended", cause, suspendedMs, ...(retriedMs !== null ? { retriedMs, outageMs: retriedMs + suspendedMs, attempts: givenUp!.attempts } : {}), node: next.node, ...(next.node === "executor" ? { todoId: next.executor.todoId } : {}), stepIndex: next.stepIndex, error: error.message.slice(0, 500) },
  });
  return next;
}

type RecordEffect = Extract<Effect, { type: "evidence" | "turn_result" | "step" }>;
const isRecord = (e: Effect): e is RecordEffect => e.type === "evidence" || e.type === "turn_result" || e.type === "step";

/** A write waiting for the next step record: evidence (with the upload of its blob, when it has one), a step row, a turn result. */
type PendingWrite =
  | { type: "evidence"; input: EvidenceInput; blob?: Promise<PutScreenshot> }
  | { type: "step"; step: Omit<StepInput, "runId" | "agentId"> }
  | { type: "turn_result"; lease: LeaseRef; turnResult: NonNullable<StepRecord["turnResult"]> };

/** A screenshot put for an observation: the store's sha256, and the digest of the bytes sent. */
interface PutScreenshot {
  sha256: string;
  digest: string | null;
}

/** The bytes' SHA-256, or null where WebCrypto is missing (a page outside a secure context): then every screenshot is put. */
async function digestOf(bytes: Uint8Array): Promise<string | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const d = new Uint8Array(await subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Inputs that need nothing written first: reading the phone, and asking the model about what was read. */
const NEEDS_NO_WRITE = new Set<InputEffect["type"]>(["sense", "ask_model", "read_screen", "drain"]);

/**
 * Performs the executor's effects until it exits. Its writes (evidence, step row, turn result, checkpoint) wait in
 * a queue and go out as one step record — one request, one transaction — before the next input that needs them:
 * before an action (the write-ahead record of the action, with what the step saw and what the model said, commits
 * before the action, so a resumed worker never repeats it), before a gate, and after the action together with the
 * route of the next turn (the core answers it after the writes). Sensing and the model call write nothing; a
 * screenshot's upload starts as soon as it is encoded and only the record that names it waits for it. Sensing —
 * device reads and image work — starts as soon as a batch asks for the route. Timing per phase is reported with
 * every step.
 */
async function runExecutor(ctx: RunContext, start: ExecutorRunState): Promise<{ state: ExecutorRunState; ret: ExecutorReturn }> {
  const { controlPlane: cp, clock } = ctx.ports;
  let state = start;
  let obs: Observation = { type: "begin" };
  /** What Device.waitForStable settled on after the last action: the next observation's screenshot and tree. */
  let settled: Settled | null = null;
  /** Frames prepared for the model lately: a screen seen again is not decoded and encoded again. */
  const frames = new PreparedFrames();
  /** Sensing started beside the route (used only by the sense that follows that route). */
  let prefetched: Promise<DeviceOutcome<Sensed>> | null = null;
  /** The last sensed screenshot at full size (what OCR reads when the tree is blind). */
  let lastShot: Uint8Array | null = null;
  /** Writes not yet recorded, in order: they go out with the next step record. */
  let pending: PendingWrite[] = [];
  /** Evidence ids by idempotency key, of what this executor recorded (a gate names its screenshot by id). */
  const evidenceIds = new Map<string, string>();
  /**
   * Screenshots already named by recorded evidence, by the digest of their bytes: the same screen seen again is not
   * uploaded again (evidence keeps a blob it names, so it stays stored).
   */
  const recordedBlobs = new Map<string, string>();
  const putScreenshot = async (image: { bytes: Uint8Array; mime: string }): Promise<PutScreenshot> => {
    const digest = await digestOf(image.bytes);
    const known = digest === null ? undefined : recordedBlobs.get(digest);
    return { sha256: known ?? (await cp.putBlob({ bytes: image.bytes, mime: image.mime })).sha256, digest };
  };
  let promptTokens = 0;
  let modelMs = 0;
  /** The phone's own time carrying out the step's action (inside the perform phase): the action, not overhead. */
  let actionMs = 0;
  let phases: Record<string, number> = {};
  /** The model's raw replies of the step being taken: the replay shows them, labelled as the model's words. */
  let replies: string[] = [];

  const timed = async <T>(phase: string, f: () => Promise<T>): Promise<T> => {
    const started = clock.monotonic();
    try {
      return await f();
    } finally {
      phases[phase] = (phases[phase] ?? 0) + (clock.monotonic() - started);
    }
  };

  /** Queues a batch's writes for the next step record. */
  const queue = (e: RecordEffect): void => {
    switch (e.type) {
      case "evidence":
        pending.push({ type: "evidence", input: e.input });
        return;
      case "turn_result":
        pending.push({ type: "turn_result", lease: e.lease, turnResult: { idempotencyKey: e.idempotencyKey, kind: e.kind, summary: e.summary, ...(e.spend ? { spend: e.spend } : {}) } });
        return;
      case "step":
        pending.push({
          type: "step",
          step: {
            index: e.stepIndex,
            node: "executor",
            todoId: e.todoId,
            action: e.action,
            // Timings (ms) of this step's phases so far and the model's raw replies: what a replay shows per step.
            outcome: { outcome: e.outcome, app: e.app, phash: e.phash, timings: { ...phases, model: modelMs }, replies },
            anomalies: e.anomalies,
            tokens: e.tokens,
          },
        });
    }
  };

  /**
   * Records what is queued (and the checkpoint, and the route, when asked) as step records: one, unless the queue
   * holds writes under different leases or two steps. Blobs are uploaded before the record that names them.
   */
  const flush = async (opts: { checkpoint: boolean; route?: string }): Promise<StepRecordOutcome | null> => {
    guard(ctx);
    const writes = pending;
    pending = [];
    if (!writes.length && !opts.checkpoint && !opts.route) return null;
    const shas = await Promise.all(writes.map((w) => (w.type === "evidence" ? w.blob : undefined)));
    const records: StepRecord[] = [];
    const keys: string[][] = [];
    const open = (lease: LeaseRef | undefined, todoId: string | undefined): StepRecord => {
      const r: StepRecord = { runId: state.runId, agentId: state.agentId, ...(todoId ? { todoId } : {}), ...(lease ? { lease } : {}), evidence: [] };
      records.push(r);
      keys.push([]);
      return r;
    };
    for (const [i, w] of writes.entries()) {
      const cur = records.at(-1) ?? null;
      if (w.type === "step") {
        const r: StepRecord = cur && !cur.step ? cur : open(cur?.lease, w.step.todoId);
        r.step = w.step;
        continue;
      }
      const lease = w.type === "evidence" ? w.input.lease : w.lease;
      const todoId = w.type === "evidence" ? w.input.todoId : w.lease.todoId;
      const fits = (r: StepRecord | null): r is StepRecord => r !== null && r.lease?.leaseKey === lease?.leaseKey && (r.todoId ?? todoId) === todoId && !(w.type === "turn_result" && r.turnResult);
      const r: StepRecord = fits(cur) ? cur : open(lease, todoId);
      r.todoId ??= todoId;
      if (w.type === "turn_result") r.turnResult = w.turnResult;
      else {
        // The row's own fields; its goal, run, todo and lease are the record's.
        const { goalId: _goal, runId: _run, todoId: _todo, lease: _lease, blob: _blob, ...row } = w.input;
        r.evidence!.push({ ...(row as StepEvidence), ...(shas[i] ? { blobSha256: shas[i].sha256 } : {}) });
        keys[keys.length - 1]!.push(row.idempotencyKey);
      }
    }
    const last: StepRecord = records.at(-1) ?? open(undefined, opts.route);
    if (opts.checkpoint) last.checkpoint = checkpointOf(state) as unknown as Record<string, unknown>;
    if (opts.route) {
      if (last.todoId && last.todoId !== opts.route) open(undefined, opts.route).route = true;
      else Object.assign(last, { todoId: opts.route, route: true });
    }
    let out: StepRecordOutcome | null = null;
    for (const [n, r] of records.entries()) {
      guard(ctx);
      out = await cp.recordStep(r);
      out.evidenceIds.forEach((id, k) => evidenceIds.set(keys[n]![k]!, id));
    }
    for (const [k, w] of writes.entries()) if (w.type === "evidence" && shas[k]?.digest) recordedBlobs.set(shas[k].digest, shas[k].sha256);
    return out;
  };

  const emit = (event: AgentEvent): void => {
    if (event.type !== "step") return ctx.onEvent?.(event);
    const total = Object.values(phases).reduce((a, b) => a + b, 0);
    ctx.onEvent?.({ ...event, promptTokens, modelMs, actionMs, overheadMs: total - modelMs - actionMs, phases });
    phases = {};
    actionMs = 0;
    replies = [];
    promptTokens = 0;
    modelMs = 0;
  };

  const input = async (e: Exclude<InputEffect, { type: "exit" }>): Promise<Observation> => {
    switch (e.type) {
      case "acquire": {
        const claim = await cp.claimNext({ agentId: state.agentId, goalId: state.goalId, ttlMs: ctx.config.leaseTtlMs });
        if (!claim.claimed) return { type: "not_acquired", reason: claim.reason };
        if (claim.todo.id !== e.todoId) {
          await cp.releaseLease(leaseRefOf(claim.lease), `this run continues ${e.todoId}, not ${claim.todo.id}`);
          return { type: "not_acquired", reason: `the next todo in order is now ${claim.todo.id} ("${claim.todo.title}")` };
        }
        await cp.startTodo(leaseRefOf(claim.lease));
        return { type: "acquired", lease: claim.lease };
      }
      case "route": {
        let lease = e.lease;
        // Keep the lease: renew at half its life. A lost lease means another worker owns the todo now.
        if (lease.expiresAt - clock.now() < ctx.config.leaseTtlMs / 2) {
          try {
            lease = await cp.renewLease(leaseRefOf(lease), ctx.config.leaseTtlMs);
          } catch (err) {
            // Our own lease lapsed (nobody else holds the todo): a suspension, the run loop takes it up again.
            if (err instanceof ControlPlaneConflict && suspensionOf(err, state.agentId) === null) return { type: "lease_lost", message: err.message };
            throw err;
          }
        }
        // The step's writes, the checkpoint after it and the route of the next turn: one record, one transaction,
        // the route read after the writes. The step row and the checkpoint that no longer holds its action in
        // flight commit together, so a worker resumed at any later moment (a kill while the model is asked, a
        // suspension) reads a history that says what happened; only an action whose record never committed is
        // found in flight, and reported as unknown.
        const r = (await flush({ checkpoint: true, route: e.todoId }))!.route!;
        if (ctx.signal?.aborted) return { type: "cancelled" };
        if (r.route === "ready_for_host" || r.route === "repair_required") return { type: "routed", route: r.route, reason: r.reason, lease, skip: null, openGate: null };
        const sr = await cp.shouldRun({ agentId: state.agentId, goalId: state.goalId, todoId: e.todoId });
        const openGate = r.route === "user_action_required" ? ((await cp.listTodos(state.goalId)).find((t) => t.id === e.todoId)?.openGate ?? null) : null;
        return { type: "routed", route: r.route, reason: r.reason, lease, skip: sr.decision === "skip" ? { reason: sr.reason, message: sr.message } : null, openGate };
      }
      case "sense": {
        const out = await (prefetched ?? sense(ctx, ctx.ports.device, settled, frames));
        settled = null;
        if (!out.ok) return { type: "sense_failed", lost: out.lost, message: out.message };
        const { screenshot, tree, foreground, prepared } = out.value;
        lastShot = screenshot.png;
        const app = foreground ? `${foreground.packageName}${foreground.activity ? `/${foreground.activity}` : ""}` : "unknown";
        const elements = listElements(tree, screenshot.width, screenshot.height);
        const ex = state.executor;
        const key = `${state.runId}:${e.stepIndex}:observation:${e.lease.leaseKey}`;
        // The screenshot's upload starts now; the record that carries the observation waits for it.
        const blob = ctx.config.storeScreenshots ? putScreenshot(prepared.forModel) : undefined;
        blob?.catch(() => undefined); // awaited by the record that names it
        pending.push({
          type: "evidence",
          input: {
            idempotencyKey: key,
            kind: "observation",
            goalId: state.goalId,
            runId: state.runId,
            todoId: ex.todoId,
            lease: e.lease,
            stepIndex: e.stepIndex,
            summary: `${app}, ${elements.length} elements`,
            data: { app, phash: prepared.phash, screen: { width: screenshot.width, height: screenshot.height }, elements: elements.map((x) => ({ i: x.index, text: x.text, id: x.resourceId, box: x.box, ...(x.password ? { password: true } : {}) })) },
          },
          ...(blob ? { blob } : {}),
        });
        return {
          type: "sensed",
          screen: { app, packageName: foreground?.packageName ?? null, width: screenshot.width, height: screenshot.height, phash: prepared.phash, blocks: prepared.blocks, tree, elements, image: prepared.forModel, observationKey: key },
        };
      }
      case "drain": {
        // The action in flight may still be on its way (a lagging phone carries out a tap of the dead connection
        // seconds later): the screen is read once the phone ran every input it was sent and settled. The device
        // layer asks the phone; a device that cannot be asked only settles.
        const device = ctx.ports.device;
        const { timeoutMs, intervalMs, requiredMatches, minQuietMs } = ctx.config.stable;
        const stable = { timeoutMs, intervalMs, requiredMatches, minQuietMs, checkLoadingIndicators: true };
        try {
          const d = device.drain ? await device.drain({ stable }) : { drained: true, checked: false, running: [], waitedMs: 0, settled: await device.waitForStable(stable) };
          guard(ctx);
          if (d.settled) settled = { screenshot: d.settled.screenshot, ...(d.settled.stable && d.settled.tree ? { tree: d.settled.tree } : {}) };
          const fg = await device.foreground().catch((err: unknown) => {
            if (isDeviceLost(err)) throw err;
            return null;
          });
          guard(ctx);
          return { type: "drained", drained: d.drained, checked: d.checked, running: d.running, waitedMs: d.waitedMs, app: fg ? `${fg.packageName}${fg.activity ? `/${fg.activity}` : ""}` : null };
        } catch (err) {
          guard(ctx);
          if (isDeviceLost(err)) return { type: "sense_failed", lost: true, message: err instanceof Error ? err.message : String(err) };
          return { type: "drained", drained: false, checked: false, running: [], waitedMs: 0, app: null };
        }
      }
      case "read_screen": {
        const ocr = ctx.ports.ocr;
        if (!ocr || !lastShot) return { type: "screen_read", ocr: null };
        // A reader that fails leaves the screen unread: the permission checkpoint decides without a reading.
        const read = await ocr.read(lastShot, e.around ? { around: e.around } : {}).catch(() => null);
        guard(ctx);
        return { type: "screen_read", ocr: read ? { items: read.items } : null };
      }
      case "ask_model": {
        const usage = emptyTotals();
        const started = clock.monotonic();
        const r = await callModel(ctx, { goalId: state.goalId, runId: state.runId }, { role: e.role ?? "executor", messages: e.messages, jsonSchema: e.jsonSchema, key: e.key, todoId: state.executor.todoId, lease: e.lease, stepIndex: e.stepIndex }, usage, async (usageEvidence) => {
          // The usage evidence need not precede the model's reply: it goes out with the step's next record.
          pending.push({ type: "evidence", input: usageEvidence });
        });
        if (!r.ok) {
          modelMs += clock.monotonic() - started;
          if (r.error.code === "DEVICE_LOST") return { type: "sense_failed", lost: true, message: r.error.message };
          return { type: "model_failed", code: r.error.code, message: r.error.message, usage };
        }
        modelMs += r.value.modelMs;
        if ((e.role ?? "executor") === "executor") replies.push(r.value.response.text.slice(0, 4000));
        promptTokens = Math.max(promptTokens, r.value.promptTokens);
        return { type: "replied", text: r.value.response.text, usage, spend: r.value.spend };
      }
      case "open_gate": {
        const ex = state.executor;
        // The core blocks the todo and ends this lease as it opens the gate; the executor then only waits.
        const { gateId } = await cp.openGate({
          idempotencyKey: e.idempotencyKey,
          goalId: state.goalId,
          todoId: ex.todoId,
          runId: state.runId,
          question: e.question,
          options: e.options,
          evidenceIds: e.evidenceKeys.flatMap((k) => evidenceIds.get(k) ?? []),
          kind: e.kind,
          tier: e.tier,
          action: e.action,
          policy: e.policy,
          lease: e.lease,
        });
        return { type: "gate_opened", gateId };
      }
      case "wait_gate": {
        try {
          return { type: "gate_resolved", gateId: e.gateId, resolution: await cp.waitForGate(e.gateId, ctx.signal) };
        } catch (err) {
          if (ctx.signal?.aborted) return { type: "cancelled" };
          throw err;
        }
      }
      case "run_skill": {
        const ex = state.executor;
        const ran = await runSkill(ctx.ports.device, e.body, {
          approvals: state.approvals,
          ...(ctx.config.policyRules ? { rules: ctx.config.policyRules } : {}),
          ...(ctx.config.appRules ? { appRules: ctx.config.appRules } : {}),
          settle: settleOf(ctx),
          // Each step is recorded as an action with the screen it started from: a replay shows it, a repair distils from it.
          onStep: async (i, st, before, px) => {
            await cp.appendEvidence({
              idempotencyKey: `${state.runId}:${e.stepIndex}:skill:${i}:action`,
              kind: "action",
              goalId: state.goalId,
              runId: state.runId,
              todoId: ex.todoId,
              lease: e.lease,
              stepIndex: e.stepIndex,
              summary: `skill "${e.name}" step ${i + 1}: ${describeAction({ ...st.action } as never)}`.slice(0, 500),
              data: { action: st.action, px, app: `${before.app}/${before.activity}`, skill: { id: e.skillId, step: i }, before: { app: `${before.app}/${before.activity}`, screen: { width: before.width, height: before.height }, elements: before.elements.map((x) => ({ text: x.text, id: x.resourceId, box: x.box })) } },
            });
          },
        }).catch((err: unknown) => ({ ok: false as const, performed: 0, failedAt: 0, reason: err instanceof Error ? err.message : String(err), found: [], lost: isDeviceLost(err) }));
        guard(ctx);
        await cp.recordSkillUse({ idempotencyKey: `${state.runId}:${e.stepIndex}:skill-use:${e.skillId}`, skillId: e.skillId, runId: state.runId, todoId: ex.todoId, ok: ran.ok, ...(ran.ok ? {} : { failedAt: ran.failedAt, reason: ran.reason.slice(0, 1000) }) });
        return { type: "skill_ran", ok: ran.ok, performed: ran.performed, failedAt: ran.ok ? null : ran.failedAt, reason: ran.ok ? null : ran.reason, ...("lost" in ran && ran.lost ? { lost: true } : {}), ...(ran.ok && ran.gatedAt !== undefined ? { gatedAt: ran.gatedAt } : {}) };
      }
      case "perform": {
        const a = e.action;
        if (a.type === "wait") {
          const waiting = clock.monotonic();
          await clock.sleep(a.ms ?? 1000, ctx.signal).catch(() => undefined);
          actionMs += clock.monotonic() - waiting;
          return { type: "performed", outcome: "waited" };
        }
        // The action's time is the attempt that carried it out (a failed attempt and the pause before a retry are not).
        const done = await retryDevice(ctx, describeAction(a), ctx.config.executeRetries, async () => {
          const attempt = clock.monotonic();
          await perform(ctx.ports.device, a, e.px, e.screen);
          actionMs += clock.monotonic() - attempt;
        });
        guard(ctx);
        if (!done.ok) return { type: "perform_failed", lost: done.lost, message: done.message, attempts: done.attempts };
        // Settling is the device's: the frame it settled on (and the tree it read for its loading check) are the
        // next step's observation.
        const { timeoutMs, intervalMs, requiredMatches, minQuietMs } = ctx.config.stable;
        const stable = await ctx.ports.device.waitForStable({ timeoutMs, intervalMs, requiredMatches, minQuietMs, checkLoadingIndicators: true }).catch(() => null);
        guard(ctx);
        settled = stable ? { screenshot: stable.screenshot, ...(stable.stable && stable.tree ? { tree: stable.tree } : {}) } : null;
        return { type: "performed", outcome: stable && !stable.stable ? "ok (screen still changing)" : "ok" };
      }
    }
  };

  for (;;) {
    guard(ctx);
    const r = step(state, obs, ctx.config);
    state = r.state;
    const last = r.effects.at(-1);
    if (!last || isRecord(last) || last.type === "checkpoint" || last.type === "event") throw new Error("executor step ended a batch without an input effect or an exit");
    for (const e of r.effects) if (isRecord(e)) queue(e);
    const checkpointed = r.effects.some((e) => e.type === "checkpoint");
    const events = r.effects.flatMap((e) => (e.type === "event" ? [e.event] : []));
    const sensing = prefetched;
    prefetched = null;
    if (last.type === "exit") {
      await timed("writeback", () => flush({ checkpoint: checkpointed }));
      events.forEach(emit);
      return { state, ret: last.ret };
    }
    if (last.type === "route") {
      // Sensing needs nothing written or routed: it runs beside the step's record and the route.
      prefetched = sense(ctx, ctx.ports.device, settled, frames);
      prefetched.catch(() => undefined); // awaited by the sense that follows, or dropped when the route stops
      settled = null;
      obs = await timed("writeback", () => input(last));
      events.forEach(emit);
      continue;
    }
    if (checkpointed || !NEEDS_NO_WRITE.has(last.type)) {
      // Write-ahead: what the step saw, what the model said and the record of the action commit before the action
      // (or the gate), so a resumed worker never repeats it.
      await timed(checkpointed ? "write-ahead" : "writeback", () => flush({ checkpoint: checkpointed }));
    }
    events.forEach(emit);
    if (last.type === "sense") {
      prefetched = sensing;
      obs = await timed("sense", () => input(last));
      prefetched = null;
    } else obs = await timed(last.type, () => input(last));
  }
}
