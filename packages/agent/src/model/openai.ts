// The Model port over an OpenAI-compatible endpoint, through the `openai` package. In the tab, baseURL is the
// API's model proxy path (keys stay on the server; the API meters tokens and cost); headless, any endpoint.
import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ChatMessage, Clock, Model, ModelError, ModelRequest, ModelResponse, ModelRole, Result } from "../ports.ts";
import { systemClock } from "../ports.ts";
import { countRequestTokens, countTextTokens } from "./tokens.ts";

export interface Price {
  /** USD per million input tokens (equals micro-USD per token). */
  inputPerMTok: number;
  outputPerMTok: number;
}

/**
 * Output budget per role when a request names none: an executor replies with one action (room left for a short
 * reasoning block), a guard with one verdict; planner and summarizer write plans and reports.
 */
export const MAX_OUTPUT_TOKENS: Record<ModelRole, number> = { executor: 1024, guard: 256, planner: 4096, summarizer: 4096 };

/** Sampling parameters sent with every call of an endpoint (OpenAI chat-completions names: temperature, top_p, seed). */
export interface SamplingSettings {
  temperature?: number;
  topP?: number;
  seed?: number;
}

export interface OpenAIModelInit {
  baseURL: string;
  /** In the browser this is a session token for the API proxy, never a provider key. Default "none". */
  apiKey?: string;
  model: string;
  /** "auto" (default): JSON-schema output, downgraded to plain text once the endpoint rejects it. */
  structuredOutput?: "auto" | "json_schema" | "json_object" | "none";
  price?: Price;
  /** Per-call timeout, ms (default 60 000). A timeout is a result: code "TIMEOUT". */
  timeoutMs?: number;
  imageDetail?: "high" | "low" | "auto";
  defaultHeaders?: Record<string, string>;
  fetch?: typeof fetch;
  clock?: Clock;
  /** Overrides MAX_OUTPUT_TOKENS for every role this endpoint serves (e.g. a reasoning model that thinks long). */
  maxOutputTokens?: number;
  /**
   * Sampling settings this endpoint's calls always use (a suite's model profile pins them so its figures can be
   * reproduced); a field left out keeps the runtime's choice (temperature 0) or the endpoint's default.
   */
  sampling?: SamplingSettings;
  /** Whether the endpoint records usage as model_call evidence itself; default: true for the API's model proxy path. */
  recordsUsage?: boolean;
}

/** The API's model proxy serves `<api>/model/<role>/v1` and records every call it relays. */
export const isModelProxyUrl = (baseURL: string): boolean => /\/model\/[a-z]+\/v1\/?$/.test(baseURL);

function toOpenAIMessages(messages: ChatMessage[], detail: "high" | "low" | "auto"): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    if (typeof m.content === "string" || m.role !== "user") {
      const text = typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
      return { role: m.role, content: text } as ChatCompletionMessageParam;
    }
    return {
      role: "user",
      content: m.content.map((p) =>
        p.type === "text" ? { type: "text" as const, text: p.text } : { type: "image_url" as const, image_url: { url: `data:${p.mime};base64,${p.base64}`, detail } },
      ),
    };
  });
}

/** The proxy's own message (the client's prefixes the status). */
function proxyMessage(e: InstanceType<typeof OpenAI.APIError>): string {
  const m = (e.error as { message?: unknown } | undefined)?.message;
  return typeof m === "string" && m ? m : e.message;
}

function modelError(e: unknown): ModelError {
  if (e instanceof OpenAI.APIUserAbortError) return { code: "ABORTED", message: "The model call was cancelled." };
  if (e instanceof OpenAI.APIConnectionTimeoutError) return { code: "TIMEOUT", message: "The model did not answer within its timeout.", retryable: true };
  if (e instanceof OpenAI.APIConnectionError) return { code: "NETWORK", message: `Could not reach the model endpoint: ${e.message}`, retryable: true };
  if (e instanceof OpenAI.APIError) {
    const status = e.status ?? 0;
    if (status === 429) return { code: "RATE_LIMITED", status, message: `The model endpoint is rate limiting (429); retrying later. It said: ${e.message}`, retryable: true };
    if (status >= 500) return { code: "SERVER_ERROR", status, message: `The model endpoint failed (${status}): ${e.message}`, retryable: true };
    // The API's model proxy answers 409 QUOTA_EXCEEDED when the quota will not hold the call (its message says what
    // is left and what to do): the quota ends the turn, as an exhausted one does. Any other 409 is the state core
    // refusing the spend (the goal paused, a gate waiting, the run no longer running): not the model's failure —
    // the runtime asks the core what to do.
    if (status === 409 && e.code === "QUOTA_EXCEEDED") return { code: "QUOTA_EXCEEDED", status, message: proxyMessage(e) };
    if (status === 409) return { code: "SPEND_REFUSED", status, message: `The state core refused this model call: ${e.message}` };
    if (status === 401 || status === 403) return { code: "AUTH", status, message: `The model endpoint refused the credentials (${status}); check the API key or session.` };
    return { code: "BAD_REQUEST", status, message: `The model endpoint rejected the request (${status}): ${e.message}` };
  }
  return { code: "NETWORK", message: e instanceof Error ? e.message : String(e), retryable: true };
}

