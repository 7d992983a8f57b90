// The ask-model effect family: the one seam between the graph's pure transitions (executor, planner, summarizer) and
// a model. A transition asks with messages, a reply schema and a key; the runner performs the ask here and feeds the
// answer back — the reply's text and usage, or the failure's code — as the transition's next input. Retries, usage
// evidence for direct endpoints and the device-loss abort are callModel's (graph/effects.ts). Model adapters (how a
// model family's prompt is rendered and its reply parsed) plug in at this seam: nothing else calls a model.
import type { Action } from "../../actions/schema.ts";
import type { ChatMessage, EvidenceInput, LeaseRef, ModelRequest, ModelRole } from "../../ports.ts";
import { callModel } from "../effects.ts";
import { ADAPTER_IDS, DEFAULT_ADAPTER, adapterFor, imageSizeFor, parseReply } from "../../model/adapters/index.ts";
import type { InputEffect, Observation } from "../executor.ts";
import type { ExecutorRunState, RunCommon, RunContext } from "../state.ts";
import type { StepRecords } from "./step-record.ts";
import type { StepTimings } from "./timings.ts";

/** What asking a model gives a transition: the reply, or why there is none (with what the attempts used). */
export type ModelAnswer = Extract<Observation, { type: "replied" | "model_failed" }>;

/** One ask, as a transition's effect states it. */
export interface ModelAsk {
  role: ModelRole;
  messages: ChatMessage[];
  /** Structured output, where the model's language has one. */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  tools?: ModelRequest["tools"];
  key: string;
  todoId?: string;
  lease?: LeaseRef;
  stepIndex?: number;
}

const emptyTotals = (): RunCommon["totals"] => ({ steps: 0, modelCalls: 0, inputTokens: 0, outputTokens: 0, microUsd: 0, promptTokensCounted: 0 });

/**
 * Asks the model. `modelMs` is the time the model took (every attempt's, for a failure), `promptTokens` the prompt's
 * counted size. `recordUsage` writes a direct endpoint's usage evidence (by default at once).
 */
export async function askModel(
  ctx: RunContext,
  run: { goalId: string; runId: string },
  ask: ModelAsk,
  recordUsage?: (e: EvidenceInput) => Promise<unknown>,
): Promise<{ answer: ModelAnswer; modelMs: number; promptTokens: number }> {
  const usage = emptyTotals();
  const started = ctx.ports.clock.monotonic();
  const r = await callModel(ctx, run, ask, usage, recordUsage);
  if (!r.ok) return { answer: { type: "model_failed", code: r.error.code, message: r.error.message, usage }, modelMs: ctx.ports.clock.monotonic() - started, promptTokens: 0 };
  return { answer: { type: "replied", text: r.value.response.text, usage }, modelMs: r.value.modelMs, promptTokens: r.value.promptTokens };
}

/**
 * The executor's ask: the step's model time, prompt size and (for the executor role) raw reply are counted into its
 * figures, a direct endpoint's usage evidence goes out with the step's next record, and a phone lost while the model
 * was asked is a failed sense.
 */
export async function askForStep(ctx: RunContext, state: ExecutorRunState, e: Extract<InputEffect, { type: "ask_model" }>, records: StepRecords, timings: StepTimings): Promise<Observation> {
  const role = e.role ?? "executor";
  // The executor model's adapter (its `adapter` setting): phoneloop asks with the transition's own messages; another
  // renders the step's inputs in its family's format, and its reply is read here — as one action in the product's
  // language (points in 0–1000, unrounded, so they land on the device pixels the adapter mapped) or its rejection.
  const setting = role === "executor" ? ctx.ports.models.executor.adapter : undefined;
  const adapter = setting && setting.id !== DEFAULT_ADAPTER && e.prompt ? adapterFor(setting.id, setting.version) : null;
  if (setting && setting.id !== DEFAULT_ADAPTER && !adapter)
    return { type: "model_failed", code: "BAD_REQUEST", message: `The executor's model adapter "${setting.id}${setting.version ? ` ${setting.version}` : ""}" is not one the runtime has (${ADAPTER_IDS.join(", ")}); pick one in the model settings.`, usage: emptyTotals() };
  const ask: ModelAsk = adapter
    ? { role, messages: adapter.messages(e.prompt!), ...(adapter.jsonSchema ? { jsonSchema: adapter.jsonSchema } : {}), ...(adapter.tools ? { tools: adapter.tools } : {}), key: e.key, todoId: state.executor.todoId, lease: e.lease, stepIndex: e.stepIndex }
    : { role, messages: e.messages, jsonSchema: e.jsonSchema, key: e.key, todoId: state.executor.todoId, lease: e.lease, stepIndex: e.stepIndex };
  const { answer, modelMs, promptTokens } = await askModel(ctx, state, ask, async (usageEvidence) => {
    // The usage evidence need not precede the model's reply: it goes out with the step's next record.
    records.evidence(usageEvidence);
  });
  timings.modelMs += modelMs;
  if (answer.type === "model_failed") return answer.code === "DEVICE_LOST" ? { type: "sense_failed", lost: true, message: answer.message } : answer;
  if (role === "executor") timings.replies.push(answer.text.slice(0, 4000));
  timings.promptTokens = Math.max(timings.promptTokens, promptTokens);
  if (!adapter) return answer;
  const image = e.prompt!.image;
  const read = parseReply(adapter, answer.text, { device: e.prompt!.screen, image: imageSizeFor(adapter.descriptor.image, { width: image.width, height: image.height }) });
  if (!read.ok) return { ...answer, rejection: read.error };
  const action = inTenths(read.actions[0]!.action);
  return { ...answer, text: JSON.stringify(action), action };
}

/**
 * The adapter's action with its 0–1000 points to a tenth: on any screen under 10,000 px a tenth moves a point less
 * than half a pixel, so it still lands on the device pixel the adapter mapped, and the history reads "(610.2, 532.1)".
 */
function inTenths(action: Action): Action {
  const t = (v: number) => Math.round(v * 10) / 10;
  const a = { ...action } as Action & { x?: number; y?: number };
  if (a.x !== undefined && a.y !== undefined) {
    a.x = t(a.x);
    a.y = t(a.y);
  }
  if (a.type === "drag") return { ...a, from: { x: t(a.from.x), y: t(a.from.y) }, to: { x: t(a.to.x), y: t(a.to.y) } };
  return a;
}
