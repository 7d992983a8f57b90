// Model profiles: which OpenAI-compatible endpoint and model each role (executor, planner, summarizer) uses, as a
// JSON or YAML file, so suites compare setups by name. Keys never sit in the file: a role names the environment
// variable (`apiKeyEnv`) or the file (`apiKeyFile`) that holds its key. A role may name a model preset
// (`preset: "<id>"`, packages/agent model/adapters/presets.ts — the Models page's list): its model name, the adapter
// its model speaks and its default prices, each overridden by what the role names itself.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { PRESET_IDS, presetFor, readAdapterSetting, type ModelsInit, type PresetRole, type RoleModelInit } from "@phoneloop/agent";

const Role = z.strictObject({
  baseURL: z.url().describe("the endpoint's /v1 URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1"),
  /** May be left out with a preset that names a model. */
  model: z.string().min(1).optional(),
  preset: z.enum(PRESET_IDS as unknown as [string, ...string[]]).optional().describe("a model preset: its model name, adapter and default prices"),
  apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name like OPENAI_API_KEY").optional(),
  apiKeyFile: z.string().min(1).optional().describe("a file holding the key (relative to the profile)"),
  price: z.strictObject({ inputPerMTok: z.number().min(0), outputPerMTok: z.number().min(0) }).optional().describe("USD per million tokens"),
  timeoutMs: z.number().int().min(1000).max(600_000).optional(),
  structuredOutput: z.enum(["auto", "json_schema", "json_object", "none"]).optional(),
  imageDetail: z.enum(["high", "low", "auto"]).optional(),
  /** Sent with every call of this role (recorded with the suite run); left out: temperature 0, the endpoint's top_p. */
  sampling: z
    .strictObject({ temperature: z.number().min(0).max(2).optional(), topP: z.number().gt(0).max(1).optional(), seed: z.number().int().optional() })
    .optional(),
  maxOutputTokens: z.number().int().min(16).max(1_000_000).optional(),
});
export type ProfileRole = z.infer<typeof Role> & { adapter?: { id: string; version?: string } };

/**
 * The executor's model adapter (packages/agent model/adapters), read by the agent's own parser: "ui-tars@1.5" or
 * {id, version}; the planner and summarizer speak the product's language.
 */
const Adapter = z
  .union([z.string().min(1), z.strictObject({ id: z.string().min(1), version: z.string().min(1).optional() })])
  .transform((written, ctx) => {
    const read = readAdapterSetting(written);
    if (read.ok) return read.setting;
    ctx.addIssue({ code: "custom", message: read.message });
    return z.NEVER;
  });

export const ModelProfileSchema = z
  .strictObject({
    name: z.string().min(1).max(200),
    description: z.string().optional(),
    executor: Role.extend({ adapter: Adapter.optional() }),
    /** Defaults to the executor's endpoint. */
    planner: Role.optional(),
    /** Defaults to the planner's. */
    summarizer: Role.optional(),
  })
  .superRefine((p, ctx) => {
    for (const which of ["executor", "planner", "summarizer"] as const) {
      const r = p[which] as ProfileRole | undefined;
      if (!r) continue;
      const preset = r.preset ? presetFor(r.preset) : null;
      if (preset && !preset.roles.includes(which as PresetRole))
        ctx.addIssue({ code: "custom", path: [which, "preset"], message: `the preset ${preset.id} speaks ${preset.adapter.id}, which only the ${preset.roles.join(", ")} may; the ${which} speaks the product's language (e.g. phoneloop-json)` });
      if (preset && r.adapter) ctx.addIssue({ code: "custom", path: [which, "adapter"], message: `the preset ${preset.id} names its adapter (${preset.adapter.id} ${preset.adapter.version}); give a preset or an adapter, not both` });
      if (!r.model && !preset?.model) ctx.addIssue({ code: "custom", path: [which, "model"], message: preset ? `the preset ${preset.id} names no model: give the model your endpoint serves` : "give the model, or a preset that names one" });
    }
  });
export type ModelProfileFile = z.infer<typeof ModelProfileSchema>;

export interface ModelProfile {
  name: string;
  models: ModelsInit;
}

export class ProfileError extends Error {
  readonly code = "MODEL_PROFILE_INVALID";
}

/** Reads a profile file (.json, .yaml or .yml); every problem names the field and what to write instead. */
export function loadModelProfile(path: string, env: Record<string, string | undefined> = process.env): ModelProfile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ProfileError(`cannot read the model profile ${path}: ${(e as Error).message}. Give --model a JSON or YAML file (see packages/suite/README.md).`);
  }
  let raw: unknown;
  try {
    raw = /\.ya?ml$/i.test(path) ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw new ProfileError(`the model profile ${path} is not valid ${/\.ya?ml$/i.test(path) ? "YAML" : "JSON"}: ${(e as Error).message}`);
  }
  return profileOf(raw, path, env);
}

export function profileOf(raw: unknown, source: string, env: Record<string, string | undefined> = process.env): ModelProfile {
  const parsed = ModelProfileSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `  at ${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("\n");
    throw new ProfileError(`the model profile ${source} is invalid:\n${issues}\nA profile names the endpoints: { "name": "…", "executor": { "baseURL": "…/v1", "model": "…", "apiKeyEnv": "OPENAI_API_KEY" }, "planner": {…}, "summarizer": {…} }`);
  }
  const p = parsed.data;
  const role = (r: ProfileRole, which: string): RoleModelInit => {
    let apiKey: string | undefined;
    if (r.apiKeyEnv) {
      apiKey = env[r.apiKeyEnv];
      if (!apiKey) throw new ProfileError(`the model profile ${source} reads the ${which} key from $${r.apiKeyEnv}, which is not set; export it first.`);
    } else if (r.apiKeyFile) {
      const file = resolve(dirname(source), r.apiKeyFile);
      try {
        apiKey = readFileSync(file, "utf8").trim();
      } catch (e) {
        throw new ProfileError(`the model profile ${source} reads the ${which} key from ${file}: ${(e as Error).message}`);
      }
    }
    // The preset's model, adapter (the executor's only) and prices, where the role names none of its own.
    const preset = r.preset ? presetFor(r.preset) : null;
    const adapter = r.adapter ?? (which === "executor" && preset ? preset.adapter : undefined);
    const price = r.price ?? (preset?.prices ? { inputPerMTok: preset.prices.input, outputPerMTok: preset.prices.output } : undefined);
    return {
      baseURL: r.baseURL,
      model: r.model ?? preset!.model,
      ...(apiKey ? { apiKey } : {}),
      ...(price ? { price } : {}),
      ...(r.timeoutMs ? { timeoutMs: r.timeoutMs } : {}),
      ...(r.structuredOutput ? { structuredOutput: r.structuredOutput } : {}),
      ...(r.imageDetail ? { imageDetail: r.imageDetail } : {}),
      ...(r.sampling ? { sampling: r.sampling } : {}),
      ...(r.maxOutputTokens ? { maxOutputTokens: r.maxOutputTokens } : {}),
      ...(adapter ? { adapter: { id: adapter.id, ...(adapter.version ? { version: adapter.version } : {}) } } : {}),
    };
  };
  return {
    name: p.name,
    models: {
      executor: role(p.executor, "executor"),
      ...(p.planner ? { planner: role(p.planner, "planner") } : {}),
      ...(p.summarizer ? { summarizer: role(p.summarizer, "summarizer") } : {}),
    },
  };
}
