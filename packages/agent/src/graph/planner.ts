// The planner / supervisor node: plan document and todos (write_todos / read_todos through the state core's
// replan operator), the reaction to each executor return, and host todos it answers itself.
import { extractOutputs, readInputs } from "../memory/blackboard.ts";
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
import type { ChatMessage, Todo, TodoDraft } from "../ports.ts";
import { callModel } from "./effects.ts";
import { routeReturn } from "./routes.ts";
import { guard, type ExecutorReturn, type RunContext, type RunState } from "./state.ts";
import type { z } from "zod";

const OPEN: Todo["status"][] = ["todo", "claimed", "in_progress", "waiting"];

function toDraft(t: TodoDraftReply, runId: string, n: number, i: number): TodoDraft {
  return {
    todoId: `${runId}-p${n}-${t.id ?? i + 1}`.replace(/[^A-Za-z0-9_-]/g, "_"),
    title: t.title,
    kind: t.kind,
    ...(t.app ? { appHint: t.app } : {}),
    inputs: t.inputs,
    outputs: t.outputs,
  };
}

/** A planner-role model call whose reply must match `schema`; one repair round, then null. */
async function askPlanner<T>(ctx: RunContext, state: RunState, messages: ChatMessage[], schema: z.ZodType<T>, jsonSchema: Record<string, unknown>, name: string): Promise<{ reply: T | null; tokens: number; microUsd: number }> {
  let tokens = 0;
  let microUsd = 0;
  let msgs = messages;
  for (let round = 0; round < 2; round++) {
    const n = ++state.plannerCalls;
    const r = await callModel(ctx, state, { role: "planner", messages: msgs, jsonSchema: { name, schema: jsonSchema }, key: `${state.runId}:planner:${n}` });
    if (!r.ok) return { reply: null, tokens, microUsd };
    tokens += r.value.response.usage.inputTokens + r.value.response.usage.outputTokens;
    microUsd += r.value.response.usage.microUsd;
    const reply = parseReply(r.value.response.text, schema);
    if (reply) return { reply, tokens, microUsd };
    msgs = [...messages, { role: "assistant", content: r.value.response.text }, { role: "user", content: `That reply is not valid JSON for the requested shape. Reply with exactly one JSON object matching: ${JSON.stringify(jsonSchema)}` }];
  }
  return { reply: null, tokens, microUsd };
}

async function spendPlanner(ctx: RunContext, state: RunState, key: string, tokens: number, microUsd: number): Promise<void> {
  if (tokens === 0 && microUsd === 0) return;
  await ctx.ports.controlPlane.spend(`${state.runId}:${key}`, { agentId: state.agentId, goalId: state.goalId, steps: 0, tokens, microUsd });
}

async function mayCallModel(ctx: RunContext, state: RunState): Promise<{ ok: true } | { ok: false; reason: string }> {
  const sr = await ctx.ports.controlPlane.shouldRun({ agentId: state.agentId, goalId: state.goalId });
  return sr.run ? { ok: true } : { ok: false, reason: `${sr.reason}${sr.detail ? ` (${sr.detail})` : ""}` };
}

function endWith(state: RunState, status: NonNullable<RunState["end"]>["status"], reason: string): void {
  state.end = { status, reason };
  state.node = "summarizer";
}

