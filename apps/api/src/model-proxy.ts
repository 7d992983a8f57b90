// The model proxy for runs in a browser tab: the tab's `openai` client points at `${api}/model/<role>/v1` with
// its agent token as the key; the API checks that the agent has a running run whose goal may run now (pause,
// gates), takes the role's endpoint, key, model and prices from the workspace's model settings (a role's own
// endpoint, else the shared one; no key ever reaches a browser), and asks the state core to reserve the call's
// worst case (its prompt's tokens counted before the call, its reply budget capped by what the quota leaves, at the
// role's prices): a call the core will not reserve is a 409 naming the quota, and is never forwarded. The call goes
// out with that reply budget; its real usage is settled after it answers (the rest of the reservation is free
// again; a failed call releases all of it) and recorded as `model_call` evidence in the settle's transaction, so a
// proxied call is metered once, here (the runtime spends none of it). An answer without usage is counted with the
// tokenizer — its prompt as counted before the call, its reply's text — priced at the role's prices and marked
// `estimated`.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isStateError, reserveQuota, settleQuota, shouldRun, type Db, type EvidenceDataInput, type QuotaReservationView, type ReserveQuotaInput } from "@phoneloop/state";
import type { Principal } from "./auth/principal.ts";
import { holdsNow } from "./permissions.ts";
import { handleReferencePolicyRequest, referenceCompletion, REFERENCE_POLICY_LABEL, REFERENCE_POLICY_MODEL } from "@phoneloop/reference-policy";
import { endpointUrl, MODEL_ROLES, type ModelRole, type ModelSettingsStore, type RoleUpstream } from "./model-settings.ts";
import { countPromptTokens, countReplyTokens } from "./prompt-tokens.ts";

export { MODEL_ROLES, type ModelRole } from "./model-settings.ts";
export const MODEL_PROXY_PATH = "/model";
/** Where the API serves the reference policy as an OpenAI-compatible endpoint of its own. */
export const REFERENCE_POLICY_PATH = "/reference-policy";

/** Headers a runner sends so a call is metered against its run (and the run's step). */
export const METER_HEADERS = { run: "x-phoneloop-run", step: "x-phoneloop-step" } as const;

export interface ModelProxyDeps {
  db: Db;
  principalOf(): Promise<Principal>;
  settings: ModelSettingsStore;
}

const MAX_BODY_BYTES = 24 * 1024 * 1024;
/** A reservation outlives the call's timeout by this much; then it expires (its API process died mid-call). */
const RESERVATION_GRACE_MS = 60_000;

