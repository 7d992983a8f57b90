// The planner / supervisor node: the plan and its todos (through the core's replan operations), the reaction to each
// executor return, the next todo (the core's claimNext picks it, in order, in one call) and host todos, which it
// answers itself.
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
import { ControlPlaneConflict, leaseRefOf, type ChatMessage, type Lease, type RunEndReason, type Todo, type TodoDraft, type TurnResultKind } from "../ports.ts";
import { callModel } from "./effects.ts";
import { newExecutor } from "./executor.ts";
import { describeLessons, describeShortcuts } from "./learning.ts";
import { answerArithmetic } from "../memory/arithmetic.ts";
import { endReasonOfSkip, routeReturn } from "./routes.ts";
import { guard, toSummarizer, type ExecutorReturn, type PlannerState, type RunContext, type RunEnd, type RunState } from "./state.ts";
import type { z } from "zod";

/** The capability an agent offers when it drives a phone; executor todos require it. */
export const PHONE_CAPABILITY = "phone";

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
async function askPlanner<T>(ctx: RunContext, state: PlannerState, messages: ChatMessage[], schema: z.ZodType<T>, jsonSchema: Record<string, unknown>, name: string): Promise<{ reply: T | null }> {
  let msgs = messages;
  for (let round = 0; round < 2; round++) {
    const n = ++state.plannerCalls;
    const r = await callModel(ctx, state, { role: "planner", messages: msgs, jsonSchema: { name, schema: jsonSchema }, key: `${state.runId}:planner:${n}` }, state.totals);
    if (!r.ok) return { reply: null };
    const reply = parseReply(r.value.response.text, schema);
    if (reply) return { reply };
    msgs = [...messages, { role: "assistant", content: r.value.response.text }, { role: "user", content: `That reply is not valid JSON for the requested shape. Reply with exactly one JSON object matching: ${JSON.stringify(jsonSchema)}` }];
  }
  return { reply: null };
}

async function mayCallModel(ctx: RunContext, state: PlannerState): Promise<{ ok: true } | { ok: false; reason: RunEndReason; message: string }> {
  const sr = await ctx.ports.controlPlane.shouldRun({ agentId: state.agentId, goalId: state.goalId });
  return sr.decision === "run" ? { ok: true } : { ok: false, reason: endReasonOfSkip(sr.reason), message: sr.message };
}

function endWith(state: PlannerState, status: RunEnd["status"], reason: RunEndReason, detail: string): RunState {
  return toSummarizer(state, { status, reason, detail });
}

/** Records a turn result under a lease this run holds; a lease another worker took since is not an error here. */
async function recordTurn(ctx: RunContext, lease: Lease, key: string, kind: TurnResultKind, summary: string, values?: Blackboard): Promise<Todo | null> {
  try {
    const out = await ctx.ports.controlPlane.recordTurnResult({ idempotencyKey: key, lease: leaseRefOf(lease), kind, summary: summary.slice(0, 2000) || kind, ...(values ? { values } : {}) });
    return out.todo;
  } catch (e) {
    if (e instanceof ControlPlaneConflict) return null;
    throw e;
  }
}

const stillHeld = (t: Todo | null) => t !== null && (t.state === "claimed" || t.state === "running" || t.state === "validating");

/** Claims the next todo in order and starts it; null when nothing is claimable (with why). */
async function claimNextTodo(ctx: RunContext, state: PlannerState): Promise<{ todo: Todo; lease: Lease } | { reason: string }> {
  const cp = ctx.ports.controlPlane;
  const claim = await cp.claimNext({ agentId: state.agentId, goalId: state.goalId, ttlMs: ctx.config.leaseTtlMs });
  if (!claim.claimed) return { reason: claim.reason };
  await cp.startTodo(leaseRefOf(claim.lease));
  return { todo: claim.todo, lease: claim.lease };
}

