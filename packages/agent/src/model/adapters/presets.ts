// Model presets: the model families people run, each with the adapter (id and published version) that speaks its
// language and default prices. Data, not logic: the Models page lists them and a suite's model profile names one
// (`preset: "<id>"`); both read this list through presetFor. The image rule, frame and token formula are the
// adapter's descriptor's (presetDescriptor), never restated here.
//
// Prices are USD per million input / output tokens (the same number as micro-USD per token). Open models served by
// the user cost 0 here; a hosted model's price is left unset (null: "set your price") — list prices change and
// differ per provider, so none is guessed.
import { adapterFor, type AdapterDescriptor } from "./index.ts";

export type PresetRole = "planner" | "executor" | "summarizer";

export interface ModelPreset {
  /** What a profile's `preset` names, e.g. "ui-tars-1.5-7b". */
  id: string;
  /** The family as people call it, e.g. "UI-TARS-1.5-7B". */
  label: string;
  /** The model name to send, as its published weights are named (an endpoint may serve it under another: edit it). */
  model: string;
  adapter: { id: AdapterDescriptor["id"]; version: string };
  /** USD per million tokens; null: no default, the user sets it. */
  prices: { input: number; output: number } | null;
  /** The roles it suits: a GUI model's own grammar is the executor's; the planner and summarizer speak PhoneLoop JSON. */
  roles: readonly PresetRole[];
}

const SELF_HOSTED = { input: 0, output: 0 };
const EXECUTOR: readonly PresetRole[] = ["executor"];
const ANY_ROLE: readonly PresetRole[] = ["planner", "executor", "summarizer"];

export const MODEL_PRESETS: readonly ModelPreset[] = [
  { id: "phoneloop-json", label: "PhoneLoop JSON (any OpenAI-compatible vision model)", model: "", adapter: { id: "phoneloop", version: "1" }, prices: null, roles: ANY_ROLE },
  { id: "tool-calls", label: "Hosted model with tool calling", model: "", adapter: { id: "tool-calls", version: "1" }, prices: null, roles: EXECUTOR },
  { id: "ui-tars-7b-dpo", label: "UI-TARS-7B-DPO (1.0)", model: "bytedance-research/UI-TARS-7B-DPO", adapter: { id: "ui-tars", version: "1.0" }, prices: SELF_HOSTED, roles: EXECUTOR },
  { id: "ui-tars-1.5-7b", label: "UI-TARS-1.5-7B", model: "ByteDance-Seed/UI-TARS-1.5-7B", adapter: { id: "ui-tars", version: "1.5" }, prices: SELF_HOSTED, roles: EXECUTOR },
  { id: "qwen2.5-vl-7b", label: "Qwen2.5-VL-7B", model: "Qwen/Qwen2.5-VL-7B-Instruct", adapter: { id: "qwen-vl", version: "2.5" }, prices: SELF_HOSTED, roles: EXECUTOR },
  { id: "qwen2.5-vl-72b", label: "Qwen2.5-VL-72B", model: "Qwen/Qwen2.5-VL-72B-Instruct", adapter: { id: "qwen-vl", version: "2.5" }, prices: SELF_HOSTED, roles: EXECUTOR },
  { id: "qwen3-vl", label: "Qwen3-VL", model: "Qwen/Qwen3-VL-8B-Instruct", adapter: { id: "qwen-vl", version: "3" }, prices: SELF_HOSTED, roles: EXECUTOR },
  { id: "autoglm-phone-9b", label: "AutoGLM-Phone-9B", model: "zai-org/AutoGLM-Phone-9B", adapter: { id: "autoglm-phone", version: "9B (2025-12)" }, prices: SELF_HOSTED, roles: EXECUTOR },
  { id: "gui-owl-7b", label: "GUI-Owl-7B", model: "mPLUG/GUI-Owl-7B", adapter: { id: "gui-owl", version: "GUI-Owl-7B/32B (2025-08)" }, prices: SELF_HOSTED, roles: EXECUTOR },
];

export const PRESET_IDS = MODEL_PRESETS.map((p) => p.id) as readonly string[];

/** The preset of an id, or null. */
export function presetFor(id: string): ModelPreset | null {
  return MODEL_PRESETS.find((p) => p.id === id) ?? null;
}

/** The descriptor of the adapter a preset names (its image rule, frame and token formula). */
export function presetDescriptor(preset: ModelPreset): AdapterDescriptor {
  return adapterFor(preset.adapter.id, preset.adapter.version)!.descriptor;
}

/** The preset that names this adapter and model, else the first naming the adapter; null when none does. */
export function presetOf(adapter: { id: string; version?: string } | null | undefined, model?: string | null): ModelPreset | null {
  const id = adapter?.id ?? "phoneloop";
  const same = MODEL_PRESETS.filter((p) => p.adapter.id === id && (adapter?.version === undefined || p.adapter.version === adapter.version));
  return same.find((p) => !!model && p.model === model) ?? same[0] ?? null;
}
