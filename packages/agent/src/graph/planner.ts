// The planner / supervisor node as a pure transition: plan(state) is a generator that yields effects — questions to
// the state core and the model, and writes — and is resumed with what each returned. Deciding happens here; the
// runner (graph/run.ts) performs the effects through the effect families in graph/runner/ and feeds the answers back.
// It does no I/O and awaits nothing: given the same state and answers it yields the same effects and ends in the same
// state (the state handed in is never changed). Its decisions are a chain of reads each depending on the last (list
// the todos, claim, start, record, release …), so a generator keeps them one readable flow where the executor's step
// needs a hand-written state machine (it is checkpointed between its inputs; the planner only between nodes).
// What it decides: the plan and its todos (through the core's replan operations), the reaction to each executor
// return, the next todo (the core's claimNext picks it, in order, in one call) and host todos, which it answers itself.
import { extractOutputs, readInputs, type Blackboard } from "../memory/blackboard.ts";
import {
  DECISION_JSON_SCHEMA,
  DecisionReplySchema,
  HOST_JSON_SCHEMA,
  HostReplySchema,
  PLAN_JSON_SCHEMA,
  PlanReplySchema,
  decisionMessages,
  hostMessages,
  parseReply,
  planMessages,
  type TodoDraftReply,
} from "../prompts/planner.ts";
import { leaseRefOf, type ChatMessage, type ClaimRefusal, type ClaimResult, type Goal, type Lease, type LeaseRef, type ReplanOp, type RunEndReason, type ShouldRunResult, type Todo, type TodoDraft, type TurnResultKind } from "../ports.ts";
import { addUsage, newExecutor } from "./executor.ts";
import { describeLessons, describeShortcuts } from "./learning.ts";
import { answerArithmetic } from "../memory/arithmetic.ts";
import { endReasonOfSkip, routeReturn } from "./routes.ts";
import { toSummarizer, type ExecutorReturn, type PlannerState, type RunEnd, type RunState } from "./state.ts";
import type { ModelAnswer } from "./runner/ask-model.ts";
import type { RecordEffect } from "./runner/record.ts";
import type { z } from "zod";

/** The capability an agent offers when it drives a phone; executor todos require it. */
export const PHONE_CAPABILITY = "phone";

/** What the planner asks the runner to do; each answer is the matching entry of PlannerAnswers. */
export type PlannerEffect =
  | { type: "list_todos" }
  | { type: "get_goal" }
  /** The core's word on whether the run (for `todoId`: that todo) may run now. */
  | { type: "should_run"; todoId?: string }
  | { type: "claim_next" }
  | { type: "start_todo"; lease: LeaseRef }
  /** `tolerateConflict`: a lease another worker took since is not an error. */
  | { type: "release_lease"; lease: LeaseRef; reason: string; tolerateConflict?: boolean }
  | { type: "reopen_todo"; todoId: string; reason: string }
  /** A turn result under a lease this run holds; `tolerateConflict`: a lease another worker took since answers null. */
  | { type: "turn_result"; idempotencyKey: string; lease: LeaseRef; kind: TurnResultKind; summary: string; values?: Blackboard; tolerateConflict: boolean }
  | { type: "replan"; idempotencyKey: string; reason: string; ops: ReplanOp[] }
  /** Evidence (the record family's writes; the run's finish is the summarizer's). */
  | Exclude<RecordEffect, { type: "finish_run" }>
  | { type: "ask_model"; role: "planner"; messages: ChatMessage[]; jsonSchema: { name: string; schema: Record<string, unknown> }; key: string }
  /** Whether the run was cancelled (gracefully: it goes to the summarizer). */
  | { type: "cancel_requested" };

export type PlannerAnswers = { [K in RecordEffect["type"]]: void } & {
  list_todos: Todo[];
  get_goal: Goal | null;
  should_run: ShouldRunResult;
  claim_next: ClaimResult;
  start_todo: void;
  release_lease: void;
  reopen_todo: void;
  /** The todo after the result, or null when the lease was another worker's by then (tolerated). */
  turn_result: Todo | null;
  replan: Todo[];
  ask_model: ModelAnswer;
  cancel_requested: boolean;
};