export async function handleModelProxy(req: IncomingMessage, res: ServerResponse, deps: ModelProxyDeps): Promise<void> {
  const { db } = deps;
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  const match = /^\/model\/([a-z]+)\/v1\/chat\/completions$/.exec(path);
  const role = match?.[1] as ModelRole | undefined;
  if (!role || !MODEL_ROLES.includes(role)) {
    return fail(res, 404, `No model route ${path}. Use ${MODEL_PROXY_PATH}/<${MODEL_ROLES.join("|")}>/v1/chat/completions.`, "NOT_FOUND");
  }
  if (req.method !== "POST") return fail(res, 405, "The model proxy takes POST chat completions only.", "METHOD_NOT_ALLOWED");

  const principal = await deps.principalOf();
  if (principal.kind === "anonymous") {
    return fail(res, 401, "The model proxy needs an agent token as the API key (Authorization: Bearer plt_…); a tab gets one when its run starts.", "UNAUTHORIZED");
  }
  if (principal.kind !== "agent") {
    return fail(res, 403, "Only an agent with a running run may call the model proxy; start the run from a tab or the headless agent.", "FORBIDDEN");
  }
  if (!holdsNow(principal, "run")) {
    return fail(res, 403, `Calling the model needs the "run" permission; this agent token acts for the member who issued it, whose role here is now ${principal.issuerRole}. Ask an admin to change that role, or to re-own the token (agentToken.reassign).`, "FORBIDDEN");
  }
  if (!principal.agentId) return fail(res, 403, "This agent token has not registered an agent yet: register, start a run, then call the model.", "FORBIDDEN");

  const header = (name: string) => {
    const v = req.headers[name];
    return typeof v === "string" && v.trim() ? v.trim() : undefined;
  };
  // Every call is metered against a run: the one named, else the agent's only running run.
  let runId = header(METER_HEADERS.run);
  if (!runId) {
    const running = await db.run.findMany({ where: { agentId: principal.agentId, status: "running" }, select: { id: true }, take: 2 });
    if (running.length === 0) return fail(res, 409, "This agent has no running run; start or resume a run before calling the model.", "RUN_NOT_RUNNING");
    if (running.length > 1) return fail(res, 400, `This agent has several running runs: send the ${METER_HEADERS.run} header naming the one this call is for.`, "RUN_REQUIRED");
    runId = running[0]!.id;
  }
  const stepText = header(METER_HEADERS.step);
  const stepIndex = stepText !== undefined && /^\d+$/.test(stepText) ? Number(stepText) : undefined;

  const run = await db.run.findUnique({ where: { id: runId }, include: { goal: { select: { workspaceId: true } } } });
  if (!run || run.goal.workspaceId !== principal.workspaceId) return fail(res, 404, `No run ${runId} in this workspace.`, "NOT_FOUND");
  if (run.agentId !== principal.agentId) return fail(res, 403, `Run ${runId} belongs to another agent; call the model for your own run.`, "FORBIDDEN");
  if (run.status !== "running") return fail(res, 409, `Run ${runId} is ${run.status}; start or resume a run before calling the model.`, "RUN_NOT_RUNNING");

  const verdict = await shouldRun(db, { goalId: run.goalId, agentId: principal.agentId, ...(run.todoId ? { todoId: run.todoId } : {}) });
  // Throttled may pass soon (429, retryable); paused or waiting on a gate will not (409). The quota is the
  // reservation's to decide (below): it refuses with what is left and what to do.
  if (verdict.decision === "skip" && verdict.reason !== "exhausted") {
    return fail(res, verdict.reason === "throttled" ? 429 : 409, `Goal ${run.goalId} may not spend now: ${verdict.message}`, verdict.reason.toUpperCase());
  }

  const upstream = await deps.settings.upstream(principal.workspaceId);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse((await readBody(req)).toString("utf8")) as Record<string, unknown>;
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error("not an object");
  } catch (e) {
    return fail(res, 400, `The request body is not a JSON chat completion request (${(e as Error).message}).`, "INVALID_INPUT");
  }
  if (body.stream) return fail(res, 400, "The model proxy does not stream; send the request with stream: false.", "INVALID_INPUT");

  const meter = { db, runId: run.id, goalId: run.goalId, todoId: run.todoId, agentId: principal.agentId, stepIndex, role, callId: randomUUID() };
  const spendKey = `model:${meter.callId}`;
  const owner = { key: spendKey, goalId: run.goalId, agentId: principal.agentId, runId: run.id, ...(run.todoId ? { todoId: run.todoId } : {}) };
  if (!upstream) {
    // No endpoint configured (a fresh install): the demo model answers — the reference policy, which is no AI and
    // says so in every report, metered and recorded like any model call (at no cost). Its usage is known before it
    // answers: that is what it reserves, and a reservation refused (or too small for its reply) is a 409.
    const completion = referenceCompletion(body);
    const u = completion.usage as { prompt_tokens: number; completion_tokens: number };
    const usage = { inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens };
    const held = await reserve(res, db, { ...owner, inputTokens: usage.inputTokens, maxOutputTokens: Math.max(1, usage.outputTokens), ttlMs: RESERVATION_GRACE_MS });
    if (!held) return;
    if (held.maxOutputTokens !== null && held.maxOutputTokens < usage.outputTokens) {
      await settleQuota(db, { key: spendKey });
      return fail(res, 409, `The quota refuses this model call: its reply needs ${usage.outputTokens} tokens and the quota leaves room for ${held.maxOutputTokens}; an admin can raise the quota (quota.setPolicy).`, "QUOTA_EXCEEDED");
    }
    await settleCall(meter, spendKey, { model: REFERENCE_POLICY_MODEL, usage, microUsd: 0, latencyMs: 0, demo: true });
    return void res.writeHead(200, { "content-type": "application/json", ...usageHeaders(usage, 0) }).end(JSON.stringify(completion));
  }

  const configured = Object.values(upstream.models);
  const asked = typeof body.model === "string" && body.model.trim() ? body.model.trim() : undefined;
  if (asked && !configured.includes(asked)) {
    return fail(res, 400, `The model "${asked}" is not in this workspace's model settings (${configured.join(", ") || "none set"}); leave the model out to use the ${role} role's, or ask an admin to add it.`, "MODEL_NOT_ALLOWED");
  }
  // The role's own endpoint (URL, key, prices) where it has one, else the workspace's shared endpoint.
  const target = upstream.roles[role];
  const model = target.model ?? asked;
  if (!model) return fail(res, 400, `No model is set for the ${role} role in this workspace's model settings; an admin sets one.`, "MODEL_NOT_CONFIGURED");

  // The worst case is reserved before the call: its prompt as counted here, its reply budget as asked (max_tokens or
  // max_completion_tokens), capped by what the quota leaves. A call the core will not reserve is never forwarded.
  const budgets = [body.max_tokens, body.max_completion_tokens].filter((v): v is number => typeof v === "number" && Number.isInteger(v) && v >= 1);
  const promptTokens = await countPromptTokens(body);
  const reservation = await reserve(res, db, {
    ...owner,
    inputTokens: promptTokens,
    ...(budgets.length ? { maxOutputTokens: Math.min(...budgets) } : {}),
    microUsdPerInputToken: target.microUsdPerInputToken,
    microUsdPerOutputToken: target.microUsdPerOutputToken,
    ttlMs: target.timeoutMs + RESERVATION_GRACE_MS,
  });
  if (!reservation) return;
  // The call goes out with the reserved reply budget, in the field the request used (max_tokens when it named none).
  const budget = reservation.maxOutputTokens;
  const forwarded: Record<string, unknown> = { ...body, model };
  if (budget !== null) {
    if (body.max_completion_tokens !== undefined) forwarded.max_completion_tokens = budget;
    if (body.max_tokens !== undefined || body.max_completion_tokens === undefined) forwarded.max_tokens = budget;
  }

  const started = performance.now();
  let answer: Response;
  let text: string;
  try {
    answer = await fetch(endpointUrl(target.baseUrl, "chat/completions"), {
      method: "POST",
      headers: endpointHeaders(target),
      body: JSON.stringify(forwarded),
      signal: AbortSignal.timeout(target.timeoutMs),
    });
    text = await answer.text();
  } catch (e) {
    // Nothing answered, nothing spent: the reservation is released.
    await settleQuota(db, { key: spendKey });
    const timedOut = (e as Error).name === "TimeoutError";
    return fail(
      res,
      timedOut ? 504 : 502,
      timedOut
        ? `The ${role} role's model endpoint did not answer within ${target.timeoutMs} ms; try again, or ask an admin to raise the timeout.`
        : `The ${role} role's model endpoint could not be reached (${scrub((e as Error).message, target)}); an admin can check the endpoint in the model settings.`,
      timedOut ? "UPSTREAM_TIMEOUT" : "UPSTREAM_UNREACHABLE",
    );
  }
  const latencyMs = Math.round(performance.now() - started);
  if (!answer.ok) {
    // The endpoint refused or failed the call: it is not charged, and the reservation is released.
    await settleQuota(db, { key: spendKey });
    // The status goes back as it came (the client's retry logic applies); the text only with URLs and the key cut.
    return fail(res, answer.status, `The ${role} role's model endpoint answered ${answer.status}: ${scrub(upstreamMessage(text), target)}`, "UPSTREAM_ERROR");
  }
  const reported = reportedUsage(text);
  // What the answer does not report is counted: its prompt as counted before the call, its reply's text.
  const estimated = reported.inputTokens === null || reported.outputTokens === null;
  const usage = { inputTokens: reported.inputTokens ?? promptTokens, outputTokens: reported.outputTokens ?? (await countReplyTokens(text)) };
  const microUsd = Math.round(usage.inputTokens * target.microUsdPerInputToken + usage.outputTokens * target.microUsdPerOutputToken);
  await settleCall(meter, spendKey, { model, usage, microUsd, latencyMs, demo: false, reserved: { tokens: reservation.tokens, microUsd: reservation.microUsd, maxOutputTokens: budget }, ...(estimated ? { estimated: true } : {}) });
  res.writeHead(200, { "content-type": "application/json", ...usageHeaders(usage, microUsd) }).end(text);
}