export function createOpenAIModel(init: OpenAIModelInit): Model {
  const clock = init.clock ?? systemClock;
  const client = new OpenAI({
    baseURL: init.baseURL,
    apiKey: init.apiKey ?? "none",
    maxRetries: 0, // the runtime retries with its own clock and budget
    timeout: init.timeoutMs ?? 60_000,
    dangerouslyAllowBrowser: true, // the browser only ever holds a proxy session token
    ...(init.defaultHeaders ? { defaultHeaders: init.defaultHeaders } : {}),
    ...(init.fetch ? { fetch: init.fetch } : {}),
  });
  let mode = init.structuredOutput ?? "auto";

  async function call(req: ModelRequest, format: "json_schema" | "json_object" | "none"): Promise<Result<ModelResponse, ModelError>> {
    const params: ChatCompletionCreateParamsNonStreaming = {
      model: init.model,
      messages: toOpenAIMessages(req.messages, init.imageDetail ?? "high"),
      max_tokens: req.maxOutputTokens ?? init.maxOutputTokens ?? MAX_OUTPUT_TOKENS[req.role],
      ...(init.sampling?.temperature !== undefined ? { temperature: init.sampling.temperature } : req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(init.sampling?.topP !== undefined ? { top_p: init.sampling.topP } : {}),
      ...(init.sampling?.seed !== undefined ? { seed: init.sampling.seed } : {}),
    };
    if (req.jsonSchema && format === "json_schema")
      params.response_format = { type: "json_schema", json_schema: { name: req.jsonSchema.name, schema: req.jsonSchema.schema, strict: false } };
    else if (req.jsonSchema && format === "json_object") params.response_format = { type: "json_object" };
    if (req.tools?.length) {
      params.tools = req.tools;
      params.tool_choice = "required";
    }
    const started = clock.monotonic();
    try {
      const res = await client.chat.completions.create(params, req.signal ? { signal: req.signal } : {});
      const message = res.choices[0]?.message;
      // A model answering with tool calls: the calls as JSON text, for the tool-calls adapter to read.
      const text = replyTextOf(message);
      // What the endpoint does not report is counted with the tokenizer (the prompt as sent, the reply's text) and
      // marked estimated, so an endpoint that omits usage is still spent against the quota.
      const reported = { input: res.usage?.prompt_tokens, output: res.usage?.completion_tokens };
      const estimated = typeof reported.input !== "number" || typeof reported.output !== "number";
      const inputTokens = typeof reported.input === "number" ? reported.input : countRequestTokens(req.messages, init.imageDetail === "low" ? "openai-low" : "openai-high").total;
      const outputTokens = typeof reported.output === "number" ? reported.output : countTextTokens(text);
      const price = init.price ?? { inputPerMTok: 0, outputPerMTok: 0 };
      return {
        ok: true,
        value: {
          text,
          model: res.model || init.model,
          usage: { inputTokens, outputTokens, microUsd: Math.round(inputTokens * price.inputPerMTok + outputTokens * price.outputPerMTok), ...(estimated ? { estimated: true as const } : {}) },
          latencyMs: clock.monotonic() - started,
          structured: Boolean(req.jsonSchema) && format === "json_schema",
        },
      };
    } catch (e) {
      return { ok: false, error: modelError(e) };
    }
  }

  return {
    name: init.model,
    recordsUsage: init.recordsUsage ?? isModelProxyUrl(init.baseURL),
    async complete(req) {
      const first = mode === "auto" ? "json_schema" : mode;
      const r = await call(req, req.jsonSchema ? first : "none");
      if (!r.ok && r.error.code === "BAD_REQUEST" && req.jsonSchema && mode === "auto") {
        // The endpoint does not take response_format: remember it and fall back to tolerant parsing.
        mode = "none";
        return call(req, "none");
      }
      return r;
    },
  };
}

/** A chat completion's answer as text: its content, or — a model answering with tool calls — the calls as {"tool_calls":[…]} JSON, for the tool-calls adapter to read. */
export function replyTextOf(message: { content?: string | null; tool_calls?: unknown[] } | undefined): string {
  return message?.tool_calls?.length ? JSON.stringify({ tool_calls: message.tool_calls }) : (message?.content ?? "");
}
