// The model proxy for runs in a browser tab: the tab's `openai` client points at
// `${api}/model/<role>/v1` with no real key; the API adds the key (which never reaches the browser), picks the
// role's model, refuses when the goal may not run (quota, pause), forwards to the OpenAI-compatible endpoint,
// and records usage and cost as `model_call` evidence.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { appendEvidence, shouldRun, type Db } from "@phoneloop/state";

export const MODEL_PROXY_PATH = "/model";
export const MODEL_ROLES = ["planner", "executor", "summarizer"] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** Headers a runner sends so a call is metered against its goal and run. */
export const METER_HEADERS = { goal: "x-phoneloop-goal", run: "x-phoneloop-run", step: "x-phoneloop-step", agent: "x-phoneloop-agent" } as const;

export interface ModelUpstream {
  /** OpenAI-compatible base URL, e.g. https://…/v1 (the proxy appends /chat/completions). */
  baseUrl: string;
  apiKey: string;
  /** The model each role uses; a role left out uses the model the request names. */
  models: Partial<Record<ModelRole, string>>;
  microUsdPerInputToken: number;
  microUsdPerOutputToken: number;
  timeoutMs: number;
}

const MAX_BODY_BYTES = 24 * 1024 * 1024;

export async function handleModelProxy(req: IncomingMessage, res: ServerResponse, db: Db, upstream: ModelUpstream | null): Promise<void> {
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  const match = /^\/model\/([a-z]+)\/v1\/chat\/completions$/.exec(path);
  const role = match?.[1] as ModelRole | undefined;
  if (!role || !MODEL_ROLES.includes(role)) {
    return fail(res, 404, `No model route ${path}. Use ${MODEL_PROXY_PATH}/<${MODEL_ROLES.join("|")}>/v1/chat/completions.`);
  }
  if (req.method !== "POST") return fail(res, 405, "The model proxy takes POST chat completions only.");
  if (!upstream) {
    return fail(res, 503, "No model endpoint is configured on the API. Set MODEL_BASE_URL and MODEL_API_KEY where the API runs, then restart it.");
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse((await readBody(req)).toString("utf8")) as Record<string, unknown>;
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error("not an object");
  } catch (e) {
    return fail(res, 400, `The request body is not a JSON chat completion request (${(e as Error).message}).`);
  }
  if (body.stream) return fail(res, 400, "The model proxy does not stream; send the request with stream: false.");

  const header = (name: string) => {
    const v = req.headers[name];
    return typeof v === "string" && v.trim() ? v.trim() : undefined;
  };
  const goalId = header(METER_HEADERS.goal);
  const agentId = header(METER_HEADERS.agent);
  const runId = header(METER_HEADERS.run);
  const stepText = header(METER_HEADERS.step);
  const stepIndex = stepText !== undefined && /^\d+$/.test(stepText) ? Number(stepText) : undefined;

  if (goalId && agentId) {
    const verdict = await shouldRun(db, { goalId, agentId }).catch((e: Error) => ({ decision: "error" as const, message: e.message }));
    if (verdict.decision === "error") return fail(res, 400, verdict.message);
    // Throttled may pass soon (429, retryable); paused, exhausted or waiting on a gate will not (409).
    if (verdict.decision === "skip") return fail(res, verdict.reason === "throttled" ? 429 : 409, `Goal ${goalId} may not spend now: ${verdict.message}`, verdict.reason);
  }

  const model = upstream.models[role] ?? (typeof body.model === "string" ? body.model : undefined);
  if (!model) return fail(res, 400, `No model is configured for the ${role} role; set MODEL_${role.toUpperCase()} on the API or name one in the request.`);
  const started = performance.now();
  let answer: Response;
  try {
    answer = await fetch(`${upstream.baseUrl.replace(/\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${upstream.apiKey}` },
      body: JSON.stringify({ ...body, model }),
      signal: AbortSignal.timeout(upstream.timeoutMs),
    });
  } catch (e) {
    const timedOut = (e as Error).name === "TimeoutError";
    return fail(
      res,
      timedOut ? 504 : 502,
      timedOut
        ? `The model endpoint did not answer within ${upstream.timeoutMs} ms; try again, or raise MODEL_TIMEOUT_MS.`
        : `The model endpoint at ${upstream.baseUrl} could not be reached (${(e as Error).message}); check MODEL_BASE_URL.`,
    );
  }
  const text = await answer.text();
  const latencyMs = Math.round(performance.now() - started);
  if (!answer.ok) {
    // The endpoint's own error (rate limit, bad request…) goes back as it came, so the client's retry logic applies.
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" }).end(text);
    return;
  }
  let usage = { inputTokens: 0, outputTokens: 0 };
  try {
    const u = (JSON.parse(text) as { usage?: { prompt_tokens?: number; completion_tokens?: number } }).usage;
    usage = { inputTokens: u?.prompt_tokens ?? 0, outputTokens: u?.completion_tokens ?? 0 };
  } catch {
    /* the client reports an unparseable answer itself */
  }
  const microUsd = Math.round(usage.inputTokens * upstream.microUsdPerInputToken + usage.outputTokens * upstream.microUsdPerOutputToken);
  if (goalId) {
    await appendEvidence(db, {
      goalId,
      ...(runId ? { runId } : {}),
      ...(stepIndex !== undefined ? { stepIndex } : {}),
      ...(agentId ? { agentId } : {}),
      kind: "model_call",
      summary: `${role} call to ${model}: ${usage.inputTokens} in, ${usage.outputTokens} out, ${microUsd} µ$`,
      data: { role, model, ...usage, microUsd, latencyMs, via: "api" },
      idempotencyKey: `model:${randomUUID()}`,
    });
  }
  res
    .writeHead(200, {
      "content-type": "application/json",
      "x-phoneloop-input-tokens": String(usage.inputTokens),
      "x-phoneloop-output-tokens": String(usage.outputTokens),
      "x-phoneloop-micro-usd": String(microUsd),
    })
    .end(text);
}

function fail(res: ServerResponse, status: number, message: string, code?: string): void {
  // OpenAI's error shape, so the `openai` client surfaces the message as it is.
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: { message, type: "phoneloop_proxy", code: code ?? null } }));
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
