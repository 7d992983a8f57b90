// "Test connection" for the model settings: one tiny chat completion per role, with that role's endpoint (its own,
// else the shared one), key and model, so an admin learns at once whether runs will reach their models. What comes back never carries the key
// or the endpoint's URL (the proxy's `scrub`).
import { referenceCompletion, REFERENCE_POLICY_MODEL } from "@phoneloop/reference-policy";
import { endpointUrl, MODEL_ROLES, type ModelRole, type ModelUpstream, type RoleUpstream } from "./model-settings.ts";
import { endpointHeaders, scrub } from "./model-proxy.ts";

export interface RoleConnection {
  role: ModelRole;
  ok: boolean;
  model: string | null;
  /** Whether the role was tested against an endpoint of its own (false: the shared endpoint). */
  ownEndpoint: boolean;
  latencyMs: number | null;
  /** What happened, in words a person can act on. */
  message: string;
}

const PROBE = [{ role: "user", content: "Reply with the single word OK." }];
const PROBE_TIMEOUT_MS = 20_000;

export async function testModelConnection(upstream: ModelUpstream | null): Promise<{ demo: boolean; roles: RoleConnection[] }> {
  if (!upstream) {
    const started = performance.now();
    referenceCompletion({ messages: PROBE });
    const latencyMs = Math.round(performance.now() - started);
    return {
      demo: true,
      roles: MODEL_ROLES.map((role) => ({ role, ok: true, model: REFERENCE_POLICY_MODEL, ownEndpoint: false, latencyMs, message: "No endpoint is saved: runs use the demo model (the reference policy, not AI). Save an endpoint to use a real model." })),
    };
  }
  const roles = await Promise.all(MODEL_ROLES.map((role) => probe(upstream.roles[role], role)));
  return { demo: false, roles };
}

async function probe(upstream: RoleUpstream, role: ModelRole): Promise<RoleConnection> {
  const { model, ownEndpoint } = upstream;
  if (!model) return { role, ok: false, model: null, ownEndpoint, latencyMs: null, message: `No model is set for the ${role} role: enter one and save.` };
  const started = performance.now();
  try {
    const answer = await fetch(endpointUrl(upstream.baseUrl, "chat/completions"), {
      method: "POST",
      headers: endpointHeaders(upstream),
      body: JSON.stringify({ model, messages: PROBE, max_tokens: 5, temperature: 0 }),
      signal: AbortSignal.timeout(Math.min(upstream.timeoutMs, PROBE_TIMEOUT_MS)),
    });
    const latencyMs = Math.round(performance.now() - started);
    const text = await answer.text();
    if (answer.ok) return { role, ok: true, model, ownEndpoint, latencyMs, message: `${model} answered in ${latencyMs} ms.` };
    const hint =
      answer.status === 401 || answer.status === 403
        ? "check the API key"
        : answer.status === 404
          ? "check the endpoint URL (it usually ends in /v1) and the model name"
          : answer.status === 429
            ? "the endpoint is rate limiting; try again shortly"
            : "check the endpoint and the model name";
    return { role, ok: false, model, ownEndpoint, latencyMs, message: `The endpoint answered ${answer.status} (${scrub(errorText(text), upstream)}): ${hint}.` };
  } catch (e) {
    const timedOut = (e as Error).name === "TimeoutError";
    return {
      role,
      ok: false,
      model,
      ownEndpoint,
      latencyMs: null,
      message: timedOut
        ? `No answer within ${Math.min(upstream.timeoutMs, PROBE_TIMEOUT_MS) / 1000} s: check that the endpoint is up and reachable from the API's machine.`
        : `The endpoint could not be reached (${scrub((e as Error).message, upstream)}): check the URL and that the API's machine can reach it.`,
    };
  }
}

function errorText(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof parsed.error === "string" ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof m === "string") return m.slice(0, 300);
  } catch {
    /* not JSON */
  }
  return text.slice(0, 200) || "no message";
}
