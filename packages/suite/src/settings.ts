// What a suite run's figures depend on besides its tasks, seeds and perturbations, as recorded with the run: per
// role the model, the endpoint (without credentials or query), the model adapter and the version it follows, the
// sampling as sent, the output budget, structured output and image detail; and the prompts' fingerprint. Read off
// the same ModelsInit the attempts run with, so what is recorded is what was sent.
import { MAX_OUTPUT_TOKENS, type ModelsInit, type RoleModelInit } from "@phoneloop/agent";
import { promptFingerprint } from "@phoneloop/agent/node";
import type { SuiteRoleSettings, SuiteSettings } from "@phoneloop/state/domain";

/** The product's own action language (JSON actions, points 0–1000), version 1: what every role speaks today. */
const DEFAULT_ADAPTER = { adapter: "phoneloop", adapterVersion: "1" } as const;
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
    ...DEFAULT_ADAPTER,
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
