// The model settings as people use them: everyone reads which models runs use (the demo model until an endpoint
// is saved), an admin's "Test connection" reaches each role's model with the saved key and says what failed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { createApiClient } from "@phoneloop/client";
import { createTestDatabase, type TestDatabase } from "@phoneloop/state/testing";
import { createApiServer, type ApiServer } from "./api-server.ts";
import { signUpMember, type SignedUpMember } from "./auth/testing.ts";

const KEY = "sk-connection-test-7d2e19";
let t: TestDatabase;
let api: ApiServer;
let models: ScriptedModelServer;
let admin: SignedUpMember;
let viewer: SignedUpMember;

beforeAll(async () => {
  t = await createTestDatabase();
  models = await startScriptedModelServer({
    rules: [{ match: (r) => r.model === "revoked", replies: [{ status: 401, message: `invalid key ${KEY}` }], repeatLast: true }],
    fallback: { text: "OK", promptTokens: 12, completionTokens: 1 },
  });
  api = await createApiServer({ db: t.db, databaseUrl: t.url, port: 0, host: "127.0.0.1" });
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  viewer = await signUpMember({ db: t.db, auth: api.auth }, { role: "viewer", workspaceId: admin.workspaceId });
});
afterAll(async () => {
  await api.close();
  await models.stop();
  await t.drop();
});

const as = (m: SignedUpMember) => createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: m.headers.cookie! } });

describe("model settings: status and Test connection", () => {
  it("a fresh workspace runs on the labelled demo model, and its test passes without a provider", async () => {
    expect(await as(viewer).modelSettings.status.query({})).toMatchObject({ mode: "demo", label: "Demo model — reference policy, not AI", models: { executor: "reference-policy" } });
    expect(await as(viewer).modelSettings.get.query({})).toBeNull();
    const r = await as(admin).modelSettings.test.mutate({});
    expect(r.demo).toBe(true);
    expect(r.roles.map((x) => [x.role, x.ok, x.model])).toEqual([
      ["planner", true, "reference-policy"],
      ["executor", true, "reference-policy"],
      ["summarizer", true, "reference-policy"],
    ]);
  });

  it("tests each role's saved model with the saved key; a refused key and a missing model are explained, the key never shown", async () => {
    await as(admin).modelSettings.set.mutate({ baseUrl: models.baseURL, apiKey: KEY, models: { planner: "text-small", executor: "revoked" } });
    expect(await as(viewer).modelSettings.status.query({})).toEqual({ mode: "configured", label: null, models: { planner: "text-small", executor: "revoked" } });
    const seenBefore = models.requests.length;
    const r = await as(admin).modelSettings.test.mutate({});
    const by = Object.fromEntries(r.roles.map((x) => [x.role, x]));
    expect(by.planner).toMatchObject({ ok: true, model: "text-small" });
    expect(by.executor).toMatchObject({ ok: false, model: "revoked" });
    expect(by.executor!.message).toMatch(/401.*check the API key/);
    expect(by.summarizer).toMatchObject({ ok: false, model: null });
    expect(by.summarizer!.message).toMatch(/No model is set for the summarizer role/);
    expect(JSON.stringify(r)).not.toContain(KEY);
    expect(models.requests.slice(seenBefore).map((q) => q.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
  });

  it("only an admin may test or save; everyone reads", async () => {
    await expect(as(viewer).modelSettings.test.mutate({})).rejects.toMatchObject({ data: { code: "FORBIDDEN" } });
    await expect(as(viewer).modelSettings.set.mutate({ baseUrl: models.baseURL, models: {} })).rejects.toMatchObject({ data: { code: "FORBIDDEN" } });
    expect(await as(viewer).modelSettings.get.query({})).toMatchObject({ baseUrl: models.baseURL, hasApiKey: true });
  });
});
