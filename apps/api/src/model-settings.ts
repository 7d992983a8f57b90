// Model settings per workspace as the API serves them: read by the model proxy and written by admins through the
// core's modelSettings.set (packages/state: its rules, the row and its Event). Every API key is encrypted at rest
// here (AES-256-GCM under a key derived from PHONELOOP_SECRET_KEY) — the core stores only what this seals — and is
// never returned: views say only whether one is set.
import { ADAPTER_DESCRIPTORS } from "@phoneloop/agent";
import { cleanModelSettings, MODEL_ROLES, modelSettingsNeedCleaning, readModelSettings, setModelSettings, type AdapterSetting, type Db, type ModelRole, type ModelSettingsInput, type StoredModelSettings } from "@phoneloop/state";
import { deriveKey, openSecret, sealSecret } from "./auth/secret-key.ts";

export { MODEL_ROLES, ModelSettingsInput, RoleEndpointInput, endpointUrl, endpointUrlProblem, storedEndpointUrl, type ModelRole } from "@phoneloop/state";

/** A role's own endpoint as people see it: null where the role uses the shared value; the key only as "set or not". */
export interface RoleEndpointView {
  baseUrl: string | null;
  hasApiKey: boolean;
  microUsdPerInputToken: number | null;
  microUsdPerOutputToken: number | null;
}

/** What an admin sees: everything but the keys. */
export interface ModelSettingsView {
  baseUrl: string;
  hasApiKey: boolean;
  models: Partial<Record<ModelRole, string>>;
  microUsdPerInputToken: number;
  microUsdPerOutputToken: number;
  timeoutMs: number;
  /** Only the roles with an endpoint of their own. */
  roles: Partial<Record<ModelRole, RoleEndpointView>>;
  /** The adapter each role's model speaks; a role left out speaks the product's own language (phoneloop). */
  adapters: Partial<Record<ModelRole, AdapterSetting>>;
  updatedAt: Date;
}

/** The endpoint one role's calls go to (inside the API only). */
export interface RoleUpstream {
  /** Whether the role names a URL or key of its own (false: it uses the shared endpoint). */
  ownEndpoint: boolean;
  baseUrl: string;
  apiKey: string;
  model: string | null;
  microUsdPerInputToken: number;
  microUsdPerOutputToken: number;
  timeoutMs: number;
  /** The adapter the role's model speaks; null: the product's own language. */
  adapter: AdapterSetting | null;
}

/** The adapters a role may name: the runtime's list (packages/agent model/adapters). */
const KNOWN_ADAPTERS: readonly AdapterSetting[] = ADAPTER_DESCRIPTORS.map((d) => ({ id: d.id, version: d.version }));

/** What the model proxy uses (inside the API only): the shared endpoint and each role's resolved one. */
export interface ModelUpstream extends Omit<ModelSettingsView, "hasApiKey" | "updatedAt" | "roles" | "adapters"> {
  apiKey: string;
  roles: Record<ModelRole, RoleUpstream>;
}

export interface ModelSettingsStore {
  view(workspaceId: string): Promise<ModelSettingsView | null>;
  upstream(workspaceId: string): Promise<ModelUpstream | null>;
  set(workspaceId: string, input: ModelSettingsInput, updatedBy: string): Promise<ModelSettingsView>;
}

export function modelSettingsStore(db: Db, secretKey: string): ModelSettingsStore {
  const key = deriveKey(secretKey, "model-settings");
  const seal = (plain: string) => sealSecret(key, plain);
  /** A row saved before endpoints were stored as origin + path is cleaned on its first read (the core's modelSettings.clean). */
  const read = async (workspaceId: string): Promise<StoredModelSettings | null> => {
    const row = await readModelSettings(db, workspaceId);
    return row && modelSettingsNeedCleaning(row) ? cleanModelSettings(db, { workspaceId }, seal) : row;
  };
  const toView = (r: StoredModelSettings): ModelSettingsView => ({
    baseUrl: r.baseUrl,
    hasApiKey: r.apiKeyEncrypted !== "",
    models: r.models,
    microUsdPerInputToken: r.microUsdPerInputToken,
    microUsdPerOutputToken: r.microUsdPerOutputToken,
    timeoutMs: r.timeoutMs,
    roles: Object.fromEntries(
      MODEL_ROLES.flatMap((role) => {
        const own = r.roles[role];
        if (!own) return [];
        const view: RoleEndpointView = {
          baseUrl: own.baseUrl ?? null,
          hasApiKey: !!own.apiKeyEncrypted,
          microUsdPerInputToken: own.microUsdPerInputToken ?? null,
          microUsdPerOutputToken: own.microUsdPerOutputToken ?? null,
        };
        return [[role, view]];
      }),
    ),
    adapters: r.adapters,
    updatedAt: r.updatedAt,
  });
  const open = (sealed: string | undefined) => (sealed ? openSecret(key, sealed, "model key") : "");
  return {
    async view(workspaceId) {
      const row = await read(workspaceId);
      return row ? toView(row) : null;
    },
    async upstream(workspaceId) {
      const row = await read(workspaceId);
      if (!row) return null;
      const sharedKey = open(row.apiKeyEncrypted);
      const roles = Object.fromEntries(
        MODEL_ROLES.map((role) => {
          const own = row.roles[role] ?? {};
          const resolved: RoleUpstream = {
            ownEndpoint: !!(own.baseUrl || own.apiKeyEncrypted),
            baseUrl: own.baseUrl ?? row.baseUrl,
            apiKey: own.apiKeyEncrypted ? open(own.apiKeyEncrypted) : own.baseUrl ? "" : sharedKey,
            model: row.models[role] ?? null,
            microUsdPerInputToken: own.microUsdPerInputToken ?? row.microUsdPerInputToken,
            microUsdPerOutputToken: own.microUsdPerOutputToken ?? row.microUsdPerOutputToken,
            timeoutMs: row.timeoutMs,
            adapter: row.adapters[role] ?? null,
          };
          return [role, resolved];
        }),
      ) as Record<ModelRole, RoleUpstream>;
      return {
        baseUrl: row.baseUrl,
        apiKey: sharedKey,
        models: row.models,
        microUsdPerInputToken: row.microUsdPerInputToken,
        microUsdPerOutputToken: row.microUsdPerOutputToken,
        timeoutMs: row.timeoutMs,
        roles,
      };
    },
    async set(workspaceId, settings, updatedBy) {
      return toView(await setModelSettings(db, { workspaceId, updatedBy, settings }, seal, undefined, KNOWN_ADAPTERS));
    },
  };
}