/** The planner's run: yields effects, is resumed with their answers, returns the next node's state. */
export type Planning = Generator<PlannerEffect, RunState, unknown>;

/** Asks the runner for one effect and takes its answer. */
function* effect<E extends PlannerEffect>(e: E): Generator<PlannerEffect, PlannerAnswers[E["type"]], unknown> {
  return (yield e) as PlannerAnswers[E["type"]];
}

function toDraft(t: TodoDraftReply, runId: string, n: number, i: number): TodoDraft {
  return {
    id: `${runId}-p${n}-${t.id ?? i + 1}`.replace(/[^A-Za-z0-9_-]/g, "_"),
    title: t.title,
    kind: t.kind,
    ...(t.app ? { appHint: t.app } : {}),
    requiredCapabilities: t.kind === "executor" ? [PHONE_CAPABILITY] : [],
    inputs: t.inputs,
    outputs: t.outputs,
  };
}

/**
 * A planner-role model call whose reply must match `schema`; one repair round, then null. Each call is metered where
 * it is made (the model proxy, or its model_call evidence for a direct endpoint): the planner spends none itself.
 */
function* askPlanner<T>(state: PlannerState, messages: ChatMessage[], schema: z.ZodType<T>, jsonSchema: Record<string, unknown>, name: string): Generator<PlannerEffect, { reply: T | null }, unknown> {
  let msgs = messages;
  for (let round = 0; round < 2; round++) {
    const n = ++state.plannerCalls;
    const r = yield* effect({ type: "ask_model", role: "planner", messages: msgs, jsonSchema: { name, schema: jsonSchema }, key: `${state.runId}:planner:${n}` });
    addUsage(state.totals, r.usage);
    if (r.type === "model_failed") return { reply: null };
    const reply = parseReply(r.text, schema);
    if (reply) return { reply };
    msgs = [...messages, { role: "assistant", content: r.text }, { role: "user", content: `That reply is not valid JSON for the requested shape. Reply with exactly one JSON object matching: ${JSON.stringify(jsonSchema)}` }];
  }
  return { reply: null };
}

function* mayCallModel(): Generator<PlannerEffect, { ok: true } | { ok: false; reason: RunEndReason; message: string }, unknown> {
  const sr = yield* effect({ type: "should_run" });
  return sr.decision === "run" ? { ok: true } : { ok: false, reason: endReasonOfSkip(sr.reason), message: sr.message };
}

function endWith(state: PlannerState, status: RunEnd["status"], reason: RunEndReason, detail: string): RunState {
  return toSummarizer(state, { status, reason, detail });
}

/** Records a turn result under a lease this run holds; a lease another worker took since is not an error here. */
function recordTurn(lease: Lease, key: string, kind: TurnResultKind, summary: string, values?: Blackboard): Generator<PlannerEffect, Todo | null, unknown> {
  return effect({ type: "turn_result", idempotencyKey: key, lease: leaseRefOf(lease), kind, summary: summary.slice(0, 2000) || kind, ...(values ? { values } : {}), tolerateConflict: true });
}

const stillHeld = (t: Todo | null) => t !== null && (t.state === "claimed" || t.state === "running" || t.state === "validating");

/** Claims the next todo in order and starts it; null when nothing is claimable (with why). */
function* claimNextTodo(): Generator<PlannerEffect, { todo: Todo; lease: Lease } | { reason: string; refusal?: ClaimRefusal }, unknown> {
  const claim = yield* effect({ type: "claim_next" });
  if (!claim.claimed) return { reason: claim.reason, ...(claim.refusal ? { refusal: claim.refusal } : {}) };
  yield* effect({ type: "start_todo", lease: leaseRefOf(claim.lease) });
  return { todo: claim.todo, lease: claim.lease };
}

