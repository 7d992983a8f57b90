// Model settings through the core: a save and a cleaning are each the row and one Event (operator, actor, subject:
// the workspace), and an Event names a key (set, kept, removed) but never holds it, plain or sealed.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTestDatabase, seedWorkspace } from "../../testing/index.ts";
import type { StateError } from "../../domain/errors.ts";
import { cleanModelSettings, modelSettingsNeedCleaning, readModelSettings, setModelSettings, type KeySealer } from "./model-settings.ts";

const t = useTestDatabase();

// AES-256-GCM under a key of this test, as the API seals keys: what is stored must open to the key given.
const aesKey = randomBytes(32);
const seal: KeySealer = (plain) => {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", aesKey, iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".");
};
const open = (sealed: string | undefined) => {
  const [iv, tag, body] = (sealed ?? "").split(".").map((p) => Buffer.from(p, "base64url"));
  const decipher = createDecipheriv("aes-256-gcm", aesKey, iv!);
  decipher.setAuthTag(tag!);
  return Buffer.concat([decipher.update(body!), decipher.final()]).toString("utf8");
};

const SHARED_KEY = "sk-shared-4b1d77e0";
const EXECUTOR_KEY = "sk-executor-90aa21c3";
const eventsOf = (workspaceId: string) => t.db.event.findMany({ where: { subjectId: workspaceId, operator: { startsWith: "modelSettings." } }, orderBy: { id: "asc" } });
const payloadsHoldNo = (payloads: unknown[], ...secrets: string[]) => {
  const text = JSON.stringify(payloads);
  for (const secret of secrets) expect(text).not.toContain(secret);
};

describe("modelSettings.set", () => {
  it("writes the row with the keys sealed and appends modelSettings.set by the member, naming each key's change only", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const row = await setModelSettings(t.db, {
      workspaceId: workspace.id,
      updatedBy: admin.id,
      settings: { baseUrl: "https://api.example.com/v1/", apiKey: SHARED_KEY, models: { planner: "big" }, roles: { executor: { baseUrl: "https://exec.example.com/v1", apiKey: EXECUTOR_KEY, microUsdPerInputToken: 2 } } },
    }, seal);
    expect(row).toMatchObject({ baseUrl: "https://api.example.com/v1", models: { planner: "big" }, timeoutMs: 120_000, roles: { executor: { baseUrl: "https://exec.example.com/v1", microUsdPerInputToken: 2 } } });
    expect(open(row.apiKeyEncrypted)).toBe(SHARED_KEY);
    expect(open(row.roles.executor?.apiKeyEncrypted)).toBe(EXECUTOR_KEY);
    expect(await readModelSettings(t.db, workspace.id)).toEqual(row);

    // A second save keeps the keys it leaves out and removes the one it sets to null.
    const again = await setModelSettings(t.db, { workspaceId: workspace.id, updatedBy: admin.id, settings: { baseUrl: "https://api.example.com/v2", apiKey: null, models: {}, roles: { planner: { microUsdPerOutputToken: 5 } } } }, seal);
    expect(again.apiKeyEncrypted).toBe("");
    expect(again.roles.executor?.apiKeyEncrypted).toBe(row.roles.executor?.apiKeyEncrypted);
    expect(again.roles.planner).toEqual({ microUsdPerOutputToken: 5 });

    const events = await eventsOf(workspace.id);
    expect(events).toMatchObject([
      { operator: "modelSettings.set", actor: admin.id, workspaceId: workspace.id, payload: { baseUrl: "https://api.example.com/v1", apiKey: "set", models: { planner: "big" }, roles: { executor: { baseUrl: "https://exec.example.com/v1", apiKey: "set", microUsdPerInputToken: 2 } } } },
      { operator: "modelSettings.set", actor: admin.id, workspaceId: workspace.id, payload: { baseUrl: "https://api.example.com/v2", apiKey: "removed", roles: { planner: { apiKey: "none", microUsdPerOutputToken: 5 } } } },
    ]);
    payloadsHoldNo(events.map((e) => e.payload), SHARED_KEY, EXECUTOR_KEY, row.apiKeyEncrypted, row.roles.executor!.apiKeyEncrypted!, "apiKeyEncrypted");
  });

  it("refuses a credential in a URL as INVALID_INPUT naming the field, without the secret, and writes nothing", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const e = await setModelSettings(t.db, { workspaceId: workspace.id, updatedBy: admin.id, settings: { baseUrl: `https://api.example.com/v1?api-key=${SHARED_KEY}`, models: {} } }, seal).then(() => null, (x: unknown) => x as StateError);
    expect(e?.code).toBe("INVALID_INPUT");
    expect(e?.message).toMatch(/settings\.baseUrl: .*API key field/);
    expect(e?.message).not.toContain(SHARED_KEY);
    expect(await readModelSettings(t.db, workspace.id)).toBeNull();
    expect(await eventsOf(workspace.id)).toEqual([]);
  });

  it("stores an adapter per role from the runtime's list, keeps the ones a save leaves out, removes one set to null, and its Event names them", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const known = [{ id: "phoneloop", version: "1" }, { id: "ui-tars", version: "1.5" }, { id: "qwen-vl", version: "3" }];
    const base = { baseUrl: "https://api.example.com/v1", models: { executor: "ByteDance-Seed/UI-TARS-1.5-7B" } };
    const row = await setModelSettings(t.db, { workspaceId: workspace.id, updatedBy: admin.id, settings: { ...base, adapters: { executor: { id: "ui-tars", version: "1.5" }, planner: { id: "phoneloop", version: "1" } } } }, seal, undefined, known);
    expect(row.adapters).toEqual({ executor: { id: "ui-tars", version: "1.5" }, planner: { id: "phoneloop", version: "1" } });
    expect((await readModelSettings(t.db, workspace.id))!.adapters).toEqual(row.adapters);

    const again = await setModelSettings(t.db, { workspaceId: workspace.id, updatedBy: admin.id, settings: { ...base, adapters: { planner: null } } }, seal, undefined, known);
    expect(again.adapters).toEqual({ executor: { id: "ui-tars", version: "1.5" } });
    const kept = await setModelSettings(t.db, { workspaceId: workspace.id, updatedBy: admin.id, settings: base }, seal, undefined, known);
    expect(kept.adapters).toEqual({ executor: { id: "ui-tars", version: "1.5" } });

    expect((await eventsOf(workspace.id)).map((e) => (e.payload as { adapters?: unknown }).adapters)).toEqual([
      { executor: { id: "ui-tars", version: "1.5" }, planner: { id: "phoneloop", version: "1" } },
      { planner: null },
      undefined,
    ]);
  });

  it("refuses an adapter or version the runtime does not have as INVALID_INPUT naming the role's field, and writes nothing", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const known = [{ id: "ui-tars", version: "1.5" }];
    for (const executor of [{ id: "ui-tars", version: "9" }, { id: "no-such", version: "1" }]) {
      const e = await setModelSettings(t.db, { workspaceId: workspace.id, updatedBy: admin.id, settings: { baseUrl: "https://api.example.com/v1", models: {}, adapters: { executor } } }, seal, undefined, known).then(() => null, (x: unknown) => x as StateError);
      expect(e?.code).toBe("INVALID_INPUT");
      expect(e?.message).toMatch(/settings\.adapters\.executor: .*not an adapter the runtime has; pick one of ui-tars 1\.5/);
    }
    expect(await readModelSettings(t.db, workspace.id)).toBeNull();
    expect(await eventsOf(workspace.id)).toEqual([]);
  });
});

