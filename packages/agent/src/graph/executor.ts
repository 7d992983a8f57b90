// The executor node as a pure transition: step(state, observation) → { state, effects }. Deciding happens here;
// graph/run.ts performs the effects (device, model, state core) and feeds what they returned back as the next
// observation. One step: route (the core's turn router) → sense → model → parse → policy → (gate) → act →
// settle, recorded and checkpointed; see docs/concepts.md, "Executor steps are pure transitions".
import { ACTION_JSON_SCHEMA, describeAction, type Action, type TakeoverReason } from "../actions/schema.ts";
import { parseAction, type ParseError, type ParseResult } from "../actions/parse.ts";
import type { AdapterInput } from "../model/adapters/port.ts";
import { detectAnomalies, detectCycle, detectRepetition, sameScreen, sampleOf, screenSample, targetOf, DETECTOR_LIMITS, type Anomaly } from "../detectors/index.ts";
import { formatHistory } from "../memory/history.ts";
import { applyGuardVerdict, askUserDecision, decidePermission, takeoverDecision, guardMessages, needsGate, recordApproval, GUARD_JSON_SCHEMA, type PermissionContext, type PermissionDecision } from "../policy/index.ts";
import { anomalyReminder, executorMessages } from "../prompts/executor.ts";
import { askedQuestion, gateQuestion, takeoverQuestion } from "../prompts/gate.ts";
import { formatScreenElements } from "../prompts/screen.ts";
import { isBlindTarget, isBlindTree } from "../policy/blind.ts";
import type { EvidenceBody, ModelSkipped } from "@phoneloop/state/domain";
import { leaseRefOf, type ChatMessage, type EvidenceFields, type EvidenceInput, type GateResolution, type Lease, type LeaseRef, type ModelErrorCode, type OcrReading, type SkipReason, type TurnResultKind, type TurnRoute } from "../ports.ts";
import { focusedNode, nodeAt, resolveTarget } from "./observe.ts";
import { endReasonOfSkip, statusForExit } from "./routes.ts";
import { describeShortcuts, describeSkills, skillsForTodo } from "./learning.ts";
import { neutraliseInline } from "../prompts/fence.ts";
import { bindSkill, describeSelector, findElement, type SkillBody } from "../skills/contract.ts";
import type { AgentConfig, AgentEvent, ExecutorReturn, ExecutorRunState, ExecutorState, ExitReason, GatePolicy, PendingGate, RunCommon, Screen, Turn } from "./state.ts";
import type { GateKind } from "../ports.ts";

/** What the runner saw when it performed the last input effect. */
export type Observation =
  | { type: "begin" }
  | { type: "cancelled" }
  | { type: "acquired"; lease: Lease }
  | { type: "not_acquired"; reason: string }
  | { type: "lease_lost"; message: string }
  /** The core's route for the next turn; when it is not runnable, shouldRun's refusal and the todo's open gate. */
  /** `leaseLost`: the step's writes were refused because a gate opened on the todo (a person took over) and ended the lease. */
  | { type: "routed"; route: TurnRoute; reason: string; lease?: Lease; skip: { reason: SkipReason; message: string } | null; openGate: { id: string; question: string } | null; leaseLost?: true }
  | { type: "sensed"; screen: Screen }
  | { type: "sense_failed"; lost: boolean; message: string }
  /**
   * The phone drained after a resume found an action in flight: `drained` no input command of an earlier connection
   * still running (`checked` false: the phone could not be asked, only its screen settled), `running` what was still
   * running when it gave up, `app` the app the settled screen shows.
   */
  | { type: "drained"; drained: boolean; checked: boolean; running: string[]; waitedMs: number; app: string | null }
  /** What OCR read on the step's screen (null: no reader, or it failed). */
  | { type: "screen_read"; ocr: OcrReading | null }
  /** The call is metered where it was made (the proxy, or its model_call evidence): the step spends none of its tokens. */
  /**
   * `rejection`: the role's model adapter could not read the reply (its typed rejection); otherwise `text` is one
   * action in the product's language. `action`: the adapter's reading of it, taken as is — its points are not
   * re-read onto the product's integer grid, which would move a tap off the pixel the adapter's frame meant.
   */
  | { type: "replied"; text: string; usage: RunCommon["totals"]; rejection?: ParseError; action?: Action }
  | { type: "model_failed"; code: ModelErrorCode; message: string; usage: RunCommon["totals"] }
  | { type: "gate_opened"; gateId: string }
  /** `nextStepIndex`: after a takeover handed back, the run's next free step index (past the person's steps). */
  | { type: "gate_resolved"; gateId: string; resolution: GateResolution; nextStepIndex?: number }
  | { type: "performed"; outcome: string }
  | { type: "perform_failed"; lost: boolean; message: string; attempts: number }
  /** A skill ran: it reached its end screen, or stopped before step `failedAt` with the reason (control is back with the model). */
  | { type: "skill_ran"; ok: boolean; performed: number; failedAt: number | null; reason: string | null; lost?: boolean; gatedAt?: number };

/** Writes: performed in order, nothing comes back. */
export type WriteEffect =
  | { type: "evidence"; input: EvidenceInput }
  | { type: "turn_result"; idempotencyKey: string; lease: LeaseRef; kind: TurnResultKind; summary: string; spend?: { key: string; steps: number; tokens: number; microUsd: number } }
  /** `modelSkipped`: the action was taken without asking the model (a repeated wait). */
  | { type: "step"; stepIndex: number; todoId: string; action: Action | string; outcome: string; app: string; phash: string | null; anomalies: string[]; tokens: number; modelSkipped?: ModelSkipped }
  | { type: "checkpoint" }
  | { type: "event"; event: AgentEvent };