/** What the executor's return means: record its turn, validate its outputs, or let the supervisor decide. */
function* handleReturn(state: PlannerState, ret: ExecutorReturn): Generator<PlannerEffect, RunState | null, unknown> {
  const todos = yield* effect({ type: "list_todos" });
  const todo = todos.find((t) => t.id === ret.todoId);
  const lease = state.held?.todoId === ret.todoId ? state.held.lease : null;
  state.held = null;
  const key = `${state.runId}:return:${ret.todoId}:${state.attempts[ret.todoId] ?? 0}:${lease?.epoch ?? 0}`;
  yield* effect({ type: "evidence", input: { idempotencyKey: `${key}:handoff`, kind: "handoff", goalId: state.goalId, runId: state.runId, todoId: ret.todoId, summary: `executor → planner: ${ret.status} (${ret.reason})`, data: { ...ret } } });
  const route = routeReturn(ret);
  const title = todo?.title ?? ret.todoId;
  // The core's one attempt limit, as the todo carries it (its turn router asks for a replan at the same count).
  const maxAttempts = todo?.maxAttempts ?? 1;
  function* release(after: Todo | null): Generator<PlannerEffect, void, unknown> {
    if (lease && stillHeld(after)) yield* effect({ type: "release_lease", lease: leaseRefOf(lease), reason: `${ret.reason}: ${ret.summary}`.slice(0, 500), tolerateConflict: true });
  }

  if (route.kind === "validate") {
    const outs = extractOutputs(todo?.outputs ?? [], ret.outputs, ret.answers, title);
    if (outs.ok) {
      yield* effect({ type: "evidence", input: { idempotencyKey: `${key}:validation`, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: ret.todoId, summary: `accepted: ${title}`, data: { outputs: outs.value } } });
      if (lease) yield* recordTurn(lease, `${key}:validated_completion`, "validated_completion", ret.summary, outs.value);
      Object.assign(state.blackboard, outs.value);
      state.executed.push({ todoId: ret.todoId, title, status: "done", summary: ret.summary });
      for (const a of ret.answers) state.findings.push(a);
      return null;
    }
    yield* effect({ type: "evidence", input: { idempotencyKey: `${key}:validation`, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: ret.todoId, summary: outs.error.message, data: { code: outs.error.code, keys: outs.error.keys } } });
    const after = lease ? yield* recordTurn(lease, `${key}:validation_failed`, "validation_failed", outs.error.message) : null;
    state.attempts[ret.todoId] = (state.attempts[ret.todoId] ?? 0) + 1;
    if (state.attempts[ret.todoId]! >= maxAttempts || !lease || !stillHeld(after)) {
      yield* release(after);
      state.blocked.push(outs.error.message);
      return endWith(state, "blocked", "todo_blocked", outs.error.message);
    }
    // A retry result keeps the todo running under this lease: the executor goes on with the reason.
    state.held = { todoId: ret.todoId, lease };
    state.retryFeedback = outs.error.message;
    return null;
  }
  if (route.kind === "stop") {
    const after = route.turn && lease ? yield* recordTurn(lease, `${key}:${route.turn}`, route.turn, route.detail) : (todo ?? null);
    yield* release(after);
    state.blocked.push(route.detail);
    state.executed.push({ todoId: ret.todoId, title, status: ret.status, summary: ret.summary });
    return endWith(state, route.status, ret.reason, route.detail);
  }

  // supervise: the executor handed back (scroll streak, step cap, infeasible): the todo is blocked for a decision.
  const after = lease ? yield* recordTurn(lease, `${key}:${route.turn}`, route.turn, `${ret.reason}: ${ret.summary}`) : null;
  yield* release(after);
  state.attempts[ret.todoId] = (state.attempts[ret.todoId] ?? 0) + 1;
  state.executed.push({ todoId: ret.todoId, title, status: ret.status, summary: ret.summary });
  const may = yield* mayCallModel();
  if (!may.ok) return endWith(state, "blocked", may.reason, `the supervisor may not call the model: ${may.message}`);
  const asked = yield* askPlanner(
    state,
    decisionMessages({ goal: state.goal, plan: state.plan, todos, todo: todo!, status: ret.status, reason: ret.reason, summary: ret.summary, attempts: state.attempts[ret.todoId]!, ...(ret.finalScreen ? { finalScreenApp: ret.finalScreen.app } : {}) }),
    DecisionReplySchema,
    DECISION_JSON_SCHEMA,
    "supervisor_decision",
  );
  const d = asked.reply ?? { decision: "summarise" as const, reason: "the supervisor's reply could not be read", todos: [] };
  const exhausted = state.attempts[ret.todoId]! >= maxAttempts;
  yield* effect({ type: "evidence", input: { idempotencyKey: `${key}:decision`, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: ret.todoId, summary: `supervisor: ${d.decision} — ${d.reason}`, data: { decision: d.decision, reason: d.reason, todos: d.todos, attemptsExhausted: exhausted } } });
  if ((d.decision === "retry" || d.decision === "replan") && exhausted) {
    const why = `${title}: gave up after ${state.attempts[ret.todoId]} attempts (${ret.reason}: ${ret.summary})`;
    state.blocked.push(why);
    return endWith(state, "partial", ret.reason, why);
  }
  if (d.decision === "replan" && d.todos.length) {
    const n = state.plannerCalls;
    yield* effect({
      type: "replan",
      idempotencyKey: `${key}:replan`,
      reason: d.reason || ret.reason,
      ops: [{ op: "supersede", todoId: ret.todoId, reason: `${ret.reason}: ${d.reason}`.slice(0, 500), replacements: d.todos.map((t, i) => toDraft(t, state.runId, n, i)) }],
    });
    return null;
  }
  if (d.decision === "retry" || d.decision === "replan") {
    // The todo was blocked by the replan_required result: give it back to the pool; claimNext takes it again.
    yield* effect({ type: "reopen_todo", todoId: ret.todoId, reason: `the supervisor retries: ${d.reason}`.slice(0, 500) });
    state.retryFeedback = `A previous attempt ended with ${ret.reason}: ${ret.summary}. ${d.reason}`;
    return null;
  }
  if (d.decision === "complete" && !todo?.outputs.length) {
    yield* effect({ type: "reopen_todo", todoId: ret.todoId, reason: `accepted by the supervisor: ${d.reason}`.slice(0, 500) });
    const claimed = yield* claimNextTodo();
    if ("todo" in claimed) {
      if (claimed.todo.id === ret.todoId) yield* recordTurn(claimed.lease, `${key}:supervisor_completion`, "validated_completion", `accepted by the supervisor: ${d.reason}`);
      else yield* effect({ type: "release_lease", lease: leaseRefOf(claimed.lease), reason: "not the todo the supervisor accepted" });
    }
    return null;
  }
  state.blocked.push(`${title}: ${ret.reason} — ${d.reason || ret.summary}`);
  return endWith(state, "partial", ret.reason, d.reason || ret.summary);
}

