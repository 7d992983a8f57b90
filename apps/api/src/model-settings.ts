// Model settings per workspace, read by the model proxy and written by admins. The endpoint's API key is
// encrypted at rest (AES-256-GCM under a key derived from PHONELOOP_SECRET_KEY) and is never returned: views say
// only whether one is set. Raw SQL over the "ModelSettings" table (migration 20261130213000_model_settings).
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { z } from "zod";
import type { Db } from "@phoneloop/state";
import { deriveKey } from "./auth/secret-key.ts";

export const MODEL_ROLES = ["planner", "executor", "summarizer"] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

export const ModelSettingsInput = z.object({
  baseUrl: z.url({ protocol: /^https?$/, error: "The model endpoint must be an http(s) URL, e.g. https://api.example.com/v1" }),
  /** Omitted on update: keep the key already stored. */
  apiKey: z.string().min(1).max(4000).optional(),
  models: z.object({ planner: z.string().min(1).max(200).optional(), executor: z.string().min(1).max(200).optional(), summarizer: z.string().min(1).max(200).optional() }),
  microUsdPerInputToken: z.number().min(0).default(0),
  microUsdPerOutputToken: z.number().min(0).default(0),
  timeoutMs: z.number().int().min(1000).max(600_000).default(120_000),
});
export type ModelSettingsInput = z.input<typeof ModelSettingsInput>;

/** What an admin sees: everything but the key. */
export interface ModelSettingsView {
  baseUrl: string;
  hasApiKey: boolean;
  models: Partial<Record<ModelRole, string>>;
  microUsdPerInputToken: number;
  microUsdPerOutputToken: number;
  timeoutMs: number;
  updatedAt: Date;
}

/** What the model proxy uses (inside the API only). */
export interface ModelUpstream extends Omit<ModelSettingsView, "hasApiKey" | "updatedAt"> {
  apiKey: string;
}

export interface ModelSettingsStore {
  view(workspaceId: string): Promise<ModelSettingsView | null>;
  upstream(workspaceId: string): Promise<ModelUpstream | null>;
  set(workspaceId: string, input: ModelSettingsInput, updatedBy: string): Promise<ModelSettingsView>;
}

interface Row {
  baseUrl: string;
  apiKeyEncrypted: string;
  models: Partial<Record<ModelRole, string>>;
  microUsdPerInputToken: number;
  microUsdPerOutputToken: number;
  timeoutMs: number;
  updatedAt: Date;
}

export function modelSettingsStore(db: Db, secretKey: string): ModelSettingsStore {
  const key = deriveKey(secretKey, "model-settings");
  const read = async (workspaceId: string) =>
    (await db.$queryRaw<Row[]>`SELECT "baseUrl", "apiKeyEncrypted", "models", "microUsdPerInputToken", "microUsdPerOutputToken", "timeoutMs", "updatedAt" FROM "ModelSettings" WHERE "workspaceId" = ${workspaceId}`)[0] ?? null;
  const toView = (r: Row): ModelSettingsView => ({
    baseUrl: r.baseUrl,
    hasApiKey: r.apiKeyEncrypted !== "",
    models: r.models,
    microUsdPerInputToken: r.microUsdPerInputToken,
    microUsdPerOutputToken: r.microUsdPerOutputToken,
    timeoutMs: r.timeoutMs,
    updatedAt: r.updatedAt,
  });
  return {
    async view(workspaceId) {
      const row = await read(workspaceId);
      return row ? toView(row) : null;
    },
    async upstream(workspaceId) {
      const row = await read(workspaceId);
      if (!row) return null;
      const { hasApiKey: _, updatedAt: __, ...rest } = toView(row);
      return { ...rest, apiKey: row.apiKeyEncrypted ? decrypt(key, row.apiKeyEncrypted) : "" };
    },
    async set(workspaceId, raw, updatedBy) {
      const i = ModelSettingsInput.parse(raw);
      const previous = await read(workspaceId);
      const apiKeyEncrypted = i.apiKey !== undefined ? encrypt(key, i.apiKey) : (previous?.apiKeyEncrypted ?? "");
      const models = JSON.stringify(i.models);
      const rows = await db.$queryRaw<Row[]>`
        INSERT INTO "ModelSettings" ("workspaceId", "baseUrl", "apiKeyEncrypted", "models", "microUsdPerInputToken", "microUsdPerOutputToken", "timeoutMs", "updatedBy", "updatedAt")
        VALUES (${workspaceId}, ${i.baseUrl}, ${apiKeyEncrypted}, ${models}::jsonb, ${i.microUsdPerInputToken}, ${i.microUsdPerOutputToken}, ${i.timeoutMs}, ${updatedBy}, now())
        ON CONFLICT ("workspaceId") DO UPDATE SET "baseUrl" = EXCLUDED."baseUrl", "apiKeyEncrypted" = EXCLUDED."apiKeyEncrypted", "models" = EXCLUDED."models",
          "microUsdPerInputToken" = EXCLUDED."microUsdPerInputToken", "microUsdPerOutputToken" = EXCLUDED."microUsdPerOutputToken",
          "timeoutMs" = EXCLUDED."timeoutMs", "updatedBy" = EXCLUDED."updatedBy", "updatedAt" = now()
        RETURNING "baseUrl", "apiKeyEncrypted", "models", "microUsdPerInputToken", "microUsdPerOutputToken", "timeoutMs", "updatedAt"`;
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