/** Inputs: the last effect of a batch; what it returns is the next observation. */
export type InputEffect =
  /** Claim the todo again (after a resume, or after its gate closed: the core gave it back to the pool). */
  | { type: "acquire"; todoId: string }
  | { type: "route"; todoId: string; lease: Lease }
  | { type: "sense"; stepIndex: number; lease: LeaseRef }
  /** Before reading the phone after an action whose outcome is unknown: wait until it ran every input it was sent, then settle. */
  | { type: "drain"; stepIndex: number }
  /** Read the sensed screenshot's pixels (the tree is blind where the action lands); `around`: that point. */
  | { type: "read_screen"; stepIndex: number; around?: { x: number; y: number } }
  /** The executor model, or with role "guard" the permission checkpoint's guard model. */
  | { type: "ask_model"; role?: "guard"; messages: ChatMessage[]; /** The executor's step inputs, for a model adapter to render. */ prompt?: AdapterInput; jsonSchema: { name: string; schema: Record<string, unknown> }; key: string; stepIndex: number; lease: LeaseRef }
  /** `evidenceKeys`: the evidence the gate shows (its screenshot), by idempotency key; the runner records it first.
   * The core blocks the todo and ends the lease in the transaction that opens the gate. */
  | { type: "open_gate"; idempotencyKey: string; question: string; options: string[]; evidenceKeys: string[]; kind: GateKind; takeoverReason?: TakeoverReason; tier: PendingGate["tier"]; action: Action; policy: GatePolicy & { kind: string; approvalKey: string }; lease: LeaseRef }
  | { type: "wait_gate"; gateId: string }
  | { type: "perform"; action: Action; px: { x: number; y: number } | undefined; screen: { width: number; height: number }; description: string }
  /** Runs a skill on the phone, checking its contract before and after each step; `body` bound with `params` (its parameters' values this time). */
  | { type: "run_skill"; skillId: string; name: string; body: SkillBody; params: Record<string, string>; stepIndex: number; lease: LeaseRef; /** Goes on after an approved step, from this step of the whole skill (its steps before were done): `body` holds the steps from there, and a first one that does not hold is no failure of the skill. */ from?: number }
  | { type: "exit"; ret: ExecutorReturn };

export type Effect = WriteEffect | InputEffect;

export interface StepResult {
  state: ExecutorRunState;
  effects: Effect[];
}

/**
 * Repeated waits in a row at most: after the model's wait, a screen (image and tree text) still as the model saw it
 * is waited on again this many times without asking the model; then the model is asked even if nothing changed, so
 * a model waiting for something that never comes still gets to decide (give up, go back, ask the user). Three keeps
 * a slow page's load cheap (one call instead of four) while the model is asked at least every four waits.
 */
export const REPEATED_WAITS_MAX = 3;

/** Which anomalies end the executor (a scroll streak: let the planner replan) and which only remind the model. */
export function decideAfterAnomalies(anomalies: Anomaly[], goal: string, todo: string): { reminder?: string; exit?: ExitReason } {
  if (anomalies.some((a) => a.kind === "scroll_streak")) return { exit: "scroll_streak" };
  const loops = anomalies.filter((a) => a.kind !== "scroll_streak");
  return loops.length ? { reminder: anomalyReminder(loops.map((a) => a.message), goal, todo) } : {};
}

/** A copy the step may change; the screen (image and tree) is shared, never changed. */
function draft(state: ExecutorRunState): ExecutorRunState {
  const { turn, ...executor } = state.executor;
  const copy = structuredClone({ ...state, executor }) as ExecutorRunState;
  if (turn) {
    const { screen, ...rest } = turn;
    copy.executor.turn = { ...structuredClone(rest), ...(screen ? { screen } : {}) };
  }
  return copy;
}