async function handleReturn(ctx: RunContext, state: RunState, ret: ExecutorReturn): Promise<void> {
  const cp = ctx.ports.controlPlane;
  const todos = await cp.readTodos(state.goalId);
  const todo = todos.find((t) => t.todoId === ret.todoId);
  const lease = state.executor?.lease;
  const leaseRef = lease ? { leaseId: lease.leaseId, epoch: lease.epoch } : undefined;
  const key = `${state.runId}:return:${ret.todoId}:${state.attempts[ret.todoId] ?? 0}:${lease?.epoch ?? 0}`;
  const evidenceIds = ret.finalScreen?.evidenceId ? [ret.finalScreen.evidenceId] : [];
  const turn = (result: Parameters<typeof cp.recordTurnResult>[0]["result"], summary: string, extra: { reason?: string; outputs?: Record<string, string> } = {}) =>
    cp.recordTurnResult({ idempotencyKey: `${key}:${result}`, goalId: state.goalId, todoId: ret.todoId, ...(leaseRef ? { lease: leaseRef } : {}), result, summary, evidenceIds, ...extra });
  await cp.appendEvidence({
    idempotencyKey: `${key}:handoff`,
    kind: "handoff",
    goalId: state.goalId,
    runId: state.runId,
    todoId: ret.todoId,
    summary: `executor → planner: ${ret.status} (${ret.reason})`,
    data: { ...ret },
  });
  const route = routeReturn(ret);
  const title = todo?.title ?? ret.todoId;
  const release = async () => {
    if (leaseRef && route.kind !== "wait") await cp.releaseLease(leaseRef);
    state.executor = null;
  };

  if (route.kind === "validate") {
    const outs = extractOutputs(todo?.outputs ?? [], ret.outputs, ret.answers, title);
    if (outs.ok) {
      await cp.appendEvidence({ idempotencyKey: `${key}:validation`, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: ret.todoId, summary: `accepted: ${title}`, data: { outputs: outs.value } });
      await turn("validated_completion", ret.summary, { outputs: outs.value });
      Object.assign(state.blackboard, outs.value);
      state.executed.push({ todoId: ret.todoId, title, status: "done", summary: ret.summary });
      for (const a of ret.answers) state.findings.push(a);
      await release();
      return;
    }
    await cp.appendEvidence({ idempotencyKey: `${key}:validation`, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: ret.todoId, summary: outs.error.message, data: { code: outs.error.code, keys: outs.error.keys } });
    await turn("validation_failed", outs.error.message, { reason: outs.error.message });
    state.attempts[ret.todoId] = (state.attempts[ret.todoId] ?? 0) + 1;
    await release();
    if (state.attempts[ret.todoId]! >= ctx.config.maxAttemptsPerTodo) {
      state.blocked.push(outs.error.message);
      return endWith(state, "blocked", outs.error.message);
    }
    state.retryFeedback = outs.error.message;
    return;
  }
  if (route.kind === "stop") {
    await turn(route.turn, ret.summary, { reason: route.blocked });
    state.blocked.push(route.blocked);
    state.executed.push({ todoId: ret.todoId, title, status: ret.status, summary: ret.summary });
    await release();
    return endWith(state, route.status, route.blocked);
  }
  if (route.kind === "wait") {
    if (route.turn) await turn(route.turn, ret.summary, { reason: route.reason });
    // This worker stops here: free the todo so whoever resumes (another tab, a later run) can claim it.
    if (route.turn && leaseRef) await cp.releaseLease(leaseRef);
    state.executor = null;
    state.blocked.push(`${title}: waiting — ${route.reason}`);
    return endWith(state, "waiting", route.reason);
  }

  // supervise: the executor handed back (scroll streak, step cap, infeasible) → retry, replan or summarise.
  await turn(route.turn, ret.summary, { reason: ret.reason });
  state.attempts[ret.todoId] = (state.attempts[ret.todoId] ?? 0) + 1;
  state.executed.push({ todoId: ret.todoId, title, status: ret.status, summary: ret.summary });
  await release();
  const may = await mayCallModel(ctx, state);
  if (!may.ok) return endWith(state, "waiting", `the supervisor may not call the model: ${may.reason}`);
  const asked = await askPlanner(
    ctx,
    state,
    decisionMessages({ goal: state.goal, plan: state.plan, todos, todo: todo!, status: ret.status, reason: ret.reason, summary: ret.summary, attempts: state.attempts[ret.todoId]!, ...(ret.finalScreen ? { finalScreenApp: ret.finalScreen.app } : {}) }),
    DecisionReplySchema,
    DECISION_JSON_SCHEMA,
    "supervisor_decision",
  );
  const d = asked.reply ?? { decision: "summarise" as const, reason: "the supervisor's reply could not be read", todos: [] };
  const exhausted = state.attempts[ret.todoId]! >= ctx.config.maxAttemptsPerTodo;
  await cp.appendEvidence({ idempotencyKey: `${key}:decision`, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: ret.todoId, summary: `supervisor: ${d.decision} — ${d.reason}`, data: { decision: d.decision, reason: d.reason, todos: d.todos, attemptsExhausted: exhausted } });
  if ((d.decision === "retry" || d.decision === "replan") && exhausted) {
    await spendPlanner(ctx, state, `supervise:${key}`, asked.tokens, asked.microUsd);
    const why = `${title}: gave up after ${state.attempts[ret.todoId]} attempts (${ret.reason}: ${ret.summary})`;
    state.blocked.push(why);
    return endWith(state, "partial", why);
  }
  if (d.decision === "replan" && d.todos.length) {
    const n = state.plannerCalls;
    await cp.replanTodos({
      goalId: state.goalId,
      idempotencyKey: `${key}:replan`,
      reason: d.reason || ret.reason,
      ops: [{ op: "supersede", todoId: ret.todoId, reason: `${ret.reason}: ${d.reason}`, replacements: d.todos.map((t, i) => toDraft(t, state.runId, n, i)) }],
    });
    await spendPlanner(ctx, state, `supervise:${key}`, asked.tokens, asked.microUsd);
    return;
  }
  await spendPlanner(ctx, state, `supervise:${key}`, asked.tokens, asked.microUsd);
  if (d.decision === "retry" || d.decision === "replan") {
    state.retryFeedback = `A previous attempt ended with ${ret.reason}: ${ret.summary}. ${d.reason}`;
    return;
  }
  if (d.decision === "complete" && !(todo?.outputs.length)) {
    await turn("validated_completion", `accepted by the supervisor: ${d.reason}`);
    return;
  }
  state.blocked.push(`${title}: ${ret.reason} — ${d.reason || ret.summary}`);
  return endWith(state, "partial", d.reason || ret.summary);
}