/** Why nothing could be claimed, as the run's end. */
function* endWhenNothingClaimable(state: PlannerState, why: string): Generator<PlannerEffect, RunState, unknown> {
  const todos = yield* effect({ type: "list_todos" });
  const open = todos.filter((t) => t.state !== "done" && t.state !== "superseded");
  if (!open.length) return endWith(state, "completed", "all_done", "all todos done");
  const first = open[0]!;
  if (first.state === "blocked" || first.state === "failed") {
    const detail = open.filter((t) => t.state === "blocked" || t.state === "failed").map((t) => `${t.title}: ${t.reason ?? t.state}`).join("; ");
    return endWith(state, "blocked", first.openGate ? "gate_waiting" : "todo_blocked", detail);
  }
  const sr = yield* effect({ type: "should_run", todoId: first.id });
  if (sr.decision === "skip") return endWith(state, "blocked", endReasonOfSkip(sr.reason), sr.message);
  return endWith(state, "blocked", "lease_lost", `"${first.title}" cannot be claimed now: ${why}`);
}

/** Answers a host todo (no screen) with the planner model under the todo's lease. */
function* answerHost(state: PlannerState, todo: Todo, lease: Lease): Generator<PlannerEffect, RunState | null, unknown> {
  const key = `${state.runId}:host:${todo.id}:${lease.epoch}`;
  const inputs = readInputs(todo.inputs, state.blackboard, todo.title);
  function* fail(why: string): Generator<PlannerEffect, RunState, unknown> {
    const after = yield* recordTurn(lease, `${key}:validation_failed`, "validation_failed", why);
    if (stillHeld(after)) yield* effect({ type: "release_lease", lease: leaseRefOf(lease), reason: why.slice(0, 500) });
    state.blocked.push(why);
    return endWith(state, "blocked", "todo_blocked", why);
  }
  if (!inputs.ok) return yield* fail(inputs.error.message);
  // Arithmetic over the blackboard is computed, not asked: exact, and no model call.
  const computed = answerArithmetic(todo, inputs.value);
  if (computed) {
    yield* effect({ type: "evidence", input: { idempotencyKey: key, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: todo.id, lease: leaseRefOf(lease), summary: `host computed: ${todo.title}`, data: { answer: computed.answer, outputs: computed.outputs, expression: computed.expression } } });
    yield* effect({ type: "turn_result", idempotencyKey: `${key}:validated_completion`, lease: leaseRefOf(lease), kind: "validated_completion", summary: computed.answer.slice(0, 2000), values: computed.outputs, tolerateConflict: false });
    Object.assign(state.blackboard, computed.outputs);
    state.executed.push({ todoId: todo.id, title: todo.title, status: "host", summary: computed.answer });
    state.findings.push(computed.answer);
    return null;
  }
  const may = yield* mayCallModel();
  if (!may.ok) {
    yield* effect({ type: "release_lease", lease: leaseRefOf(lease), reason: may.message.slice(0, 500) });
    return endWith(state, "blocked", may.reason, `cannot answer the host todo: ${may.message}`);
  }
  const asked = yield* askPlanner(state, hostMessages(state.goal, todo, inputs.value), HostReplySchema, HOST_JSON_SCHEMA, "host_answer");
  const reply = asked.reply;
  const outs = reply ? extractOutputs(todo.outputs, reply.outputs, [reply.answer], todo.title) : null;
  if (!reply || !outs || !outs.ok) {
    return yield* fail(!reply ? `The planner could not answer "${todo.title}".` : outs && !outs.ok ? outs.error.message : `The planner could not answer "${todo.title}".`);
  }
  yield* effect({ type: "evidence", input: { idempotencyKey: key, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: todo.id, lease: leaseRefOf(lease), summary: `host answered: ${todo.title}`, data: { answer: reply.answer, outputs: outs.value } } });
  yield* effect({ type: "turn_result", idempotencyKey: `${key}:validated_completion`, lease: leaseRefOf(lease), kind: "validated_completion", summary: reply.answer.slice(0, 2000) || "answered", values: outs.value, tolerateConflict: false });
  Object.assign(state.blackboard, outs.value);
  state.executed.push({ todoId: todo.id, title: todo.title, status: "host", summary: reply.answer });
  state.findings.push(reply.answer);
  return null;
}

