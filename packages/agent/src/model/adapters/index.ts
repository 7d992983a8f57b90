// The model adapters, in one list: the runtime picks one by a role's `adapter` setting (id, and version where an id
// has several), and a Models page can show their descriptors (family, published version, image rule, frame, token
// formula) from ADAPTER_DESCRIPTORS.
import { autoglmPhoneAdapter } from "./autoglm-phone.ts";
import { guiOwlAdapter } from "./gui-owl.ts";
import { phoneloopAdapter } from "./phoneloop.ts";
import type { AdapterDescriptor, ModelAdapter } from "./port.ts";
import { qwenVlAdapter } from "./qwen-vl.ts";
import { toolCallsAdapter } from "./tool-calls.ts";
import { uiTarsAdapter } from "./ui-tars.ts";

export const MODEL_ADAPTERS: readonly ModelAdapter[] = [
  phoneloopAdapter,
  uiTarsAdapter("1.0"),
  uiTarsAdapter("1.5"),
  uiTarsAdapter("2"),
  qwenVlAdapter("2.5"),
  qwenVlAdapter("3"),
  autoglmPhoneAdapter,
  guiOwlAdapter,
  toolCallsAdapter,
];

export const ADAPTER_DESCRIPTORS: readonly AdapterDescriptor[] = MODEL_ADAPTERS.map((a) => a.descriptor);

export const ADAPTER_IDS = [...new Set(ADAPTER_DESCRIPTORS.map((d) => d.id))] as readonly AdapterDescriptor["id"][];

export const DEFAULT_ADAPTER = "phoneloop";

/** The adapter for a setting: its id and, where the id has several published versions, which (default: the newest listed). */
export function adapterFor(id: string, version?: string): ModelAdapter | null {
  const same = MODEL_ADAPTERS.filter((a) => a.descriptor.id === id);
  if (!same.length) return null;
  if (version === undefined) return same.at(-1)!;
  return same.find((a) => a.descriptor.version === version) ?? null;
}

/** A role's `adapter` setting: an adapter's id and, where it has several published versions, which. */
export interface AdapterSetting {
  id: string;
  version?: string;
}

/**
 * The one reading of a role's adapter setting, for every place a person writes one (a suite's model profile, the
 * headless agent's --executor-adapter): `{ id, version }`, or the text "id" / "id@version"; an id or a version the
 * runtime does not have is refused with the list to pick from.
 */
export function readAdapterSetting(written: string | AdapterSetting): { ok: true; setting: AdapterSetting } | { ok: false; message: string } {
  const at = typeof written === "string" ? written.indexOf("@") : -1;
  const id = (typeof written === "string" ? (at < 0 ? written : written.slice(0, at)) : written.id).trim();
  const version = (typeof written === "string" ? (at < 0 ? undefined : written.slice(at + 1)) : written.version)?.trim();
  const known = `the adapters and versions are ${ADAPTER_DESCRIPTORS.map((d) => `${d.id} ${d.version}`).join(", ")}`;
  if (!MODEL_ADAPTERS.some((a) => a.descriptor.id === id)) return { ok: false, message: `there is no model adapter "${id}"; ${known}` };
  if (version !== undefined && !adapterFor(id, version)) return { ok: false, message: `the adapter ${id} has no published version "${version}"; ${known}` };
  return { ok: true, setting: { id, ...(version !== undefined ? { version } : {}) } };
}

export { parseReply, type AdapterDescriptor, type AdapterInput, type AdapterReply, type DeviceAction, type ModelAdapter, type ReplyScreen } from "./port.ts";
export { toDevice, fromDevice, imageSizeFor, smartResize, describeFrame, describeImageRule, type CoordinateFrame, type ImageRule } from "./frame.ts";
export { MODEL_PRESETS, PRESET_IDS, presetFor, presetDescriptor, presetOf, type ModelPreset, type PresetRole } from "./presets.ts";
