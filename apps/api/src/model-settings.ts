// Model settings per workspace, read by the model proxy and written by admins: a shared endpoint (URL, key,
// prices), a model per role, and for any role an endpoint of its own (migration model_settings_roles) that
// overrides what it names. Every API key is encrypted at rest (AES-256-GCM under a key derived from
// PHONELOOP_SECRET_KEY) and is never returned: views say only whether one is set. Raw SQL over the "ModelSettings"
// table (migration 20261130213000_model_settings).
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { z } from "zod";
import { Text, type Db } from "@phoneloop/state";
import { deriveKey } from "./auth/secret-key.ts";

export const MODEL_ROLES = ["planner", "executor", "summarizer"] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/**
 * An endpoint is stored as origin + path: a credential in its URL (`user:password@`, `?api-key=…`) would be shown to
 * everyone who reads the settings, so it is refused, naming the encrypted key field; any other query or fragment is
 * refused too (an OpenAI-compatible base URL has none, and the paths built on it are the URL API's).
 */
const EndpointUrl = z
  .url({ protocol: /^https?$/, error: "The model endpoint must be an http(s) URL, e.g. https://api.example.com/v1" })
  .max(2000, "The model endpoint's URL is longer than 2000 characters.")
  .superRefine((url, ctx) => {
    const problem = endpointUrlProblem(url);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .transform(storedEndpointUrl);

/** Query parameters that carry a credential in a URL (compared lowercased, `-` and `_` alike). */
const CREDENTIAL_PARAMS = new Set(["apikey", "api-key", "key", "token", "access-token", "auth", "authorization", "password", "secret", "sig", "signature", "code"]);
const isCredentialParam = (name: string) => CREDENTIAL_PARAMS.has(name.toLowerCase().replace(/_/g, "-"));
const KEY_FIELD = "put the key in the API key field (it is stored encrypted and never shown)";

/** Why a URL cannot be stored as a model endpoint, or null. */
export function endpointUrlProblem(text: string): string | null {
  const url = new URL(text);
  if (url.username || url.password) return `The endpoint URL carries a user name or password (user:password@): ${KEY_FIELD}, and save the URL without it.`;
  const params = [...url.searchParams.keys()];
  const credential = params.find(isCredentialParam);
  if (credential) return `The endpoint URL carries a credential in its query (${credential}=…): ${KEY_FIELD}, and save the URL without the query.`;
  if (url.search || url.hash) return `The endpoint URL must be an origin and a path, e.g. https://api.example.com/v1, without a query (?…) or fragment (#…).`;
  return null;
}

/** What is stored of an endpoint URL: its origin and path, without a trailing slash. */
export function storedEndpointUrl(text: string): string {
  const url = new URL(text);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * The URL of a path under an endpoint (e.g. "chat/completions"), built with the URL API: whatever a base URL
 * holds besides its origin and path never lands in the path or the query of the call.
 */
export function endpointUrl(baseUrl: string, path: string): string {
  const url = new URL(storedEndpointUrl(baseUrl));
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  return url.href;
}

/**
 * A URL stored before endpoints were origin + path, cleaned: what it should have been, and the one secret it held
 * (a password, or a single credential parameter's value) — which becomes the encrypted key when none is set.
 */
function cleanedEndpointUrl(text: string): { url: string; secret: string | null } | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if (!url.username && !url.password && !url.search && !url.hash && storedEndpointUrl(text) === text) return null;
  const secrets = [
    ...(url.password ? [decodeURIComponent(url.password)] : url.username ? [decodeURIComponent(url.username)] : []),
    ...[...url.searchParams.entries()].filter(([name, value]) => isCredentialParam(name) && value).map(([, value]) => value),
  ];
  return { url: storedEndpointUrl(text), secret: secrets.length === 1 ? secrets[0]! : null };
}
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
});
export type ModelSettingsInput = z.input<typeof ModelSettingsInput>;

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
}

/** What the model proxy uses (inside the API only): the shared endpoint and each role's resolved one. */
export interface ModelUpstream extends Omit<ModelSettingsView, "hasApiKey" | "updatedAt" | "roles"> {
  apiKey: string;
  roles: Record<ModelRole, RoleUpstream>;
}

export interface ModelSettingsStore {
  view(workspaceId: string): Promise<ModelSettingsView | null>;
  upstream(workspaceId: string): Promise<ModelUpstream | null>;
  set(workspaceId: string, input: ModelSettingsInput, updatedBy: string): Promise<ModelSettingsView>;
}

interface StoredRole {
  baseUrl?: string;
  apiKeyEncrypted?: string;
  microUsdPerInputToken?: number;
  microUsdPerOutputToken?: number;
}

interface Row {
  baseUrl: string;
  apiKeyEncrypted: string;
  models: Partial<Record<ModelRole, string>>;
  microUsdPerInputToken: number;
  microUsdPerOutputToken: number;
  timeoutMs: number;
  roles: Partial<Record<ModelRole, StoredRole>>;
  updatedAt: Date;
}

