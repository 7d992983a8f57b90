// Model settings per workspace (glossary: model settings): a shared endpoint (URL, key, prices), a model per role,
// and for any role an endpoint of its own that overrides what it names. Written here, each save and each cleaning
// of an old row one transaction with its Event. Every API key arrives sealed by the caller's `seal` (the API
// encrypts with a key derived from PHONELOOP_SECRET_KEY and alone opens it): the core stores the sealed text and
// its Events say of a key only whether it was set, kept or removed — never the key, sealed or not.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, Text } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";
import { cleanedEndpointUrl, EndpointUrl } from "./endpoint-url.ts";

export const MODEL_ROLES = ["planner", "executor", "summarizer"] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** Encrypts an API key for storage; only the caller can open what it returns. */
export type KeySealer = (plain: string) => string;

const ApiKey = Text.min(1).max(4000);
const ModelName = Text.trim().min(1).max(200);
const Price = z.number().min(0).max(1_000_000_000);

/**
 * A role's own endpoint: what it names replaces the shared field; what it leaves out comes from the shared
 * endpoint — except the key, which a role with its own URL never borrows (the shared key goes to the shared URL only).
 */
export const RoleEndpointInput = z.object({
  baseUrl: EndpointUrl.optional(),
  /** Omitted: keep the role's stored key; null: remove it. */
  apiKey: ApiKey.nullable().optional(),
  microUsdPerInputToken: Price.optional(),
  microUsdPerOutputToken: Price.optional(),
});

/** The model adapter a role's model speaks (packages/agent model/adapters): its id and the published version it follows. */
export const AdapterSetting = z.object({ id: Text.trim().min(1).max(40), version: Text.trim().min(1).max(80) });
export type AdapterSetting = z.output<typeof AdapterSetting>;

export const ModelSettingsInput = z.object({
  baseUrl: EndpointUrl,
  /** Omitted on update: keep the key already stored; null: remove it (an endpoint that takes no key). */
  apiKey: ApiKey.nullable().optional(),
  models: z.object({ planner: ModelName.optional(), executor: ModelName.optional(), summarizer: ModelName.optional() }),
  microUsdPerInputToken: Price.default(0),
  microUsdPerOutputToken: Price.default(0),
  timeoutMs: z.number().int().min(1000).max(600_000).default(120_000),
  /** Per role: its own endpoint, or null to use the shared one again. Omitted (or a role left out): keep what is stored. */
  roles: z.object({ planner: RoleEndpointInput.nullable().optional(), executor: RoleEndpointInput.nullable().optional(), summarizer: RoleEndpointInput.nullable().optional() }).optional(),
  /** Per role: the adapter its model speaks, or null for the product's own language again. Omitted (or a role left out): keep what is stored. */
  adapters: z.object({ planner: AdapterSetting.nullable().optional(), executor: AdapterSetting.nullable().optional(), summarizer: AdapterSetting.nullable().optional() }).optional(),
});
export type ModelSettingsInput = z.input<typeof ModelSettingsInput>;

/** A role's own endpoint as stored: only what it names; its key sealed. */
export interface StoredRoleEndpoint {
  baseUrl?: string;
  apiKeyEncrypted?: string;
  microUsdPerInputToken?: number;
  microUsdPerOutputToken?: number;
}

/** The "ModelSettings" row (migration model_settings, roles from model_settings_roles). `apiKeyEncrypted` "" when none. */
export interface StoredModelSettings {
  baseUrl: string;
  apiKeyEncrypted: string;
  models: Partial<Record<ModelRole, string>>;
  microUsdPerInputToken: number;
  microUsdPerOutputToken: number;
  timeoutMs: number;
  roles: Partial<Record<ModelRole, StoredRoleEndpoint>>;
  /** The roles whose model speaks an adapter's language (migration model_settings_adapters); the others speak phoneloop. */
  adapters: Partial<Record<ModelRole, AdapterSetting>>;
  updatedAt: Date;
}

const COLUMNS = `"baseUrl", "apiKeyEncrypted", "models", "microUsdPerInputToken", "microUsdPerOutputToken", "timeoutMs", "roles", "adapters", "updatedAt"`;

/** The workspace's stored settings as they are, or null when none were saved (a read: the proxy's hot path). */
export async function readModelSettings(db: DbOrTx, workspaceId: string): Promise<StoredModelSettings | null> {
  return (await db.$queryRawUnsafe<StoredModelSettings[]>(`SELECT ${COLUMNS} FROM "ModelSettings" WHERE "workspaceId" = $1`, workspaceId))[0] ?? null;
}

/** Whether a stored row still holds a URL from before endpoints were origin + path (cleanModelSettings rewrites it). */
export function modelSettingsNeedCleaning(row: StoredModelSettings): boolean {
  return !!cleanedEndpointUrl(row.baseUrl) || MODEL_ROLES.some((role) => !!row.roles[role]?.baseUrl && !!cleanedEndpointUrl(row.roles[role].baseUrl));
}