const usageHeaders = (usage: { inputTokens: number; outputTokens: number }, microUsd: number) => ({
  "x-phoneloop-input-tokens": String(usage.inputTokens),
  "x-phoneloop-output-tokens": String(usage.outputTokens),
  "x-phoneloop-micro-usd": String(microUsd),
});

/** The core's reservation of a call's worst case, or null once a refusal is answered: 409 naming the quota. */
async function reserve(res: ServerResponse, db: Db, input: ReserveQuotaInput): Promise<QuotaReservationView | null> {
  try {
    return (await reserveQuota(db, input)).reservation;
  } catch (e) {
    if (!isStateError(e) || e.code !== "QUOTA_EXCEEDED") throw e;
    fail(res, 409, `The quota refuses this model call: ${e.message}`, e.code);
    return null;
  }
}

/** The usage an endpoint's answer reports: each count null where it reports none (or the answer is not JSON). */
function reportedUsage(text: string): { inputTokens: number | null; outputTokens: number | null } {
  try {
    const u = (JSON.parse(text) as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }).usage;
    const n = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null);
    return { inputTokens: n(u?.prompt_tokens), outputTokens: n(u?.completion_tokens) };
  } catch {
    return { inputTokens: null, outputTokens: null }; // the client reports an unparseable answer itself
  }
}