/** What the executor's return means: record its turn, validate its outputs, or let the supervisor decide. */
async function handleReturn(ctx: RunContext, state: PlannerState, ret: ExecutorReturn): Promise<RunState | null> {
  const cp = ctx.ports.controlPlane;
  const todos = await cp.listTodos(state.goalId);
  const todo = todos.find((t) => t.id === ret.todoId);
  const lease = state.held?.todoId === ret.todoId ? state.held.lease : null;
  state.held = null;
  const key = `${state.runId}:return:${ret.todoId}:${state.attempts[ret.todoId] ?? 0}:${lease?.epoch ?? 0}`;
  await cp.appendEvidence({ idempotencyKey: `${key}:handoff`, kind: "handoff", goalId: state.goalId, runId: state.runId, todoId: ret.todoId, summary: `executor → planner: ${ret.status} (${ret.reason})`, data: { ...ret } });
  const route = routeReturn(ret);
  const title = todo?.title ?? ret.todoId;
  // The core's one attempt limit, as the todo carries it (its turn router asks for a replan at the same count).
  const maxAttempts = todo?.maxAttempts ?? 1;
  const release = async (after: Todo | null) => {
    if (lease && stillHeld(after)) await cp.releaseLease(leaseRefOf(lease), `${ret.reason}: ${ret.summary}`.slice(0, 500)).catch((e: unknown) => (e instanceof ControlPlaneConflict ? undefined : Promise.reject(e)));
  };

  if (route.kind === "validate") {
    const outs = extractOutputs(todo?.outputs ?? [], ret.outputs, ret.answers, title);
    if (outs.ok) {
      await cp.appendEvidence({ idempotencyKey: `${key}:validation`, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: ret.todoId, summary: `accepted: ${title}`, data: { outputs: outs.value } });
      if (lease) await recordTurn(ctx, lease, `${key}:validated_completion`, "validated_completion", ret.summary, outs.value);
      Object.assign(state.blackboard, outs.value);
      state.executed.push({ todoId: ret.todoId, title, status: "done", summary: ret.summary });
      for (const a of ret.answers) state.findings.push(a);
      return null;
    }
    await cp.appendEvidence({ idempotencyKey: `${key}:validation`, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: ret.todoId, summary: outs.error.message, data: { code: outs.error.code, keys: outs.error.keys } });
    const after = lease ? await recordTurn(ctx, lease, `${key}:validation_failed`, "validation_failed", outs.error.message) : null;
    state.attempts[ret.todoId] = (state.attempts[ret.todoId] ?? 0) + 1;
    if (state.attempts[ret.todoId]! >= maxAttempts || !lease || !stillHeld(after)) {
      await release(after);
      state.blocked.push(outs.error.message);
      return endWith(state, "blocked", "todo_blocked", outs.error.message);
    }
    // A retry result keeps the todo running under this lease: the executor goes on with the reason.
    state.held = { todoId: ret.todoId, lease };
    state.retryFeedback = outs.error.message;
    return null;
  }
  if (route.kind === "stop") {
    const after = route.turn && lease ? await recordTurn(ctx, lease, `${key}:${route.turn}`, route.turn, route.detail) : todo ?? null;
    await release(after);
    state.blocked.push(route.detail);
    state.executed.push({ todoId: ret.todoId, title, status: ret.status, summary: ret.summary });
    return endWith(state, route.status, ret.reason, route.detail);
  }

  // supervise: the executor handed back (scroll streak, step cap, infeasible): the todo is blocked for a decision.
  const after = lease ? await recordTurn(ctx, lease, `${key}:${route.turn}`, route.turn, `${ret.reason}: ${ret.summary}`) : null;
  await release(after);
  state.attempts[ret.todoId] = (state.attempts[ret.todoId] ?? 0) + 1;
  state.executed.push({ todoId: ret.todoId, title, status: ret.status, summary: ret.summary });
  const may = await mayCallModel(ctx, state);
  if (!may.ok) return endWith(state, "blocked", may.reason, `the supervisor may not call the model: ${may.message}`);
  const asked = await askPlanner(
    ctx,
    state,
    decisionMessages({ goal: state.goal, plan: state.plan, todos, todo: todo!, status: ret.status, reason: ret.reason, summary: ret.summary, attempts: state.attempts[ret.todoId]!, ...(ret.finalScreen ? { finalScreenApp: ret.finalScreen.app } : {}) }),
    DecisionReplySchema,
    DECISION_JSON_SCHEMA,
    "supervisor_decision",
  );
  const d = asked.reply ?? { decision: "summarise" as const, reason: "the supervisor's reply could not be read", todos: [] };
  const exhausted = state.attempts[ret.todoId]! >= maxAttempts;
  await cp.appendEvidence({ idempotencyKey: `${key}:decision`, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: ret.todoId, summary: `supervisor: ${d.decision} — ${d.reason}`, data: { decision: d.decision, reason: d.reason, todos: d.todos, attemptsExhausted: exhausted } });
  if ((d.decision === "retry" || d.decision === "replan") && exhausted) {
    const why = `${title}: gave up after ${state.attempts[ret.todoId]} attempts (${ret.reason}: ${ret.summary})`;
    state.blocked.push(why);
    return endWith(state, "partial", ret.reason, why);
  }
  if (d.decision === "replan" && d.todos.length) {
    const n = state.plannerCalls;
    await cp.replanTodos({
      goalId: state.goalId,
      idempotencyKey: `${key}:replan`,
      reason: d.reason || ret.reason,
      ops: [{ op: "supersede", todoId: ret.todoId, reason: `${ret.reason}: ${d.reason}`.slice(0, 500), replacements: d.todos.map((t, i) => toDraft(t, state.runId, n, i)) }],
    });
    return null;
  }
  if (d.decision === "retry" || d.decision === "replan") {
    // The todo was blocked by the replan_required result: give it back to the pool; claimNext takes it again.
    await cp.reopenTodo({ todoId: ret.todoId, reason: `the supervisor retries: ${d.reason}`.slice(0, 500) });
    state.retryFeedback = `A previous attempt ended with ${ret.reason}: ${ret.summary}. ${d.reason}`;
    return null;
  }
  if (d.decision === "complete" && !todo?.outputs.length) {
    await cp.reopenTodo({ todoId: ret.todoId, reason: `accepted by the supervisor: ${d.reason}`.slice(0, 500) });
    const claimed = await claimNextTodo(ctx, state);
    if ("todo" in claimed) {
      if (claimed.todo.id === ret.todoId) await recordTurn(ctx, claimed.lease, `${key}:supervisor_completion`, "validated_completion", `accepted by the supervisor: ${d.reason}`);
      else await cp.releaseLease(leaseRefOf(claimed.lease), "not the todo the supervisor accepted");
    }
    return null;
  }
  state.blocked.push(`${title}: ${ret.reason} — ${d.reason || ret.summary}`);
  return endWith(state, "partial", ret.reason, d.reason || ret.summary);
}