export async function runPlanner(ctx: RunContext, state: RunState): Promise<void> {
  const cp = ctx.ports.controlPlane;
  guard(ctx);
  if (state.lastReturn) {
    const ret = state.lastReturn;
    await handleReturn(ctx, state, ret);
    state.lastReturn = null;
    if (state.node === "summarizer") return;
  }
  if (ctx.signal?.aborted) return endWith(state, "cancelled", "Cancelled by the user.");

  let todos = await cp.readTodos(state.goalId);
  if (!todos.length) {
    const may = await mayCallModel(ctx, state);
    if (!may.ok) return endWith(state, "waiting", `cannot plan: ${may.reason}`);
    const objective = await cp.getGoal(state.goalId);
    const asked = await askPlanner(ctx, state, planMessages(state.goal, objective?.bounds ?? []), PlanReplySchema, PLAN_JSON_SCHEMA, "plan");
    // Without a readable plan the goal itself is the one todo: the executor can still work on it.
    const plan = asked.reply ?? { plan: `Do the goal on the phone: ${state.goal}`, todos: [{ title: state.goal, kind: "executor" as const, inputs: [], outputs: [] }] };
    state.plan = plan.plan;
    const n = state.plannerCalls;
    todos = await cp.replanTodos({
      goalId: state.goalId,
      idempotencyKey: `${state.runId}:plan`,
      reason: "initial plan",
      ops: plan.todos.map((t, i) => ({ op: "insert" as const, todo: toDraft(t, state.runId, n, i) })),
    });
    await cp.appendEvidence({ idempotencyKey: `${state.runId}:plan`, kind: "validation", goalId: state.goalId, runId: state.runId, summary: `plan: ${todos.length} todos`, data: { plan: plan.plan, todos: todos.map((t) => ({ id: t.todoId, title: t.title, kind: t.kind })) } });
    await spendPlanner(ctx, state, "plan", asked.tokens, asked.microUsd);
  }

  for (;;) {
    guard(ctx);
    const next = todos.find((t) => OPEN.includes(t.status));
    if (!next) {
      const blocked = todos.filter((t) => t.status === "blocked");
      if (blocked.length) return endWith(state, "blocked", blocked.map((t) => `${t.title}: ${t.waitReason ?? "blocked"}`).join("; "));
      return endWith(state, "completed", "all todos done");
    }
    if (next.kind === "host") {
      const inputs = readInputs(next.inputs, state.blackboard, next.title);
      if (!inputs.ok) {
        await cp.recordTurnResult({ idempotencyKey: `${state.runId}:host:${next.todoId}:inputs`, goalId: state.goalId, todoId: next.todoId, result: "validation_failed", summary: inputs.error.message, reason: inputs.error.message, evidenceIds: [] });
        state.blocked.push(inputs.error.message);
        return endWith(state, "blocked", inputs.error.message);
      }
      const may = await mayCallModel(ctx, state);
      if (!may.ok) return endWith(state, "waiting", `cannot answer host todo: ${may.reason}`);
      const asked = await askPlanner(ctx, state, hostMessages(state.goal, next, inputs.value), HostReplySchema, HOST_JSON_SCHEMA, "host_answer");
      const reply = asked.reply;
      const outs = reply ? extractOutputs(next.outputs, reply.outputs, [reply.answer], next.title) : null;
      if (!reply || !outs || !outs.ok) {
        const why = !reply ? `The planner could not answer "${next.title}".` : outs && !outs.ok ? outs.error.message : "";
        await cp.recordTurnResult({ idempotencyKey: `${state.runId}:host:${next.todoId}`, goalId: state.goalId, todoId: next.todoId, result: "validation_failed", summary: why, reason: why, evidenceIds: [] });
        await spendPlanner(ctx, state, `host:${next.todoId}`, asked.tokens, asked.microUsd);
        state.blocked.push(why);
        return endWith(state, "blocked", why);
      }
      const ev = await cp.appendEvidence({ idempotencyKey: `${state.runId}:host:${next.todoId}`, kind: "validation", goalId: state.goalId, runId: state.runId, todoId: next.todoId, summary: `host answered: ${next.title}`, data: { answer: reply.answer, outputs: outs.value } });
      await cp.recordTurnResult({ idempotencyKey: `${state.runId}:host:${next.todoId}`, goalId: state.goalId, todoId: next.todoId, result: "validated_completion", summary: reply.answer, outputs: outs.value, evidenceIds: [ev.evidenceId] });
      await spendPlanner(ctx, state, `host:${next.todoId}`, asked.tokens, asked.microUsd);
      Object.assign(state.blackboard, outs.value);
      state.executed.push({ todoId: next.todoId, title: next.title, status: "host", summary: reply.answer });
      state.findings.push(reply.answer);
      todos = await cp.readTodos(state.goalId);
      continue;
    }
    const inputs = readInputs(next.inputs, state.blackboard, next.title);
    if (!inputs.ok) {
      await cp.recordTurnResult({ idempotencyKey: `${state.runId}:inputs:${next.todoId}`, goalId: state.goalId, todoId: next.todoId, result: "validation_failed", summary: inputs.error.message, reason: inputs.error.message, evidenceIds: [] });
      state.blocked.push(inputs.error.message);
      return endWith(state, "blocked", inputs.error.message);
    }
    const lease = await cp.claim({ agentId: state.agentId, goalId: state.goalId, capabilities: ctx.config.capabilities, todoId: next.todoId, ttlMs: ctx.config.leaseTtlMs });
    if (!lease) return endWith(state, "waiting", `"${next.title}" cannot be claimed now (${next.status}${next.waitReason ? `: ${next.waitReason}` : ", held by another agent or not runnable"})`);
    await cp.startTodo(next.todoId, lease);
    state.executor = {
      todoId: next.todoId,
      todoTitle: next.title,
      lease,
      inputs: inputs.value,
      outputsDeclared: next.outputs,
      steps: [],
      samples: [],
      hashes: [],
      sensedAfterAction: true,
      outputs: {},
      answers: [],
      stepCount: 0,
      lastApp: next.appHint ?? "",
      ...(state.retryFeedback ? { feedback: state.retryFeedback } : {}),
    };
    delete state.retryFeedback;
    state.node = "executor";
    return;
  }
}