describe("modelSettings.clean", () => {
  it("rewrites a row with a secret in its URLs once: origin + path, the secret sealed as the key; its Event names the fields, never a URL or a secret", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const roles = JSON.stringify({ executor: { baseUrl: `http://u:${EXECUTOR_KEY}@127.0.0.1:9/v1` } });
    await t.db.$executeRaw`
      INSERT INTO "ModelSettings" ("workspaceId", "baseUrl", "apiKeyEncrypted", "models", "roles", "updatedBy")
      VALUES (${workspace.id}, ${`https://api.example.com/v1?api-key=${SHARED_KEY}`}, '', '{}'::jsonb, ${roles}::jsonb, ${admin.id})`;
    expect(modelSettingsNeedCleaning((await readModelSettings(t.db, workspace.id))!)).toBe(true);

    const row = await cleanModelSettings(t.db, { workspaceId: workspace.id }, seal);
    expect(row).toMatchObject({ baseUrl: "https://api.example.com/v1", roles: { executor: { baseUrl: "http://127.0.0.1:9/v1" } } });
    expect(open(row!.apiKeyEncrypted)).toBe(SHARED_KEY);
    expect(open(row!.roles.executor?.apiKeyEncrypted)).toBe(EXECUTOR_KEY);
    const stored = (await readModelSettings(t.db, workspace.id))!;
    expect(stored).toMatchObject({ baseUrl: row!.baseUrl, apiKeyEncrypted: row!.apiKeyEncrypted, roles: row!.roles });
    expect(modelSettingsNeedCleaning(stored)).toBe(false);
    // Clean already: a second cleaning writes nothing.
    await cleanModelSettings(t.db, { workspaceId: workspace.id }, seal);

    const events = await eventsOf(workspace.id);
    expect(events).toMatchObject([{ operator: "modelSettings.clean", actor: "system", workspaceId: workspace.id, payload: { cleaned: ["baseUrl", "roles.executor.baseUrl"], keysFromUrls: ["apiKey", "roles.executor.apiKey"] } }]);
    payloadsHoldNo(events.map((e) => e.payload), SHARED_KEY, EXECUTOR_KEY, "api.example.com", row!.apiKeyEncrypted);
  });
});