/** Why nothing could be claimed, as the run's end. */
async function endWhenNothingClaimable(ctx: RunContext, state: PlannerState, why: string): Promise<RunState> {
  const todos = await ctx.ports.controlPlane.listTodos(state.goalId);
  const open = todos.filter((t) => t.state !== "done" && t.state !== "superseded");
  if (!open.length) return endWith(state, "completed", "all_done", "all todos done");
  const first = open[0]!;
  if (first.state === "blocked" || first.state === "failed") {
    const detail = open.filter((t) => t.state === "blocked" || t.state === "failed").map((t) => `${t.title}: ${t.reason ?? t.state}`).join("; ");
    return endWith(state, "blocked", first.openGate ? "gate_waiting" : "todo_blocked", detail);
  }
  const sr = await ctx.ports.controlPlane.shouldRun({ agentId: state.agentId, goalId: state.goalId, todoId: first.id });
  if (sr.decision === "skip") return endWith(state, "blocked", endReasonOfSkip(sr.reason), sr.message);
  return endWith(state, "blocked", "lease_lost", `"${first.title}" cannot be claimed now: ${why}`);
}

/** Answers a host todo (no screen) with the planner model under the todo's lease. */
async function answerHost(ctx: RunContext, state: PlannerState, todo: Todo, lease: Lease): Promise<RunState | null> {
  const cp = ctx.ports.controlPlane;
  const key = `${state.runId}:host:${todo.id}:${lease.epoch}`;
  const inputs = readInputs(todo.inputs, state.blackboard, todo.title);
  const fail = async (why: string) => {
    const after = await recordTurn(ctx, lease, `${key}:validation_failed`, "validation_failed", why);
    if (stillHeld(after)) await cp.releaseLease(leaseRefOf(lease), why.slice(0, 500));
    state.blocked.push(why);
    return endWith(state, "blocked", "todo_blocked", why);
  };
  if (!inputs.ok) return fail(inputs.error.message);
  // Arithmetic over the blackboard is computed, not asked: exact, and no model call.
  const computed = answerArithmetic(todo, inputs.value);
  if (computed) {
    await cp.appendEvidence({ idempotencyKey: key, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: todo.id, lease: leaseRefOf(lease), summary: `host computed: ${todo.title}`, data: { answer: computed.answer, outputs: computed.outputs, expression: computed.expression } });
    await cp.recordTurnResult({ idempotencyKey: `${key}:validated_completion`, lease: leaseRefOf(lease), kind: "validated_completion", summary: computed.answer.slice(0, 2000), values: computed.outputs });
    Object.assign(state.blackboard, computed.outputs);
    state.executed.push({ todoId: todo.id, title: todo.title, status: "host", summary: computed.answer });
    state.findings.push(computed.answer);
    return null;
  }
  const may = await mayCallModel(ctx, state);
  if (!may.ok) {
    await cp.releaseLease(leaseRefOf(lease), may.message.slice(0, 500));
    return endWith(state, "blocked", may.reason, `cannot answer the host todo: ${may.message}`);
  }
  const asked = await askPlanner(ctx, state, hostMessages(state.goal, todo, inputs.value), HostReplySchema, HOST_JSON_SCHEMA, "host_answer");
  const reply = asked.reply;
  const outs = reply ? extractOutputs(todo.outputs, reply.outputs, [reply.answer], todo.title) : null;
  if (!reply || !outs || !outs.ok) {
    return fail(!reply ? `The planner could not answer "${todo.title}".` : outs && !outs.ok ? outs.error.message : `The planner could not answer "${todo.title}".`);
  }
  await cp.appendEvidence({ idempotencyKey: key, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: todo.id, lease: leaseRefOf(lease), summary: `host answered: ${todo.title}`, data: { answer: reply.answer, outputs: outs.value } });
  await cp.recordTurnResult({
    idempotencyKey: `${key}:validated_completion`,
    lease: leaseRefOf(lease),
    kind: "validated_completion",
    summary: reply.answer.slice(0, 2000) || "answered",
    values: outs.value,
  });
  Object.assign(state.blackboard, outs.value);
  state.executed.push({ todoId: todo.id, title: todo.title, status: "host", summary: reply.answer });
  state.findings.push(reply.answer);
  return null;
}