/** The executor's transition. Pure: the same state and observation give the same result. */
export function step(state: ExecutorRunState, obs: Observation, config: AgentConfig): StepResult {
  const s = draft(state);
  const ex = s.executor;
  const fx: Effect[] = [];
  const done = (...more: Effect[]): StepResult => ({ state: s, effects: [...fx, ...more] });

  const evidence = (input: Omit<EvidenceFields, "goalId" | "runId" | "todoId" | "lease"> & EvidenceBody, lease = ex.lease): WriteEffect => ({
    type: "evidence",
    input: { ...input, goalId: s.goalId, runId: s.runId, todoId: ex.todoId, ...(lease ? { lease: leaseRefOf(lease) } : {}) },
  });

  const exit = (reason: ExitReason, summary: string): StepResult => {
    const screen = ex.turn?.screen;
    const finalScreen: ExecutorReturn["finalScreen"] = screen
      ? { app: ex.lastApp, phash: screen.phash, observationKey: screen.observationKey }
      : ex.hashes.length
        ? { app: ex.lastApp, phash: ex.hashes.at(-1)!, ...(ex.lastObservationKey ? { observationKey: ex.lastObservationKey } : {}) }
        : null;
    delete ex.turn;
    const ret: ExecutorReturn = { todoId: ex.todoId, status: statusForExit(reason), reason, summary, outputs: { ...ex.outputs }, answers: [...ex.answers], finalScreen, steps: ex.stepCount };
    return done({ type: "exit", ret });
  };

  const route = (): InputEffect => ({ type: "route", todoId: ex.todoId, lease: ex.lease! });
  const acquire = (): InputEffect => ({ type: "acquire", todoId: ex.todoId });

  /** Ends a step: step row, turn result (validated progress spends the step; its model calls were spent as made), checkpoint, then the next step. */
  const finishStep = (turn: Turn, action: Action | null, description: string, outcome: string, kind: TurnResultKind): void => {
    const lease = ex.lease!;
    const stepIndex = turn.stepIndex;
    // The model reads a repeated wait in its history as one it did not choose.
    const skipped = { unchanged_after_wait: " again (screen unchanged, model not asked)", skill_step: " (the skill's step, taken by the runtime)", skill_resumed: " (the skill went on by itself)" } as const;
    ex.steps.push({ index: stepIndex, action: description, outcome: turn.modelSkipped ? `${outcome}${skipped[turn.modelSkipped]}` : outcome });
    fx.push({ type: "step", stepIndex, todoId: ex.todoId, action: action ?? description, outcome, app: ex.lastApp, phash: turn.screen?.phash ?? null, anomalies: turn.anomalies ?? [], tokens: turn.tokens, ...(turn.modelSkipped ? { modelSkipped: turn.modelSkipped } : {}) });
    fx.push({
      type: "turn_result",
      idempotencyKey: `${s.runId}:${stepIndex}:turn`,
      lease: leaseRefOf(lease),
      kind,
      summary: `${description} → ${outcome}`.slice(0, 2000),
      ...(kind === "validated_progress" ? { spend: { key: `${s.runId}:${stepIndex}:spend`, steps: 1, tokens: 0, microUsd: 0 } } : {}),
    });
    ex.stepCount++;
    delete ex.waited;
    s.stepIndex = Math.max(s.stepIndex, stepIndex + 1);
    s.totals.steps++;
    delete ex.inFlight;
    delete ex.turn;
    fx.push({ type: "checkpoint" });
    fx.push({ type: "event", event: { type: "step", stepIndex, todoId: ex.todoId, action: description, outcome, promptTokens: 0, overheadMs: 0, modelMs: 0 } });
  };

  /**
   * Lease in hand: an action still in flight is one whose record never committed (the checkpoint after a recorded
   * step no longer holds it), so whether it happened is unknown. It is not repeated: the phone is drained first (a
   * lagging phone may still be carrying it out), then the step is recorded as unknown and the next turn routed.
   */
  const afterAcquired = (): StepResult => (ex.inFlight ? done({ type: "drain", stepIndex: ex.inFlight.stepIndex }) : done(route()));

  /** The phone drained after a resume: the action in flight is recorded as unknown, with what the screen now shows. */
  const afterDrained = (d: Extract<Observation, { type: "drained" }>): StepResult => {
    const f = ex.inFlight!;
    ex.samples.push(sampleOf(f.action, undefined));
    ex.sensedAfterAction = false;
    const shows = d.app ? `the screen now shows ${d.app}` : "the screen is read again";
    const phone = d.drained
      ? d.checked
        ? "the phone finished every input it was still carrying out"
        : "the phone's screen settled"
      : d.running.length
        ? `the phone was still running ${d.running.slice(0, 3).join("; ")} after ${(d.waitedMs / 1000).toFixed(1)} s, so the screen may still change`
        : "the phone could not be asked whether it was still carrying out inputs, so the screen may still change";
    const outcome = `outcome unknown: its record is missing (the worker stopped while it was performed); not repeated; ${shows}`;
    ex.feedback = `Your previous action (${f.description}) was sent to the phone just before the worker stopped, and whether it took effect is not recorded; it was not repeated. Since then ${phone}: the screen below shows what happened. Check it before acting again; do not redo the action unless the screen shows it did not happen.`;
    finishStep({ stepIndex: f.stepIndex, round: 0, tokens: 0 }, f.action, f.description, outcome, "validated_progress");
    return done(route());
  };

  const askModel = (turn: Turn): StepResult => {
    const screen = turn.screen!;
    // The step's inputs in the product's words: today's prompt renders them, and a model adapter other than
    // phoneloop renders them in its family's format where the ask is performed (graph/runner/ask-model.ts).
    // The skills offered to this todo: those that match it (its title, inputs, the goal), found again for each todo.
    const offered = skillsForTodo(s.learned?.skills ?? [], { title: ex.todoTitle, inputs: ex.inputs, goal: s.goal });
    const prompt: AdapterInput = {
      goal: s.goal,
      todo: ex.todoTitle,
      inputs: ex.inputs,
      outputs: ex.outputsDeclared,
      history: formatHistory(ex.steps, config.verbatimSteps),
      ...(ex.reminder ? { reminder: ex.reminder } : {}),
      ...(ex.feedback ? { feedback: ex.feedback } : {}),
      app: screen.app,
      screen: { width: screen.width, height: screen.height },
      elements: formatScreenElements(screen.elements),
      image: screen.image,
      ...(offered.length ? { skills: describeSkills(offered) } : {}),
      ...(s.learned?.shortcuts.length ? { shortcuts: describeShortcuts(s.learned.shortcuts) } : {}),
    };
    const messages = executorMessages({ ...prompt, inputs: ex.inputs, outputs: ex.outputsDeclared });
    const lease = ex.lease!;
    return done({
      type: "ask_model",
      prompt,
      messages,
      jsonSchema: { name: "phone_action", schema: ACTION_JSON_SCHEMA },
      key: `${s.runId}:${turn.stepIndex}:${lease.epoch}:${turn.round}`,
      stepIndex: turn.stepIndex,
      lease: leaseRefOf(lease),
    });
  };

  /**
   * A repeated wait: the last step's action was a wait and this screen is the one the model was last asked on
   * (unchanged as the detectors mean it: sameScreen over image and tree text), nothing new to tell the model (no
   * feedback, reminder or anomaly), and fewer than REPEATED_WAITS_MAX repeated waits in a row: the same wait again,
   * through the same checks as any action, without a model call (null: ask the model).
   */
  const waitAgain = (turn: Turn): StepResult | null => {
    const w = ex.waited;
    const screen = turn.screen!;
    if (!w || w.repeats >= REPEATED_WAITS_MAX || ex.feedback || ex.reminder || turn.anomalies?.length) return null;
    if (!sameScreen(w.asked, screenSample(screen.phash, screen.tree, screen.blocks))) return null;
    turn.modelSkipped = "unchanged_after_wait";
    return decide(turn, w.action);
  };

  /**
   * A skill that stopped at a step a person had to approve goes on from the step after it, once the model has taken
   * that step (the turn after the hand-back is the model's; the one after that resumes), without a model call. Null:
   * nothing to resume (ask the model).
   */
  const resumeSkill = (turn: Turn): StepResult | null => {
    const r = ex.skillResume;
    if (!r) return null;
    if (!r.armed) {
      r.armed = true;
      // The step to approve is the skill's: the runtime takes it itself, through the same checkpoint and gate as any
      // action, when its element is on this screen (else the model is asked to take it, as the feedback says).
      const step = r.step;
      const screen = turn.screen!;
      const hit = step?.target ? findElement(step.target, screen.elements) : null;
      if (!step || (step.target && !hit) || (step.before.app && screen.packageName !== step.before.app) || turn.anomalies?.length) return null;
      delete ex.feedback;
      turn.modelSkipped = "skill_step";
      const intent = `step ${r.from} of the skill "${r.skill}", which needs a person's approval`;
      return decide(turn, { ...step.action, ...(hit ? { element: String(hit.element.index) } : {}), intent } as Action);
    }
    delete ex.skillResume;
    if (ex.feedback || turn.anomalies?.length) return null;
    turn.modelSkipped = "skill_resumed";
    ex.skillFrom = r.from;
    return decide(turn, { type: "use_skill", skill: r.skill, params: r.params, intent: `go on with the skill from its step ${r.from + 1}` } as Action);
  };

  /** Loops among the samples after an action that did not reach the phone (no screen to compare). */
  const recordLoops = (turn: Turn): void => {
    const loops = [detectRepetition(ex.samples), detectCycle(ex.samples)].filter((a): a is Anomaly => a !== null);
    for (const a of loops) {
      fx.push({ type: "event", event: { type: "anomaly", kind: a.kind, message: a.message } });
      fx.push(evidence({ idempotencyKey: `${s.runId}:${turn.stepIndex}:anomaly:${a.kind}`, kind: "anomaly", stepIndex: turn.stepIndex, summary: a.message, data: { kind: a.kind } }));
    }
    if (loops.length) ex.reminder = anomalyReminder(loops.map((a) => a.message), s.goal, ex.todoTitle);
  };

  const resolvePoint = (turn: Turn, action: Action): { ok: true; px: { x: number; y: number } | undefined } | { ok: false; message: string } => {
    const t = action as { x?: number; y?: number; element?: string };
    if (!("x" in action || "element" in action) || (t.x === undefined && t.element === undefined)) return { ok: true, px: undefined };
    const screen = turn.screen!;
    const r = resolveTarget(t, screen.elements, screen.width, screen.height);
    return r.ok ? { ok: true, px: r.px } : { ok: false, message: r.message };
  };

  /** Write-ahead first (so a restart never repeats the action), then the action and the settle. */
  const act = (turn: Turn, action: Action, px: { x: number; y: number } | undefined): StepResult => {
    const description = describeAction(action);
    ex.inFlight = { stepIndex: turn.stepIndex, action, description };
    turn.px = px;
    fx.push({ type: "checkpoint" });
    const screen = turn.screen!;
    return done({ type: "perform", action, px, screen: { width: screen.width, height: screen.height }, description });
  };

  /** The person's answer to a gate this step opened: act, or tell the model why not. */
  const applyGate = (turn: Turn): StepResult => {
    const { pending, resolution, nextStepIndex } = turn.gate!;
    delete turn.gate;
    const action = pending.action;
    const description = describeAction(action);
    fx.push({ type: "event", event: { type: "gate_decision", gateId: pending.gateId, status: resolution.status } });
    fx.push(
      evidence({
        idempotencyKey: `${s.runId}:${pending.stepIndex}:gate_decision`,
        kind: "gate_decision",
        stepIndex: pending.stepIndex,
        summary: `${resolution.status} for ${description}${resolution.rationale ? `: ${resolution.rationale}` : ""}`,
        data: { gateId: pending.gateId, kind: pending.kind, tier: pending.tier, status: resolution.status, answer: resolution.answer, rationale: resolution.rationale, ...(pending.policy ? { policy: pending.policy } : {}) },
      }),
    );
    if (action.type === "ask_takeover") {
      // The person's steps took the run's step indexes after the ask: the ask is recorded after them.
      if (nextStepIndex !== undefined && nextStepIndex > turn.stepIndex) turn.stepIndex = nextStepIndex;
      ex.feedback = handedBackFeedback(action.reason, resolution);
      // The phone changed under the person's hands: the next sense starts the detectors afresh.
      ex.samples = [];
      ex.sensedAfterAction = true;
      const outcome = resolution.status === "answered" ? "a person took over and handed the phone back" : `no person took over (the gate ${resolution.status})`;
      finishStep(turn, action, description, outcome, "validated_progress");
      return done(route());
    }
    if (pending.tier === "question") {
      const answer = resolution.answer ?? (resolution.status === "expired" ? "(no answer: the question expired)" : resolution.status);
      ex.feedback = `The user answered your question "${(action as { question: string }).question}": ${answer}${resolution.rationale ? ` (${resolution.rationale})` : ""}`;
      finishStep(turn, action, description, "user answered", "validated_progress");
      return done(route());
    }
    const approved = resolution.status === "approved";
    s.approvals = recordApproval(s.approvals, pending.approvalKey ?? pending.kind, approved);
    if (!approved) {
      const why = resolution.status === "expired" ? "The question to the user expired without an answer" : "The user DENIED your action";
      ex.feedback = `${why}: ${description} (${pending.kind})${resolution.rationale ? `: ${resolution.rationale}` : ""}. It was not performed. Do not try it again; find another way to reach the goal without it, or report status infeasible.`;
      ex.samples.push(sampleOf(action, undefined));
      // Nothing changed on the phone, so no screen detectors; asking for the same refused action again is still a loop.
      ex.sensedAfterAction = true;
      recordLoops(turn);
      finishStep(turn, action, description, "denied by the user, not performed", "validated_progress");
      return done(route());
    }
    const point = resolvePoint(turn, action);
    if (!point.ok) {
      ex.feedback = point.message;
      finishStep(turn, action, description, `failed: ${point.message}`, "repair_required");
      return done(route());
    }
    return act(turn, action, point.px);
  };

  /** A parsed action: the ones without a device, the target, the permission checkpoint, then act. */
  const decide = (turn: Turn, action: Action): StepResult => {
    const description = describeAction(action);
    const screen = turn.screen!;
    if (action.type === "status") {
      if (action.outputs) Object.assign(ex.outputs, action.outputs);
      const summary = action.summary ?? (action.status === "complete" ? "The executor reports the todo complete." : "The executor reports the todo infeasible.");
      finishStep(turn, action, description, action.status, "validated_progress");
      return exit(action.status === "complete" ? "completed" : "infeasible", summary);
    }
    if (action.type === "answer") {
      ex.answers.push(action.text);
      if (action.outputs) Object.assign(ex.outputs, action.outputs);
      finishStep(turn, action, description, "answered", "validated_progress");
      return exit("completed", action.text);
    }
    if (action.type === "use_skill") {
      // Only a skill offered to this todo runs, and only with every parameter given (never with a guess); a value
      // for a name the skill does not have is ignored.
      const offered = skillsForTodo(s.learned?.skills ?? [], { title: ex.todoTitle, inputs: ex.inputs, goal: s.goal });
      const skill = offered.find((k) => k.name === action.skill || k.id === action.skill);
      if (!skill) {
        ex.feedback = `No skill named "${action.skill}" is offered for this todo; use one of the listed skills or ordinary actions.`;
        finishStep(turn, action, description, "failed: unknown skill", "repair_required");
        return done(route());
      }
      const bound = bindSkill(skill.body, action.params ?? {});
      if (!bound.ok) {
        const names = bound.missing.map((p) => `{${p}}`).join(", ");
        ex.feedback = `The skill "${skill.name}" was not run: it needs a value for ${names} and your use_skill gave none. Give ${bound.missing.length > 1 ? "them" : "it"} in "params" (only values the todo states), or do the todo with ordinary actions.`;
        finishStep(turn, action, description, `failed: missing parameter(s) ${names}`, "repair_required");
        return done(route());
      }
      // Write-ahead, as for any action: a restart never runs the skill twice.
      ex.inFlight = { stepIndex: turn.stepIndex, action, description };
      fx.push({ type: "checkpoint" });
      const params = Object.fromEntries((skill.body.params ?? []).map((p) => [p, action.params![p]!]));
      // A resumed skill runs its steps from where it stopped; it starts on that step's screen.
      const from = turn.modelSkipped === "skill_resumed" ? Math.min(ex.skillFrom ?? 0, bound.body.steps.length) : 0;
      ex.skillFrom = from;
      const body = from ? { ...bound.body, pre: bound.body.steps[from]?.before ?? bound.body.post, steps: bound.body.steps.slice(from) } : bound.body;
      return done({ type: "run_skill", skillId: skill.id, name: skill.name, body, params, stepIndex: turn.stepIndex, lease: leaseRefOf(ex.lease!), ...(from ? { from } : {}) });
    }
    if (action.type === "ask_takeover") return gateOrAct(turn, action, undefined, takeoverDecision(action.reason, config.policyRules?.version));
    const point = resolvePoint(turn, action);
    if (!point.ok) {
      ex.feedback = point.message;
      finishStep(turn, action, description, `failed: ${point.message}`, "repair_required");
      return done(route());
    }
    const px = point.px;
    // The tree is blind where a tap lands: the permission checkpoint decides on what the screenshot shows.
    const at = px ?? null;
    if (TAPS.has(action.type) && blindAt(screen, px) && !(turn.read && samePoint(turn.read.at, at))) {
      if (config.ocr) {
        turn.reading = { action };
        return done({ type: "read_screen", stepIndex: turn.stepIndex, ...(px ? { around: px } : {}) });
      }
      turn.read = { at, ocr: null };
    }
    const ocr = turn.read && samePoint(turn.read.at, at) ? turn.read.ocr : undefined;
    const decision = action.type === "ask_user" ? askUserDecision(config.policyRules?.version) : decidePermission(action, policyContext(screen, action, px, config, ocr));
    // Rules unsure (an unlabelled icon, a web page without elements…): the guard model may raise the tier.
    if (config.guardModel && decision.unsure) {
      turn.guarding = { action, ...(px ? { px } : {}), decision };
      const lease = ex.lease!;
      return done({
        type: "ask_model",
        role: "guard",
        messages: guardMessages(action, policyContext(screen, action, px, config, ocr), decision),
        jsonSchema: { name: "guard_verdict", schema: GUARD_JSON_SCHEMA },
        key: `${s.runId}:${turn.stepIndex}:${lease.epoch}:guard`,
        stepIndex: turn.stepIndex,
        lease: leaseRefOf(lease),
      });
    }
    return gateOrAct(turn, action, px, decision);
  };

  /** The permission decision made: open a gate when it needs one, else act. */
  const gateOrAct = (turn: Turn, action: Action, px: { x: number; y: number } | undefined, decision: PermissionDecision): StepResult => {
    const screen = turn.screen!;
    turn.policy = { tier: decision.tier, kind: decision.kind, ruleId: decision.ruleId, evidence: decision.evidence, policyVersion: decision.policyVersion };
    const asks = action.type === "ask_user" || action.type === "ask_takeover";
    if (asks || needsGate(decision, s.approvals)) {
      const bySkill = turn.modelSkipped === "skill_step" && ex.skillResume ? { skill: ex.skillResume.skill, step: ex.skillResume.from } : undefined;
      const question = action.type === "ask_user" ? askedQuestion(action.question) : action.type === "ask_takeover" ? takeoverQuestion(action) : gateQuestion(action, decision, ex.lastApp, ex.todoTitle, bySkill);
      const options = action.type === "ask_user" ? (action.options?.length ? action.options : []) : action.type === "ask_takeover" ? [] : ["approve", "deny"];
      const tier = asks ? "question" : decision.tier === "high_risk" ? "high_risk" : "confirm";
      const policy = { ruleId: decision.ruleId, evidence: decision.evidence, policyVersion: decision.policyVersion };
      turn.asking = { action, kind: decision.kind, approvalKey: decision.approvalKey, tier, question, policy };
      return done({
        type: "open_gate",
        idempotencyKey: `${s.runId}:${turn.stepIndex}:gate`,
        question,
        options,
        evidenceKeys: [screen.observationKey],
        kind: action.type === "ask_user" ? "question" : action.type === "ask_takeover" ? "takeover" : "approval",
        ...(action.type === "ask_takeover" ? { takeoverReason: action.reason } : {}),
        tier,
        action,
        // The core reads the gate's approval category and target from the decision's kind and approval key.
        policy: { ...policy, kind: decision.kind, approvalKey: decision.approvalKey },
        lease: leaseRefOf(ex.lease!),
      });
    }
    return act(turn, action, px);
  };

  /** The guard's reply (or its failure): raise-only, recorded as validation evidence, then gate or act. */
  const guardAnswered = (turn: Turn, text: string | null, failure?: string): StepResult => {
    const { action, px, decision } = turn.guarding!;
    delete turn.guarding;
    const g = text === null ? { decision, verdict: null, error: `GUARD_MODEL_FAILED: ${failure}` } : applyGuardVerdict(decision, text);
    fx.push(
      evidence({
        idempotencyKey: `${s.runId}:${turn.stepIndex}:guard`,
        kind: "validation",
        stepIndex: turn.stepIndex,
        summary: (g.verdict ? `guard model: ${g.verdict.tier} (${g.verdict.reason})` : `guard model gave no verdict (${g.error}); the rules' decision stands`).slice(0, 300),
        data: { guard: g.verdict, error: g.error ?? null, rules: { tier: decision.tier, kind: decision.kind, ruleId: decision.ruleId }, decided: { tier: g.decision.tier, kind: g.decision.kind, ruleId: g.decision.ruleId } },
      }),
    );
    return gateOrAct(turn, action, px, g.decision);
  };

  switch (obs.type) {
    case "begin":
      // A gate this todo waits on (a previous worker opened it): wait for the same gate, do not ask again.
      if (ex.pendingGate && !ex.lease) return done({ type: "wait_gate", gateId: ex.pendingGate.gateId });
      return ex.lease ? afterAcquired() : done(acquire());

    case "cancelled":
      return exit("cancelled", "The run was cancelled by the user.");

    case "acquired":
      ex.lease = obs.lease;
      return afterAcquired();

    case "not_acquired":
      return exit("lease_lost", `The todo could not be claimed again: ${obs.reason}`);

    case "lease_lost":
      return exit("lease_lost", `The lease on this todo was lost: ${obs.message}`);

    case "routed": {
      if (obs.lease) ex.lease = obs.lease;
      if (obs.leaseLost) ex.lease = null;
      switch (obs.route) {
        case "ready_for_host":
        case "repair_required": {
          if (obs.route === "repair_required" && !ex.feedback) ex.feedback = `Your last turn on this todo was not accepted (${obs.reason}); repair it before going on.`;
          if (ex.stepCount >= config.maxStepsPerTodo) return exit("step_cap", `Reached the cap of ${config.maxStepsPerTodo} steps for this todo.`);
          if (s.stepIndex >= config.maxStepsPerRun) return exit("run_step_cap", `Reached the run's iteration cap of ${config.maxStepsPerRun} steps.`);
          // After a gate this step opened, the step goes on where it stopped (same index, same screen if seen).
          const turn: Turn = ex.turn?.gate ? ex.turn : { stepIndex: s.stepIndex, round: 0, tokens: 0 };
          ex.turn = turn;
          if (turn.gate && turn.screen) return applyGate(turn);
          return done({ type: "sense", stepIndex: turn.stepIndex, lease: leaseRefOf(ex.lease!) });
        }
        case "replan_required":
          return exit("infeasible", `The state core asks for a replan of this todo: ${obs.reason}.`);
        case "user_action_required":
          if (obs.openGate) {
            fx.push({ type: "event", event: { type: "gate", gateId: obs.openGate.id, question: obs.openGate.question } });
            return done({ type: "wait_gate", gateId: obs.openGate.id });
          }
          return exit("gate_waiting", `Waiting for a person: ${obs.skip?.message ?? obs.reason}.`);
        case "wait":
        case "blocked":
          if (obs.skip) return exit(endReasonOfSkip(obs.skip.reason), obs.skip.message);
          return exit(obs.route === "wait" ? "lease_lost" : "todo_blocked", `Stopped before step ${s.stepIndex + 1}: ${obs.reason}.`);
        case "contract_error":
          return exit(/lease/.test(obs.reason) ? "lease_lost" : "todo_blocked", `The state core refused the turn: ${obs.reason}.`);
      }
      break;
    }

    case "sensed": {
      const turn = ex.turn!;
      const screen = obs.screen;
      turn.screen = screen;
      ex.lastApp = screen.packageName ?? ex.lastApp;
      ex.lastObservationKey = screen.observationKey;
      ex.hashes.push(screen.phash);
      if (ex.hashes.length > 12) ex.hashes.splice(0, ex.hashes.length - 12);
      // Post-execute detectors, on the screen the last action produced.
      if (!ex.sensedAfterAction && ex.samples.length) {
        ex.sensedAfterAction = true;
        const anomalies = detectAnomalies(ex.samples, screenSample(screen.phash, screen.tree, screen.blocks), DETECTOR_LIMITS);
        for (const a of anomalies) {
          fx.push({ type: "event", event: { type: "anomaly", kind: a.kind, message: a.message } });
          fx.push(evidence({ idempotencyKey: `${s.runId}:${turn.stepIndex}:anomaly:${a.kind}`, kind: "anomaly", stepIndex: turn.stepIndex, summary: a.message, data: { kind: a.kind } }));
          turn.anomalies = [...(turn.anomalies ?? []), a.kind];
          const last = ex.steps.at(-1);
          if (last) last.anomalies = [...(last.anomalies ?? []), a.kind];
        }
        const d = decideAfterAnomalies(anomalies, s.goal, ex.todoTitle);
        if (d.exit) {
          fx.push({ type: "checkpoint" });
          return exit(d.exit, anomalies.find((a) => a.kind === "scroll_streak")!.message);
        }
        if (d.reminder) ex.reminder = d.reminder;
      }
      if (turn.gate) return applyGate(turn);
      // A blind screen (its screenshot black, or the window secure): nothing on it can be seen, so no model picks a
      // point on it — a person is asked to take over.
      if (screen.blind) return decide(turn, { type: "ask_takeover", reason: "blind_screen", question: BLIND_SAYS[screen.blind], intent: "ask a person to take over the blind screen" });
      return resumeSkill(turn) ?? waitAgain(turn) ?? askModel(turn);
    }

    case "screen_read": {
      const turn = ex.turn!;
      const { action } = turn.reading!;
      delete turn.reading;
      const point = resolvePoint(turn, action);
      turn.read = { at: point.ok ? (point.px ?? null) : null, ocr: obs.ocr };
      fx.push(
        evidence({
          idempotencyKey: `${s.runId}:${turn.stepIndex}:ocr`,
          kind: "observation",
          stepIndex: turn.stepIndex,
          summary: obs.ocr ? `the UI tree is blind where the action lands: ${obs.ocr.items.length} texts read from the screenshot` : "the UI tree is blind where the action lands, and the screenshot could not be read",
          data: { ocr: obs.ocr ? obs.ocr.items.slice(0, 200) : null, at: turn.read.at },
        }),
      );
      return decide(turn, action);
    }

    case "drained":
      return afterDrained(obs);

    case "sense_failed":
      return exit("device_lost", obs.lost ? `Device connection lost: ${obs.message}` : `The phone did not answer after ${config.senseRetries} attempts: ${obs.message}`);

    case "replied": {
      const turn = ex.turn!;
      addUsage(s.totals, obs.usage);
      turn.tokens += obs.usage.inputTokens + obs.usage.outputTokens;
      if (turn.guarding) return guardAnswered(turn, obs.text);
      turn.round++;
      const parsed: ParseResult = obs.rejection ? { ok: false, error: obs.rejection } : obs.action ? { ok: true, action: obs.action, repairs: [] } : parseAction(obs.text);
      delete ex.reminder;
      if (parsed.ok) {
        delete ex.feedback;
        return decide(turn, parsed.action);
      }
      ex.feedback = `Your reply could not be used (${parsed.error.code}): ${parsed.error.message}`;
      // One repair round with the typed error, then the step fails and the next one starts from a fresh screen.
      if (turn.round < 2) return askModel(turn);
      const e = parsed.error;
      fx.push(evidence({ idempotencyKey: `${s.runId}:${turn.stepIndex}:parse_error`, kind: "validation", stepIndex: turn.stepIndex, summary: `parse failed twice: ${e.code}`, data: { code: e.code, message: e.message, raw: e.raw } }));
      finishStep(turn, null, "(unparseable reply)", `failed: ${e.code}`, "repair_required");
      return done(route());
    }

    case "model_failed":
      addUsage(s.totals, obs.usage);
      // A failing guard leaves the rules' decision standing.
      if (ex.turn?.guarding) return guardAnswered(ex.turn, null, `${obs.code}: ${obs.message}`);
      if (obs.code === "ABORTED") return exit("cancelled", "The run was cancelled by the user.");
      // The quota will not hold the call (room is left, but not for this prompt): it ends the turn as an exhausted
      // quota does, in the proxy's words (what is left, what to do). Asking again would be refused the same way.
      if (obs.code === "QUOTA_EXCEEDED") return exit("exhausted", obs.message);
      // The core refused the spend (a person paused the goal while the model was asked, the quota ran out…): its
      // route says why and the run ends with that reason; the step was not taken, so it is not recorded. Asked once
      // per step: a core that routes on while refusing every call ends the run as a model failure.
      if (obs.code === "SPEND_REFUSED" && ex.turn && ex.spendRefusedAt !== ex.turn.stepIndex) {
        ex.spendRefusedAt = ex.turn.stepIndex;
        return done(route());
      }
      return exit("model_failed", `The executor model failed: ${obs.message}`);

    case "gate_opened": {
      const turn = ex.turn!;
      const asking = turn.asking!;
      delete turn.asking;
      const pending: PendingGate = { gateId: obs.gateId, stepIndex: turn.stepIndex, action: asking.action, kind: asking.kind, tier: asking.tier, ...(asking.approvalKey ? { approvalKey: asking.approvalKey } : {}), ...(asking.policy ? { policy: asking.policy } : {}) };
      ex.pendingGate = pending;
      // The todo waits for the person: opening the gate blocked it and ended this lease (the core's one write);
      // closing the gate gives it back, and the executor claims it again.
      ex.lease = null;
      fx.push({ type: "checkpoint" });
      fx.push({ type: "event", event: { type: "gate", gateId: obs.gateId, question: asking.question } });
      return done({ type: "wait_gate", gateId: obs.gateId });
    }

    case "gate_resolved": {
      const pending = ex.pendingGate;
      if (pending && pending.gateId === obs.gateId) {
        const turn: Turn = ex.turn ?? { stepIndex: pending.stepIndex, round: 0, tokens: 0 };
        turn.gate = { pending, resolution: obs.resolution, ...(obs.nextStepIndex !== undefined ? { nextStepIndex: obs.nextStepIndex } : {}) };
        ex.turn = turn;
        delete ex.pendingGate;
      } else if (obs.resolution.status === "answered" && obs.nextStepIndex !== undefined) {
        // A gate this executor did not open (a person took over unasked) was handed back: go on after their steps,
        // from the screen they left.
        s.stepIndex = Math.max(s.stepIndex, obs.nextStepIndex);
        ex.samples = [];
        ex.sensedAfterAction = true;
        ex.feedback = `While you worked, a person took the phone over and handed it back. ${(obs.resolution.rationale?.trim() || obs.resolution.answer?.trim() || "").replace(/[.!?]?$/, ".")} The screen below is how they left it: check it before acting; do not redo what they did.`;
      }
      return ex.lease ? done(route()) : done(acquire());
    }

    case "performed": {
      const turn = ex.turn!;
      const f = ex.inFlight!;
      fx.push(evidence({ idempotencyKey: `${s.runId}:${turn.stepIndex}:action`, kind: "action", stepIndex: turn.stepIndex, summary: f.description, data: { action: f.action, px: turn.px ?? null, app: ex.lastApp, ...(turn.policy ? { policy: turn.policy } : {}) } }));
      // A repeated wait is the model's wait going on, not an action of the model's: the detectors, which judge the
      // model's actions over its last 20, neither count it nor look again (they looked after the model's wait).
      if (!turn.modelSkipped) {
        ex.samples.push(sampleOf(f.action, turn.px, sampledAt(turn)));
        if (ex.samples.length > 20) ex.samples.splice(0, ex.samples.length - 20);
        ex.sensedAfterAction = false;
      }
      // A wait: what the next step compares its screen with (the screen the model was last asked on) and the count.
      const waited = f.action.type === "wait" ? { action: { type: "wait" as const, ...(f.action.ms !== undefined ? { ms: f.action.ms } : {}) }, asked: turn.modelSkipped && ex.waited ? ex.waited.asked : screenSample(turn.screen!.phash, turn.screen!.tree, turn.screen!.blocks), repeats: turn.modelSkipped && ex.waited ? ex.waited.repeats + 1 : 0 } : undefined;
      finishStep(turn, f.action, f.description, obs.outcome, "validated_progress");
      if (waited) ex.waited = waited;
      return done(route());
    }

    case "skill_ran": {
      const turn = ex.turn!;
      const f = ex.inFlight!;
      const name = (f.action as { skill?: string }).skill ?? "";
      const skill = s.learned?.skills.find((k) => k.name === name || k.id === name);
      const params = (f.action as { params?: Record<string, string> }).params;
      // Steps are counted in the whole skill: a resumed one went on from step `from` (and one whose first step did
      // not hold — the model did something else than the approved step — is no use of the skill).
      const from = ex.skillFrom ?? 0;
      delete ex.skillFrom;
      const notResumed = from > 0 && !obs.ok && obs.performed === 0;
      if (skill && s.learned && !notResumed) s.learned.used.push({ skillId: skill.id, name: skill.name, todoId: ex.todoId, ok: obs.ok, performed: obs.performed + from, ...(params && Object.keys(params).length ? { params } : {}) });
      const total = skill?.body.steps.length ?? obs.performed;
      obs = { ...obs, performed: obs.performed + from, ...(obs.failedAt !== null ? { failedAt: obs.failedAt + from } : {}), ...(obs.gatedAt !== undefined ? { gatedAt: obs.gatedAt + from } : {}) };
      // The step to take, in words, with the values the skill was given.
      const bound = skill && obs.gatedAt !== undefined ? bindSkill(skill.body, params ?? {}) : null;
      const at = bound?.ok ? bound.body.steps[obs.gatedAt!] : undefined;
      const gatedStep = at ? neutraliseInline(`${describeAction({ ...at.action, ...(at.action.type === "click" || at.action.type === "click_then_type" || at.action.type === "long_press" || at.action.type === "double_tap" ? { element: "" } : {}) } as Action).replace(/ element \S*| \[\]/g, "")}${at.target ? ` on ${describeSelector(at.target)}` : ""}`).slice(0, 200) : null;
      if (obs.gatedAt !== undefined) ex.skillResume = { skill: name, params: params ?? {}, from: obs.gatedAt + 1, armed: false, ...(at ? { step: at } : {}) };
      // The screen changed under the skill: the next sense starts the detectors afresh.
      ex.samples = [];
      ex.sensedAfterAction = true;
      if (obs.lost) return exit("device_lost", `Device connection lost while running the skill "${name}": ${obs.reason ?? ""}`);
      const outcome = obs.gatedAt !== undefined ? `skill done: ${obs.performed}/${total} steps, step ${obs.gatedAt + 1} needs a person` : obs.ok ? `skill done: ${obs.performed}/${total} steps, end screen reached` : `skill stopped before step ${(obs.failedAt ?? 0) + 1}/${total}: ${obs.reason}`;
      ex.feedback =
        obs.gatedAt !== undefined
          ? `The skill "${name}" reached its step ${obs.gatedAt + 1} of ${total}${gatedStep ? ` (${gatedStep})` : ""}, which needs a person's approval: take that step yourself with an ordinary action (the person will be asked); the skill then goes on from its next step by itself.`
          : obs.ok
            ? `The skill "${name}" ran its ${obs.performed} step(s) and reached its end screen. Check the screen: report status complete if the todo is done, or go on.`
            : `The skill "${name}" stopped before its step ${(obs.failedAt ?? 0) + 1} of ${total} (${obs.reason}). Control is back with you: go on from this screen with ordinary actions.`;
      finishStep(turn, f.action, f.description, outcome, "validated_progress");
      return done(route());
    }

    case "perform_failed": {
      const turn = ex.turn!;
      const f = ex.inFlight!;
      if (obs.lost) {
        fx.push(evidence({ idempotencyKey: `${s.runId}:${turn.stepIndex}:action`, kind: "action", stepIndex: turn.stepIndex, summary: `${f.description} failed: connection lost`, data: { action: f.action, px: turn.px ?? null, error: obs.message } }));
        return exit("device_lost", `Device connection lost while performing ${f.description}: ${obs.message}`);
      }
      ex.feedback = `The phone could not perform ${f.description}: ${obs.message}. Try something else.`;
      ex.samples.push(sampleOf(f.action, turn.px, sampledAt(turn)));
      ex.sensedAfterAction = false;
      finishStep(turn, f.action, f.description, `failed after ${obs.attempts} attempts`, "repair_required");
      return done(route());
    }
  }
  throw new Error(`executor step: unhandled observation ${(obs as { type: string }).type}`);
}