/**
 * A row's URLs as origin + path, and each one's secret as the encrypted key where no key is set; `cleaned` names the
 * fields rewritten and `keysFromUrls` the keys taken from a URL (names only).
 */
function cleaned(row: StoredModelSettings, seal: KeySealer): { row: StoredModelSettings; cleaned: string[]; keysFromUrls: string[] } {
  const names: string[] = [];
  const keys: string[] = [];
  const roles: Partial<Record<ModelRole, StoredRoleEndpoint>> = { ...row.roles };
  for (const role of MODEL_ROLES) {
    const own = roles[role];
    const url = own?.baseUrl ? cleanedEndpointUrl(own.baseUrl) : null;
    if (!own || !url) continue;
    names.push(`roles.${role}.baseUrl`);
    const keyFromUrl = !own.apiKeyEncrypted && url.secret ? { apiKeyEncrypted: seal(url.secret) } : {};
    if (keyFromUrl.apiKeyEncrypted) keys.push(`roles.${role}.apiKey`);
    roles[role] = { ...own, baseUrl: url.url, ...keyFromUrl };
  }
  const shared = cleanedEndpointUrl(row.baseUrl);
  if (shared) names.unshift("baseUrl");
  const sharedKey = !row.apiKeyEncrypted && shared?.secret ? seal(shared.secret) : null;
  if (sharedKey) keys.unshift("apiKey");
  return { row: { ...row, baseUrl: shared?.url ?? row.baseUrl, apiKeyEncrypted: sharedKey ?? row.apiKeyEncrypted, roles }, cleaned: names, keysFromUrls: keys };
}

async function lockedRow(tx: Tx, workspaceId: string): Promise<StoredModelSettings | null> {
  return (await tx.$queryRawUnsafe<StoredModelSettings[]>(`SELECT ${COLUMNS} FROM "ModelSettings" WHERE "workspaceId" = $1 FOR UPDATE`, workspaceId))[0] ?? null;
}

export const CleanModelSettingsInput = z.object({ workspaceId: Id });
export type CleanModelSettingsInput = z.input<typeof CleanModelSettingsInput>;

/**
 * Rewrites, once, a row saved before endpoints were stored as origin + path: the URL as origin + path, and its one
 * secret as the encrypted key where no key is set (the URL with a query never reached the endpoint right, and fetch
 * refuses one with user:password@). Answers the row as stored now (null: none saved). Its Event names the fields,
 * never a URL that held a secret nor the secret.
 */
export async function cleanModelSettings(db: DbOrTx, raw: CleanModelSettingsInput, seal: KeySealer, ctx?: OperatorContext): Promise<StoredModelSettings | null> {
  const i = parseInput(CleanModelSettingsInput, raw, "modelSettings.clean");
  return inTx(db, async (tx) => {
    const row = await lockedRow(tx, i.workspaceId);
    if (!row || !modelSettingsNeedCleaning(row)) return row;
    const next = cleaned(row, seal);
    await tx.$executeRaw`UPDATE "ModelSettings" SET "baseUrl" = ${next.row.baseUrl}, "apiKeyEncrypted" = ${next.row.apiKeyEncrypted}, "roles" = ${JSON.stringify(next.row.roles)}::jsonb WHERE "workspaceId" = ${i.workspaceId}`;
    await appendEvent(tx, { operator: "modelSettings.clean", actor: actorOf(ctx, undefined), subjectId: i.workspaceId, workspaceId: i.workspaceId, payload: { cleaned: next.cleaned, keysFromUrls: next.keysFromUrls } }, ctx);
    return next.row;
  });
}

export const SetModelSettingsInput = z.object({
  workspaceId: Id,
  /** The member who saves them (or the setup link's new admin, for the seed from the environment). */
  updatedBy: Id,
  settings: ModelSettingsInput,
});
export type SetModelSettingsInput = z.input<typeof SetModelSettingsInput>;

/** What became of a key in a save, for its Event: the key itself is never in one. */
type KeyChange = "set" | "kept" | "removed" | "none";
const keyChange = (given: string | null | undefined, stored: string | undefined): KeyChange => (given === null ? "removed" : given !== undefined ? "set" : stored ? "kept" : "none");

/**
 * Saves the workspace's model settings (the whole shared part; roles and adapters as given, the rest kept). Answers
 * the row as stored. `knownAdapters` is the runtime's list (the core knows no runtime): an adapter not in it is
 * refused, INVALID_INPUT naming the field — so an empty list refuses every adapter.
 */
