// The runner: the only loop that performs effects. It registers the agent, starts or resumes a run from its last
// checkpoint, walks planner → executor → planner … → summarizer, checkpointing after every node, and performs the
// effects of the three nodes' pure transitions (the planner's plan, the executor's step, the summarizer's summarize)
// through the effect families in graph/runner/, feeding each result back as the transition's next input.
import { resumableStop } from "@phoneloop/state/domain";
import { workspacePolicyRules } from "../policy/rules.ts";
import type { AgentPorts, AgentRegistration, Outage, RunEndReason, RunEndStatus } from "../ports.ts";
import { step, type InputEffect, type Observation } from "./executor.ts";
import { emptyLearned, learnForTodo, learnFromRun, prepareLearning } from "./learning.ts";
import { plan, type PlannerEffect } from "./planner.ts";
import { summarize, type RunReport, type SummarizerInput } from "./summarizer.ts";
import { acquire, acquireForPlanner, mayRun, route, suspensionOf, type SuspensionCause } from "./runner/acquire.ts";
import { askForStep, askModel } from "./runner/ask-model.ts";
import { openGate, waitGate } from "./runner/gate.ts";
import { performAction } from "./runner/perform.ts";
import { record, recordTurn, replan } from "./runner/record.ts";
import { Senses } from "./runner/sense.ts";
import { runSkill } from "./runner/skill.ts";
import { isStepWrite, StepRecords } from "./runner/step-record.ts";
import { StepTimings } from "./runner/timings.ts";
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
  type PlannerState,
  type RunState,
  type SummarizerState,
} from "./state.ts";

export type { SuspensionCause };

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
            // The claimed todo may be work of an app the goal did not name: its skills are brought in now.
            if (state.node === "executor" && state.learned && config.learn) {
              const todo = state.executor.todoTitle;
              await learnForTodo(ctx, state.learned, todo, state.goal).catch((e: unknown) => {
                ctx.onEvent?.({ type: "anomaly", kind: "learning_failed", message: `Skills for the todo "${todo.slice(0, 80)}" could not be loaded: ${e instanceof Error ? e.message : String(e)}` });
              });
            }
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
            ({ state, report } = await runSummarizer(ctx, state));
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

/** Performs the planner's effects, feeding each answer back, until it hands the run to the executor or the summarizer. */
async function runPlanner(ctx: RunContext, start: PlannerState): Promise<RunState> {
  const planning = plan(start);
  let answer: unknown;
  for (;;) {
    guard(ctx);
    const r = planning.next(answer);
    if (r.done) return r.value;
    answer = await performForPlanner(ctx, start, r.value);
  }
}

function performForPlanner(ctx: RunContext, run: PlannerState, e: PlannerEffect): Promise<unknown> {
  switch (e.type) {
    case "ask_model":
      return askModel(ctx, run, e).then((asked) => asked.answer);
    case "turn_result":
      return recordTurn(ctx, e);
    case "replan":
      return replan(ctx, run, e);
    case "cancel_requested":
      return Promise.resolve(Boolean(ctx.signal?.aborted));
    case "list_todos":
    case "get_goal":
    case "should_run":
    case "claim_next":
    case "start_todo":
    case "release_lease":
    case "reopen_todo":
      return acquireForPlanner(ctx, run, e);
    default:
      return record(ctx, run, e);
  }
}

/** Performs the summarizer's effects until it is done: the run is finished, its report stored. */
async function runSummarizer(ctx: RunContext, start: SummarizerState): Promise<{ state: RunState; report: RunReport }> {
  let state = start;
  let input: SummarizerInput = { type: "begin" };
  for (;;) {
    guard(ctx);
    const r = summarize(state, input);
    state = r.state;
    for (const e of r.effects) {
      switch (e.type) {
        case "should_run":
          input = await mayRun(ctx, state);
          break;
        case "ask_model":
          input = (await askModel(ctx, state, e)).answer;
          break;
        case "done":
          return { state: { ...state, node: "end" }, report: e.report };
        default:
          await record(ctx, state, e);
      }
    }
  }
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
 * every step. Each input effect is performed by its family in graph/runner/.
 */
async function runExecutor(ctx: RunContext, start: ExecutorRunState): Promise<{ state: ExecutorRunState; ret: ExecutorReturn }> {
  let state = start;
  let obs: Observation = { type: "begin" };
  const timings = new StepTimings(ctx);
  const records = new StepRecords(ctx, timings);
  const senses = new Senses(ctx, records);

  const input = (e: Exclude<InputEffect, { type: "exit" }>, sensing: ReturnType<Senses["takePrefetched"]>): Promise<Observation> => {
    switch (e.type) {
      case "acquire":
        return acquire(ctx, state, e);
      case "route":
        return route(ctx, state, e, records);
      case "sense":
        return senses.sense(state, e, sensing);
      case "drain":
        return senses.drain();
      case "read_screen":
        return senses.readScreen(e);
      case "ask_model":
        return askForStep(ctx, state, e, records, timings);
      case "open_gate":
        return openGate(ctx, state, e, records);
      case "wait_gate":
        return waitGate(ctx, e, state);
      case "run_skill":
        return runSkill(ctx, state, e);
      case "perform":
        return performAction(ctx, e, senses, timings);
    }
  };

  for (;;) {
    guard(ctx);
    const r = step(state, obs, ctx.config);
    state = r.state;
    const last = r.effects.at(-1);
    if (!last || isStepWrite(last) || last.type === "checkpoint" || last.type === "event") throw new Error("executor step ended a batch without an input effect or an exit");
    for (const e of r.effects) if (isStepWrite(e)) records.queue(e);
    const checkpointed = r.effects.some((e) => e.type === "checkpoint");
    const events = r.effects.flatMap((e) => (e.type === "event" ? [e.event] : []));
    const sensing = senses.takePrefetched();
    if (last.type === "exit") {
      await timings.timed("writeback", () => records.flush(state, { checkpoint: checkpointed }));
      events.forEach((e) => timings.emit(e));
      return { state, ret: last.ret };
    }
    if (last.type === "route") {
      // Sensing needs nothing written or routed: it runs beside the step's record and the route.
      senses.prefetch();
      obs = await timings.timed("writeback", () => input(last, null));
      events.forEach((e) => timings.emit(e));
      continue;
    }
    if (checkpointed || !NEEDS_NO_WRITE.has(last.type)) {
      // Write-ahead: what the step saw, what the model said and the record of the action commit before the action
      // (or the gate), so a resumed worker never repeats it.
      await timings.timed(checkpointed ? "write-ahead" : "writeback", () => records.flush(state, { checkpoint: checkpointed }));
    }
    events.forEach((e) => timings.emit(e));
    obs = await timings.timed(last.type, () => input(last, sensing));
  }
}