/** Why the sense step found the screen blind, as the agent's words on its takeover gate. */
const BLIND_SAYS: Record<NonNullable<Screen["blind"]>, string> = {
  black: "The phone's screenshot is black: the agent cannot see the screen.",
  secure: "The app shows a secure window (it blocks screenshots): the agent cannot see the screen.",
};

/**
 * What the executor is told after a takeover gate closed: the person took over and handed back (their note is the
 * gate's answer, what they did its rationale), or nobody came.
 */
function handedBackFeedback(reason: string, r: GateResolution): string {
  if (r.status !== "answered") return `You asked a person to take over (${reason}), and nobody did: the gate ${r.status}. Do not ask again for the same thing; report status infeasible if the todo cannot go on without a person.`;
  // The core's hand back says who took over, what they did and their note ("A person took over: Ana did: …").
  const did = r.rationale?.trim() || `A person took over.${r.answer?.trim() ? ` Their note: ${r.answer.trim()}` : ""}`;
  return `You asked a person to take over the phone (${reason}). ${did.replace(/[.!?]?$/, ".")} They handed the phone back: the screen below is how they left it. Check it and go on from there; do not redo what they did.`;
}

/** The detectors compare (action, target, screen): the screen the action was taken on and the node it landed on. */
function sampledAt(turn: Turn): { target?: string; screen?: ReturnType<typeof screenSample> } {
  if (!turn.screen) return {};
  const target = targetOf(turn.px ? nodeAt(turn.screen.tree, turn.px) : undefined);
  return { screen: screenSample(turn.screen.phash, turn.screen.tree, turn.screen.blocks), ...(target ? { target } : {}) };
}

