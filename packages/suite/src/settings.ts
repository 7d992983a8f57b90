// What a suite run's figures depend on besides its tasks, seeds and perturbations, as recorded with the run: per
// role the model, the endpoint (without credentials or query), the model adapter and the version it follows, the
// sampling as sent, the output budget, structured output and image detail; and the prompts' fingerprint. Read off
// the same ModelsInit the attempts run with, so what is recorded is what was sent.
import { DEFAULT_ADAPTER, MAX_OUTPUT_TOKENS, adapterFor, type ModelsInit, type RoleModelInit } from "@phoneloop/agent";
import { promptFingerprint } from "@phoneloop/agent/node";
import type { SuiteRoleSettings, SuiteSettings } from "@phoneloop/state/domain";

/** The model adapter a role speaks and the published version it follows (the product's own language, 1, by default). */
function adapterOf(init: Pick<RoleModelInit, "adapter">): { adapter: string; adapterVersion: string } {
  const a = adapterFor(init.adapter?.id ?? DEFAULT_ADAPTER, init.adapter?.version);
  return a ? { adapter: a.descriptor.id, adapterVersion: a.descriptor.version } : { adapter: init.adapter?.id ?? DEFAULT_ADAPTER, adapterVersion: init.adapter?.version ?? "unknown" };
}
/** The temperature the runtime asks for on every call unless the endpoint pins its own. */
const RUNTIME_TEMPERATURE = 0;

/** An endpoint URL as recorded: no user, password, query or fragment (a key never leaves the runner). */
export function recordedEndpoint(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    url.username = "";
    url.password = "";
    url.search = "";
    url.hash = "";
    return url.toString();
  } catch {
    return "(not a URL)";
  }
}

function roleSettings(init: RoleModelInit, role: "executor" | "planner" | "summarizer"): SuiteRoleSettings {
  return {
    model: init.model,
    endpoint: recordedEndpoint(init.baseURL),
    // Only the executor's call goes through its adapter; the planner and summarizer speak the product's language.
    ...adapterOf(role === "executor" ? init : {}),
    temperature: init.sampling?.temperature ?? RUNTIME_TEMPERATURE,
    topP: init.sampling?.topP ?? null,
    seed: init.sampling?.seed ?? null,
    maxOutputTokens: init.maxOutputTokens ?? MAX_OUTPUT_TOKENS[role],
    structuredOutput: init.structuredOutput ?? "auto",
    imageDetail: init.imageDetail ?? "high",
  };
}

/** The settings of a suite run whose attempts use these models (planner defaults to the executor's, summarizer to the planner's). */
export function suiteSettingsOf(models: ModelsInit): SuiteSettings {
  const planner = models.planner ?? models.executor;
  return {
    prompts: promptFingerprint(),
    roles: {
      executor: roleSettings(models.executor, "executor"),
      planner: roleSettings(planner, "planner"),
      summarizer: roleSettings(models.summarizer ?? planner, "summarizer"),
    },
  };
}
