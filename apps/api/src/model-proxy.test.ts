import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIModel } from "@phoneloop/agent";
import { startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { evidenceList, pauseGoal } from "@phoneloop/state";
import { createTestDatabase, seedAgent, seedGoal, type TestDatabase } from "@phoneloop/state/testing";
import { createApiServer, type ApiServer } from "./api-server.ts";

let t: TestDatabase;
let upstream: ScriptedModelServer;
let api: ApiServer;
let bare: ApiServer;

beforeAll(async () => {
  t = await createTestDatabase();
  upstream = await startScriptedModelServer({ fallback: { text: '{"type":"wait"}', promptTokens: 1200, completionTokens: 30 } });
  const common = { db: t.db, databaseUrl: t.url, port: 0, host: "127.0.0.1" };
  api = await createApiServer({
    ...common,
    modelUpstream: {
      baseUrl: upstream.baseURL,
      apiKey: "sk-upstream-secret",
      models: { executor: "vision-large" },
      microUsdPerInputToken: 2,
      microUsdPerOutputToken: 10,
      timeoutMs: 10_000,
    },
  });
  bare = await createApiServer(common);
});
afterAll(async () => {
  await api.close();
  await bare.close();
  await upstream.stop();
  await t.drop();
});

const ask = (baseURL: string, headers: Record<string, string> = {}) =>
  createOpenAIModel({ baseURL, model: "whatever-the-tab-says", structuredOutput: "none", defaultHeaders: headers }).complete({
    role: "executor",
    messages: [{ role: "user", content: "What next?" }],
  });

describe("model proxy", () => {
  it("adds the key the browser never holds, picks the role's model, and records usage and cost as evidence", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgent(t.db);
    const before = upstream.requests.length;
    const answer = await ask(`${api.url}/model/executor/v1`, { "x-phoneloop-goal": goal.id, "x-phoneloop-agent": agent.id, "x-phoneloop-run": "run_1" });
    expect(answer.ok).toBe(true);
    if (answer.ok) expect(answer.value.usage).toMatchObject({ inputTokens: 1200, outputTokens: 30 });
    const forwarded = upstream.requests[before]!;
    expect(forwarded.authorization).toBe("Bearer sk-upstream-secret");
    expect(forwarded.model).toBe("vision-large");
    const calls = await evidenceList(t.db, { goalId: goal.id, kind: "model_call" });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.data).toMatchObject({ role: "executor", model: "vision-large", inputTokens: 1200, outputTokens: 30, microUsd: 1200 * 2 + 30 * 10 });
    expect(calls[0]!.runId).toBe("run_1");
  });

  it("refuses a goal that may not run, before any model call", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgent(t.db);
    await pauseGoal(t.db, { goalId: goal.id, reason: "waiting for the owner" });
    const before = upstream.requests.length;
    const answer = await ask(`${api.url}/model/executor/v1`, { "x-phoneloop-goal": goal.id, "x-phoneloop-agent": agent.id });
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.error.message).toMatch(/paused/i);
    expect(upstream.requests.length).toBe(before);
  });

  it("says how to configure it when no endpoint is set, and names the routes for an unknown role", async () => {
    const none = await ask(`${bare.url}/model/executor/v1`);
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.error.message).toMatch(/MODEL_BASE_URL/);
    const r = await fetch(`${api.url}/model/painter/v1/chat/completions`, { method: "POST", body: "{}" });
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/planner\|executor\|summarizer/);
  });
});