/** The planner's transition: from the state handed in (never changed) to the next node's state, effect by effect. */
export function* plan(start: PlannerState): Planning {
  const state = structuredClone(start);
  if (state.lastReturn) {
    const ret = state.lastReturn;
    state.lastReturn = null;
    const ended = yield* handleReturn(state, ret);
    if (ended) return ended;
  }
  if (yield* effect({ type: "cancel_requested" })) {
    if (state.held) yield* effect({ type: "release_lease", lease: leaseRefOf(state.held.lease), reason: "the run was cancelled" });
    state.held = null;
    state.blocked.push("Cancelled by the user.");
    return endWith(state, "cancelled", "cancelled", "Cancelled by the user.");
  }

  let todos = yield* effect({ type: "list_todos" });
  if (!todos.length) {
    const may = yield* mayCallModel();
    if (!may.ok) return endWith(state, "blocked", may.reason, `cannot plan: ${may.message}`);
    const goal = yield* effect({ type: "get_goal" });
    const learned = state.learned;
    const asked = yield* askPlanner(state, planMessages(state.goal, goal?.bounds ?? [], { ...(learned?.lessons.length ? { lessons: describeLessons(learned.lessons) } : {}), ...(learned?.shortcuts.length ? { shortcuts: describeShortcuts(learned.shortcuts) } : {}) }), PlanReplySchema, PLAN_JSON_SCHEMA, "plan");
    // Without a readable plan the goal itself is the one todo: the executor can still work on it.
    const planned = asked.reply ?? { plan: `Do the goal on the phone: ${state.goal}`, todos: [{ title: state.goal, kind: "executor" as const, inputs: [], outputs: [] }] };
    state.plan = planned.plan;
    const n = state.plannerCalls;
    todos = yield* effect({ type: "replan", idempotencyKey: `${state.runId}:plan`, reason: "initial plan", ops: planned.todos.map((t, i) => ({ op: "add" as const, todo: toDraft(t, state.runId, n, i) })) });
    yield* effect({ type: "evidence", input: { idempotencyKey: `${state.runId}:plan`, kind: "validation", goalId: state.goalId, runId: state.runId, summary: `plan: ${todos.length} todos`, data: { plan: planned.plan, todos: todos.map((t) => ({ id: t.id, title: t.title, kind: t.kind })) } } });
  }
  // What earlier runs wrote back is on the board too (a run that resumes a goal starts with it).
  for (const t of todos) if (t.state === "done") for (const [k, v] of Object.entries(t.values)) if (typeof v === "string" && state.blackboard[k] === undefined) state.blackboard[k] = v;

  for (;;) {
    let next: { todo: Todo; lease: Lease };
    if (state.held) {
      const held = state.held;
      const todo = (yield* effect({ type: "list_todos" })).find((t) => t.id === held.todoId);
      if (!todo) return endWith(state, "blocked", "lease_lost", `todo ${held.todoId} is gone`);
      next = { todo, lease: held.lease };
      state.held = null;
    } else {
      const claimed = yield* claimNextTodo();
      if (!("todo" in claimed)) return claimed.refusal === "wip_limit" ? endWith(state, "blocked", "wip_limit", claimed.reason) : yield* endWhenNothingClaimable(state, claimed.reason);
      next = claimed;
    }
    const { todo, lease } = next;
    if (todo.kind === "host") {
      const ended = yield* answerHost(state, todo, lease);
      if (ended) return ended;
      continue;
    }
    const inputs = readInputs(todo.inputs, state.blackboard, todo.title);
    if (!inputs.ok) {
      const after = yield* recordTurn(lease, `${state.runId}:inputs:${todo.id}:${lease.epoch}`, "validation_failed", inputs.error.message);
      if (stillHeld(after)) yield* effect({ type: "release_lease", lease: leaseRefOf(lease), reason: inputs.error.message.slice(0, 500) });
      state.blocked.push(inputs.error.message);
      return endWith(state, "blocked", "todo_blocked", inputs.error.message);
    }
    const feedback = state.retryFeedback;
    delete state.retryFeedback;
    const { lastReturn: _r, held: _h, retryFeedback: _f, node: _n, ...common } = state;
    return { ...common, node: "executor", executor: newExecutor(todo, lease, inputs.value, feedback) };
  }
}