interface Meter {
  db: Db;
  runId: string;
  goalId: string;
  todoId: string | null;
  agentId: string;
  stepIndex: number | undefined;
  role: ModelRole;
  callId: string;
}

interface MadeCall {
  model: string;
  usage: { inputTokens: number; outputTokens: number };
  microUsd: number;
  latencyMs: number;
  demo: boolean;
  /** What the call's reservation held (an upstream call), and the reply budget it went out with. */
  reserved?: { tokens: number; microUsd: number; maxOutputTokens: number | null };
  /** Some usage was counted here, not reported by the endpoint. */
  estimated?: boolean;
}

/** Settles a made call's reservation into its spend, and records the call as `model_call` evidence in that transaction. */
async function settleCall(m: Meter, spendKey: string, call: MadeCall): Promise<void> {
  const { usage, microUsd } = call;
  await settleQuota(m.db, {
    key: spendKey,
    spent: { tokens: usage.inputTokens + usage.outputTokens, microUsd },
    evidence: {
      ...(m.stepIndex !== undefined ? { stepIndex: m.stepIndex } : {}),
      summary: `${m.role} call to ${call.demo ? `${call.model} (${REFERENCE_POLICY_LABEL})` : call.model}: ${usage.inputTokens} in, ${usage.outputTokens} out, ${microUsd} µ$${call.estimated ? " (estimated: the endpoint reported no usage)" : ""}`,
      data: {
        role: m.role,
        model: call.model,
        ...usage,
        microUsd,
        latencyMs: call.latencyMs,
        via: "api" as const,
        ...(call.estimated ? { estimated: true as const } : {}),
        ...(call.reserved ? { reserved: call.reserved } : {}),
        ...(call.demo ? { demo: true as const } : {}),
      } satisfies EvidenceDataInput<"model_call">,
      idempotencyKey: `model:${m.callId}`,
    },
  });
}

/**
 * The reference policy at `/reference-policy/v1/chat/completions` for any signed-in caller (a member or an agent
 * token): an OpenAI-compatible endpoint a suite or a headless agent can point at without a provider.
 */
export async function handleReferencePolicyRoute(req: IncomingMessage, res: ServerResponse, deps: Pick<ModelProxyDeps, "principalOf">): Promise<void> {
  const principal = await deps.principalOf();
  if (principal.kind === "anonymous" || principal.kind === "share") {
    return fail(res, 401, "The reference policy needs a member's session or an agent token (Authorization: Bearer plt_…).", "UNAUTHORIZED");
  }
  if (!(await handleReferencePolicyRequest(req, res))) {
    fail(res, 404, `No route ${(req.url ?? "/").split("?")[0]}. Use POST ${REFERENCE_POLICY_PATH}/v1/chat/completions.`, "NOT_FOUND");
  }
}

function upstreamMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof m === "string") return m.slice(0, 500);
  } catch {
    /* not JSON */
  }
  return text.slice(0, 200) || "(no message)";
}

/** The headers of a call to a role's endpoint: its key as the bearer token (none when the endpoint has no key). */
export const endpointHeaders = (target: Pick<RoleUpstream, "apiKey">): Record<string, string> => ({
  "content-type": "application/json",
  ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}),
});

/** Removes what must never leave the API: the key, the endpoint's URL, any URL or query string. */
export function scrub(message: string, upstream: Pick<RoleUpstream, "apiKey" | "baseUrl">): string {
  let out = message;
  for (const secret of [upstream.apiKey, upstream.baseUrl]) if (secret) out = out.split(secret).join("[redacted]");
  return out
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "[url]")
    .replace(/\?\S*=\S*/g, "[query]")
    .replace(/\b(sk|pk|rk|key|token)[-_][A-Za-z0-9_-]{8,}/gi, "[redacted]");
}

function fail(res: ServerResponse, status: number, message: string, code: string): void {
  if (res.headersSent) return;
  // OpenAI's error shape, so the `openai` client surfaces the message as it is.
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: { message, type: "phoneloop_proxy", code } }));
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