export async function runPlanner(ctx: RunContext, state: PlannerState): Promise<RunState> {
  const cp = ctx.ports.controlPlane;
  guard(ctx);
  if (state.lastReturn) {
    const ret = state.lastReturn;
    state.lastReturn = null;
    const ended = await handleReturn(ctx, state, ret);
    if (ended) return ended;
  }
  if (ctx.signal?.aborted) {
    if (state.held) await cp.releaseLease(leaseRefOf(state.held.lease), "the run was cancelled");
    state.held = null;
    state.blocked.push("Cancelled by the user.");
    return endWith(state, "cancelled", "cancelled", "Cancelled by the user.");
  }

  let todos = await cp.listTodos(state.goalId);
  if (!todos.length) {
    const may = await mayCallModel(ctx, state);
    if (!may.ok) return endWith(state, "blocked", may.reason, `cannot plan: ${may.message}`);
    const goal = await cp.getGoal(state.goalId);
    const learned = state.learned;
    const asked = await askPlanner(ctx, state, planMessages(state.goal, goal?.bounds ?? [], { ...(learned?.lessons.length ? { lessons: describeLessons(learned.lessons) } : {}), ...(learned?.shortcuts.length ? { shortcuts: describeShortcuts(learned.shortcuts) } : {}) }), PlanReplySchema, PLAN_JSON_SCHEMA, "plan");
    // Without a readable plan the goal itself is the one todo: the executor can still work on it.
    const plan = asked.reply ?? { plan: `Do the goal on the phone: ${state.goal}`, todos: [{ title: state.goal, kind: "executor" as const, inputs: [], outputs: [] }] };
    state.plan = plan.plan;
    const n = state.plannerCalls;
    todos = await cp.replanTodos({ goalId: state.goalId, idempotencyKey: `${state.runId}:plan`, reason: "initial plan", ops: plan.todos.map((t, i) => ({ op: "add" as const, todo: toDraft(t, state.runId, n, i) })) });
    await cp.appendEvidence({ idempotencyKey: `${state.runId}:plan`, kind: "validation", goalId: state.goalId, runId: state.runId, summary: `plan: ${todos.length} todos`, data: { plan: plan.plan, todos: todos.map((t) => ({ id: t.id, title: t.title, kind: t.kind })) } });
  }
  // What earlier runs wrote back is on the board too (a run that resumes a goal starts with it).
  for (const t of todos) if (t.state === "done") for (const [k, v] of Object.entries(t.values)) if (typeof v === "string" && state.blackboard[k] === undefined) state.blackboard[k] = v;

  for (;;) {
    guard(ctx);
    let next: { todo: Todo; lease: Lease };
    if (state.held) {
      const held = state.held;
      const todo = (await cp.listTodos(state.goalId)).find((t) => t.id === held.todoId);
      if (!todo) return endWith(state, "blocked", "lease_lost", `todo ${held.todoId} is gone`);
      next = { todo, lease: held.lease };
      state.held = null;
    } else {
      const claimed = await claimNextTodo(ctx, state);
      if (!("todo" in claimed)) return endWhenNothingClaimable(ctx, state, claimed.reason);
      next = claimed;
    }
    const { todo, lease } = next;
    if (todo.kind === "host") {
      const ended = await answerHost(ctx, state, todo, lease);
      if (ended) return ended;
      continue;
    }
    const inputs = readInputs(todo.inputs, state.blackboard, todo.title);
    if (!inputs.ok) {
      const after = await recordTurn(ctx, lease, `${state.runId}:inputs:${todo.id}:${lease.epoch}`, "validation_failed", inputs.error.message);
      if (stillHeld(after)) await cp.releaseLease(leaseRefOf(lease), inputs.error.message.slice(0, 500));
      state.blocked.push(inputs.error.message);
      return endWith(state, "blocked", "todo_blocked", inputs.error.message);
    }
    const feedback = state.retryFeedback;
    delete state.retryFeedback;
    const { lastReturn: _r, held: _h, retryFeedback: _f, node: _n, ...common } = state;
    return { ...common, node: "executor", executor: newExecutor(todo, lease, inputs.value, feedback) };
  }
}