export function modelSettingsStore(db: Db, secretKey: string): ModelSettingsStore {
  const key = deriveKey(secretKey, "model-settings");
  const read = async (workspaceId: string): Promise<Row | null> => {
    const row = (await db.$queryRaw<Row[]>`SELECT "baseUrl", "apiKeyEncrypted", "models", "microUsdPerInputToken", "microUsdPerOutputToken", "timeoutMs", "roles", "updatedAt" FROM "ModelSettings" WHERE "workspaceId" = ${workspaceId}`)[0] ?? null;
    return row ? cleanOnRead(workspaceId, row) : null;
  };
  /**
   * A row saved before endpoints were stored as origin + path may hold a credential in a URL: it is rewritten once,
   * on its first read — the URL as origin + path, and its one secret as the encrypted key where no key is set
   * (the URL with a query never reached the endpoint right, and fetch refuses one with user:password@).
   */
  const cleanOnRead = async (workspaceId: string, row: Row): Promise<Row> => {
    const shared = cleanedEndpointUrl(row.baseUrl);
    const roles: Partial<Record<ModelRole, StoredRole>> = { ...row.roles };
    let dirty = !!shared;
    for (const role of MODEL_ROLES) {
      const own = roles[role];
      const cleaned = own?.baseUrl ? cleanedEndpointUrl(own.baseUrl) : null;
      if (!own || !cleaned) continue;
      dirty = true;
      roles[role] = { ...own, baseUrl: cleaned.url, ...(!own.apiKeyEncrypted && cleaned.secret ? { apiKeyEncrypted: encrypt(key, cleaned.secret) } : {}) };
    }
    if (!dirty) return row;
    const baseUrl = shared?.url ?? row.baseUrl;
    const apiKeyEncrypted = !row.apiKeyEncrypted && shared?.secret ? encrypt(key, shared.secret) : row.apiKeyEncrypted;
    await db.$executeRaw`UPDATE "ModelSettings" SET "baseUrl" = ${baseUrl}, "apiKeyEncrypted" = ${apiKeyEncrypted}, "roles" = ${JSON.stringify(roles)}::jsonb WHERE "workspaceId" = ${workspaceId} AND "updatedAt" = ${row.updatedAt}`;
    return { ...row, baseUrl, apiKeyEncrypted, roles };
  };
  const toView = (r: Row): ModelSettingsView => ({
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
    updatedAt: r.updatedAt,
  });
  const open = (sealed: string | undefined) => (sealed ? decrypt(key, sealed) : "");
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
    async set(workspaceId, raw, updatedBy) {
      const i = ModelSettingsInput.parse(raw);
      const previous = await read(workspaceId);
      const apiKeyEncrypted = i.apiKey === null ? "" : i.apiKey !== undefined ? encrypt(key, i.apiKey) : (previous?.apiKeyEncrypted ?? "");
      const models = JSON.stringify(i.models);
      const stored: Partial<Record<ModelRole, StoredRole>> = { ...(previous?.roles ?? {}) };
      for (const role of MODEL_ROLES) {
        const given = i.roles?.[role];
        if (given === undefined) continue;
        if (given === null) {
          delete stored[role];
          continue;
        }
        const keptKey = given.apiKey === undefined ? stored[role]?.apiKeyEncrypted : undefined;
        const own: StoredRole = {
          ...(given.baseUrl !== undefined ? { baseUrl: given.baseUrl } : {}),
          ...(given.apiKey ? { apiKeyEncrypted: encrypt(key, given.apiKey) } : keptKey ? { apiKeyEncrypted: keptKey } : {}),
          ...(given.microUsdPerInputToken !== undefined ? { microUsdPerInputToken: given.microUsdPerInputToken } : {}),
          ...(given.microUsdPerOutputToken !== undefined ? { microUsdPerOutputToken: given.microUsdPerOutputToken } : {}),
        };
        // A role that names nothing of its own uses the shared endpoint: nothing to store.
        if (Object.keys(own).length === 0) delete stored[role];
        else stored[role] = own;
      }
      const roles = JSON.stringify(stored);
      const rows = await db.$queryRaw<Row[]>`
        INSERT INTO "ModelSettings" ("workspaceId", "baseUrl", "apiKeyEncrypted", "models", "microUsdPerInputToken", "microUsdPerOutputToken", "timeoutMs", "roles", "updatedBy", "updatedAt")
        VALUES (${workspaceId}, ${i.baseUrl}, ${apiKeyEncrypted}, ${models}::jsonb, ${i.microUsdPerInputToken}, ${i.microUsdPerOutputToken}, ${i.timeoutMs}, ${roles}::jsonb, ${updatedBy}, now())
        ON CONFLICT ("workspaceId") DO UPDATE SET "baseUrl" = EXCLUDED."baseUrl", "apiKeyEncrypted" = EXCLUDED."apiKeyEncrypted", "models" = EXCLUDED."models",
          "microUsdPerInputToken" = EXCLUDED."microUsdPerInputToken", "microUsdPerOutputToken" = EXCLUDED."microUsdPerOutputToken",
          "timeoutMs" = EXCLUDED."timeoutMs", "roles" = EXCLUDED."roles", "updatedBy" = EXCLUDED."updatedBy", "updatedAt" = now()
        RETURNING "baseUrl", "apiKeyEncrypted", "models", "microUsdPerInputToken", "microUsdPerOutputToken", "timeoutMs", "roles", "updatedAt"`;
      return toView(rows[0]!);
    },
  };
}

function encrypt(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
}

function decrypt(key: Buffer, sealed: string): string {
  const [version, iv, tag, body] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("A stored model key is in an unknown format; an admin must set it again.");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new Error("The stored model key cannot be decrypted: PHONELOOP_SECRET_KEY changed since it was saved. An admin must set the key again.");
  }
}
