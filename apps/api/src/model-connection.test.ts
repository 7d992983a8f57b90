// The model settings as people use them: everyone reads which models runs use (the demo model until an endpoint
// is saved), an admin's "Test connection" reaches each role's model with the saved key and says what failed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { createApiClient } from "@phoneloop/client";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { signUpMember, type SignedUpMember } from "./auth/testing.ts";

const KEY = "sk-connection-test-7d2e19";
const t = useTestDatabase();
const api = useApiServer(t);
let models: ScriptedModelServer;
let admin: SignedUpMember;
let viewer: SignedUpMember;

beforeAll(async () => {
  models = await startScriptedModelServer({
    rules: [{ match: (r) => r.model === "revoked", replies: [{ status: 401, message: `invalid key ${KEY}` }], repeatLast: true }],
    fallback: { text: "OK", promptTokens: 12, completionTokens: 1 },
  });
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  viewer = await signUpMember({ db: t.db, auth: api.auth }, { role: "viewer", workspaceId: admin.workspaceId });
});
afterAll(async () => {
  await models.stop();
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
    expect(await as(viewer).modelSettings.status.query({})).toEqual({ mode: "configured", label: null, models: { planner: "text-small", executor: "revoked" }, adapters: {} });
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

  it("tests a role with an endpoint of its own against that endpoint and its key; the others against the shared one", async () => {
    const SUMMARIZER_KEY = "sk-summarizer-own-3a9d51";
    const own = await startScriptedModelServer({
      rules: [{ match: (r) => r.authorization !== `Bearer ${SUMMARIZER_KEY}`, replies: [{ status: 401, message: "wrong key" }], repeatLast: true }],
      fallback: { text: "OK", promptTokens: 9, completionTokens: 1 },
    });
    try {
      await as(admin).modelSettings.set.mutate({
        baseUrl: models.baseURL,
        apiKey: KEY,
        models: { planner: "text-small", executor: "vision-small", summarizer: "summary-small" },
        roles: { summarizer: { baseUrl: own.baseURL, apiKey: SUMMARIZER_KEY, microUsdPerInputToken: 0.5 } },
      });
      const got = await as(viewer).modelSettings.get.query({});
      expect(got?.roles).toEqual({ summarizer: { baseUrl: own.baseURL, hasApiKey: true, microUsdPerInputToken: 0.5, microUsdPerOutputToken: null } });
      const sharedBefore = models.requests.length;
      const r = await as(admin).modelSettings.test.mutate({});
      expect(r.roles.map((x) => [x.role, x.ok, x.model, x.ownEndpoint])).toEqual([
        ["planner", true, "text-small", false],
        ["executor", true, "vision-small", false],
        ["summarizer", true, "summary-small", true],
      ]);
      expect(own.requests.map((q) => [q.model, q.authorization])).toEqual([["summary-small", `Bearer ${SUMMARIZER_KEY}`]]);
      expect(models.requests.slice(sharedBefore).map((q) => q.model).sort()).toEqual(["text-small", "vision-small"]);

      // A wrong key on the role's own endpoint fails that role alone, and the answer names neither key.
      await as(admin).modelSettings.set.mutate({ baseUrl: models.baseURL, models: { planner: "text-small", executor: "vision-small", summarizer: "summary-small" }, roles: { summarizer: { baseUrl: own.baseURL, apiKey: "sk-wrong-key-000000" } } });
      const wrong = await as(admin).modelSettings.test.mutate({});
      expect(wrong.roles.map((x) => [x.role, x.ok])).toEqual([["planner", true], ["executor", true], ["summarizer", false]]);
      expect(wrong.roles[2]!.message).toMatch(/401.*check the API key/);
      for (const secret of [KEY, SUMMARIZER_KEY, "sk-wrong-key-000000"]) expect(JSON.stringify([got, r, wrong])).not.toContain(secret);

      // Cleared back to the shared endpoint: the summarizer is tested there.
      await as(admin).modelSettings.set.mutate({ baseUrl: models.baseURL, models: { planner: "text-small", executor: "vision-small", summarizer: "summary-small" }, roles: { summarizer: null } });
      const ownBefore = own.requests.length;
      const shared = await as(admin).modelSettings.test.mutate({});
      expect(shared.roles.map((x) => [x.role, x.ok, x.ownEndpoint])).toEqual([["planner", true, false], ["executor", true, false], ["summarizer", true, false]]);
      expect(own.requests.length).toBe(ownBefore);
    } finally {
      await own.stop();
    }
  });

  it("a stored key stays while the form leaves it out and goes with null: the shared key and a role's own", async () => {
    const base = { baseUrl: models.baseURL, models: { planner: "text-small", executor: "vision-small", summarizer: "summary-small" } };
    await as(admin).modelSettings.set.mutate({ ...base, apiKey: KEY, roles: { planner: { baseUrl: "http://127.0.0.1:7/v1", apiKey: "sk-planner-own-77" } } });
    await as(admin).modelSettings.set.mutate({ ...base, roles: { planner: { baseUrl: "http://127.0.0.1:7/v1" } } });
    expect(await as(viewer).modelSettings.get.query({})).toMatchObject({ hasApiKey: true, roles: { planner: { hasApiKey: true } } });

    await as(admin).modelSettings.set.mutate({ ...base, roles: { planner: { baseUrl: "http://127.0.0.1:7/v1", apiKey: null } } });
    expect(await as(viewer).modelSettings.get.query({})).toMatchObject({ hasApiKey: true, roles: { planner: { hasApiKey: false } } });

    await as(admin).modelSettings.set.mutate({ ...base, apiKey: null, roles: { planner: null } });
    const cleared = await as(viewer).modelSettings.get.query({});
    expect(cleared).toMatchObject({ hasApiKey: false, roles: {} });
    // The shared endpoint is now called without a key.
    const before = models.requests.length;
    const r = await as(admin).modelSettings.test.mutate({});
    expect(r.roles.every((x) => x.ok)).toBe(true);
    expect(models.requests.slice(before).map((q) => q.authorization ?? null)).not.toContain(`Bearer ${KEY}`);

    await as(admin).modelSettings.set.mutate({ ...base, apiKey: KEY });
  });

  it("only an admin may test or save; everyone reads", async () => {
    await expect(as(viewer).modelSettings.test.mutate({})).rejects.toMatchObject({ data: { code: "FORBIDDEN" } });
    await expect(as(viewer).modelSettings.set.mutate({ baseUrl: models.baseURL, models: {} })).rejects.toMatchObject({ data: { code: "FORBIDDEN" } });
    expect(await as(viewer).modelSettings.get.query({})).toMatchObject({ baseUrl: models.baseURL, hasApiKey: true });
  });
});