/**
 * What the permission checkpoint reads: the node acted on (the focused field for typing and Enter), the tree, the
 * app; on a blind screen what OCR read there (`ocr`, null when nothing could be read) and the tap point.
 */
function policyContext(screen: Screen, action: Action, px: { x: number; y: number } | undefined, config: AgentConfig, ocr?: OcrReading | null): PermissionContext {
  const target = action.type === "keyboard_enter" || (action.type === "input_text" && !px) ? focusedNode(screen.tree) : px ? nodeAt(screen.tree, px) : undefined;
  return {
    ...(target ? { target } : {}),
    tree: screen.tree,
    ...(screen.packageName ? { packageName: screen.packageName } : {}),
    ...(config.appRules ? { appRules: config.appRules } : {}),
    ...(config.policyRules ? { rules: config.policyRules } : {}),
    ...(ocr !== undefined ? { ocr, ...(px ? { point: px } : {}) } : {}),
  };
}

/** The actions whose target is a point on the screen (what OCR stands in for where the tree is blind). */
const TAPS: ReadonlySet<Action["type"]> = new Set(["click", "double_tap", "long_press"]);

/** The tree shows nothing where the point lands: no tree, no words in it, or a view that draws its own content. */
function blindAt(screen: Screen, px: { x: number; y: number } | undefined): boolean {
  return isBlindTree(screen.tree) || (px !== undefined && isBlindTarget(nodeAt(screen.tree, px)));
}

const samePoint = (a: { x: number; y: number } | null, b: { x: number; y: number } | null) => (a === null ? b === null : b !== null && a.x === b.x && a.y === b.y);

export function addUsage(totals: RunCommon["totals"], usage: RunCommon["totals"]): void {
  for (const k of Object.keys(totals) as (keyof RunCommon["totals"])[]) totals[k] += usage[k];
}

/** The executor state for a todo just claimed. */
export function newExecutor(todo: { id: string; title: string; outputs: string[]; appHint: string | null }, lease: Lease, inputs: Record<string, string>, feedback?: string): ExecutorState {
  return {
    todoId: todo.id,
    todoTitle: todo.title,
    lease,
    inputs,
    outputsDeclared: todo.outputs,
    steps: [],
    samples: [],
    hashes: [],
    sensedAfterAction: true,
    outputs: {},
    answers: [],
    stepCount: 0,
    lastApp: todo.appHint ?? "",
    ...(feedback ? { feedback } : {}),
  };
}