export async function setModelSettings(db: DbOrTx, raw: SetModelSettingsInput, seal: KeySealer, ctx?: OperatorContext, knownAdapters: readonly AdapterSetting[] = []): Promise<StoredModelSettings> {
  const { workspaceId, updatedBy, settings: s } = parseInput(SetModelSettingsInput, raw, "modelSettings.set");
  for (const role of MODEL_ROLES) {
    const a = s.adapters?.[role];
    if (!a || knownAdapters.some((k) => k.id === a.id && k.version === a.version)) continue;
    const path = `settings.adapters.${role}`;
    const message = `"${a.id} ${a.version}" is not an adapter the runtime has; pick one of ${knownAdapters.map((k) => `${k.id} ${k.version}`).join(", ") || "(none offered)"}, or null for the product's own language`;
    throw new StateError("INVALID_INPUT", `modelSettings.set: ${path}: ${message}`, { operator: "modelSettings.set", issues: [{ path, message }] });
  }
  return inTx(db, async (tx) => {
    const locked = await lockedRow(tx, workspaceId);
    const previous = locked ? cleaned(locked, seal).row : null;
    const apiKeyEncrypted = s.apiKey === null ? "" : s.apiKey !== undefined ? seal(s.apiKey) : (previous?.apiKeyEncrypted ?? "");
    const stored: Partial<Record<ModelRole, StoredRoleEndpoint>> = { ...(previous?.roles ?? {}) };
    const roleChanges: Partial<Record<ModelRole, Record<string, unknown> | null>> = {};
    for (const role of MODEL_ROLES) {
      const given = s.roles?.[role];
      if (given === undefined) continue;
      if (given === null) {
        delete stored[role];
        roleChanges[role] = null;
        continue;
      }
      const keptKey = given.apiKey === undefined ? stored[role]?.apiKeyEncrypted : undefined;
      const own: StoredRoleEndpoint = {
        ...(given.baseUrl !== undefined ? { baseUrl: given.baseUrl } : {}),
        ...(given.apiKey ? { apiKeyEncrypted: seal(given.apiKey) } : keptKey ? { apiKeyEncrypted: keptKey } : {}),
        ...(given.microUsdPerInputToken !== undefined ? { microUsdPerInputToken: given.microUsdPerInputToken } : {}),
        ...(given.microUsdPerOutputToken !== undefined ? { microUsdPerOutputToken: given.microUsdPerOutputToken } : {}),
      };
      const { apiKeyEncrypted: _sealed, ...shown } = own;
      roleChanges[role] = { ...shown, apiKey: keyChange(given.apiKey, stored[role]?.apiKeyEncrypted) };
      // A role that names nothing of its own uses the shared endpoint: nothing to store.
      if (Object.keys(own).length === 0) delete stored[role];
      else stored[role] = own;
    }
    const adapters: Partial<Record<ModelRole, AdapterSetting>> = { ...(previous?.adapters ?? {}) };
    for (const role of MODEL_ROLES) {
      const given = s.adapters?.[role];
      if (given === null) delete adapters[role];
      else if (given) adapters[role] = { id: given.id, version: given.version };
    }
    const rows = await tx.$queryRawUnsafe<StoredModelSettings[]>(
      `INSERT INTO "ModelSettings" ("workspaceId", "baseUrl", "apiKeyEncrypted", "models", "microUsdPerInputToken", "microUsdPerOutputToken", "timeoutMs", "roles", "adapters", "updatedBy", "updatedAt")
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8::jsonb, $10::jsonb, $9, now())
       ON CONFLICT ("workspaceId") DO UPDATE SET "baseUrl" = EXCLUDED."baseUrl", "apiKeyEncrypted" = EXCLUDED."apiKeyEncrypted", "models" = EXCLUDED."models",
         "microUsdPerInputToken" = EXCLUDED."microUsdPerInputToken", "microUsdPerOutputToken" = EXCLUDED."microUsdPerOutputToken",
         "timeoutMs" = EXCLUDED."timeoutMs", "roles" = EXCLUDED."roles", "adapters" = EXCLUDED."adapters", "updatedBy" = EXCLUDED."updatedBy", "updatedAt" = now()
       RETURNING ${COLUMNS}`,
      workspaceId, s.baseUrl, apiKeyEncrypted, JSON.stringify(s.models), s.microUsdPerInputToken, s.microUsdPerOutputToken, s.timeoutMs, JSON.stringify(stored), updatedBy, JSON.stringify(adapters),
    );
    const payload = {
      baseUrl: s.baseUrl,
      apiKey: keyChange(s.apiKey, previous?.apiKeyEncrypted || undefined),
      models: s.models,
      microUsdPerInputToken: s.microUsdPerInputToken,
      microUsdPerOutputToken: s.microUsdPerOutputToken,
      timeoutMs: s.timeoutMs,
      roles: roleChanges,
      ...(s.adapters ? { adapters: Object.fromEntries(MODEL_ROLES.filter((r) => s.adapters![r] !== undefined).map((r) => [r, s.adapters![r]])) } : {}),
    };
    await appendEvent(tx, { operator: "modelSettings.set", actor: actorOf(ctx, updatedBy), subjectId: workspaceId, workspaceId, payload }, ctx);
    return rows[0]!;
  });
}
