import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { countRequestTokens, countTextTokens, createOpenAIModel } from "@phoneloop/agent";
import { countPromptTokens } from "./prompt-tokens.ts";
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { evidenceList, finishRun, issueAgentToken, pauseGoal, registerAgent, setQuotaPolicy, startRun } from "@phoneloop/state";
import { rid, seedGoal, seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { signUpMember } from "./auth/testing.ts";

const UPSTREAM_KEY = "sk-upstream-secret-4f1c9a";
const t = useTestDatabase();
const api = useApiServer(t);
let upstream: ScriptedModelServer;

beforeAll(async () => {
  upstream = await startScriptedModelServer({ fallback: { text: '{"type":"wait"}', promptTokens: 1200, completionTokens: 30 } });
});
afterAll(async () => {
  await upstream.stop();
});

/** A workspace with model settings, an agent registered with its own token, and a running run on a goal. */
async function runningAgent(opts: { settings?: boolean; baseUrl?: string } = {}) {
  const { workspace, admin } = await seedWorkspace(t.db);
  if (opts.settings !== false) {
    await api.modelSettings.set(
      workspace.id,
      { baseUrl: opts.baseUrl ?? upstream.baseURL, apiKey: UPSTREAM_KEY, models: { executor: "vision-large", planner: "text-large" }, microUsdPerInputToken: 2, microUsdPerOutputToken: 10 },
      admin.id,
    );
  }
  const { token, tokenId } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "tab", issuedBy: admin.id });
  const agent = await registerAgent(t.db, { id: rid("agent"), name: "Pixel tab", kind: "browser", workspaceId: workspace.id, tokenId });
  const goal = await seedGoal(t.db, { workspaceId: workspace.id });
  const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
  return { workspace, admin, token, agent, goal, run };
}

const ask = (opts: { key?: string; run?: string; model?: string; role?: string }) =>
  createOpenAIModel({
    baseURL: `${api.url}/model/${opts.role ?? "executor"}/v1`,
    apiKey: opts.key ?? "none",
    model: opts.model ?? "",
    structuredOutput: "none",
    defaultHeaders: opts.run ? { "x-phoneloop-run": opts.run } : {},
  }).complete({ role: "executor", messages: [{ role: "user", content: "What next?" }] });

describe("model proxy", () => {
  it("takes the workspace's endpoint, key and model, spends the call against the quota and records it as evidence", async () => {
    const a = await runningAgent();
    const before = upstream.requests.length;
    const answer = await ask({ key: a.token, run: a.run.id });
    expect(answer.ok).toBe(true);
    if (answer.ok) expect(answer.value.usage).toMatchObject({ inputTokens: 1200, outputTokens: 30 });
    const forwarded = upstream.requests[before]!;
    expect(forwarded.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(forwarded.model).toBe("vision-large");
    const calls = (await evidenceList(t.db, { goalId: a.goal.id, kind: "model_call" })).items;
    expect(calls).toHaveLength(1);
    expect(calls[0]!.data).toMatchObject({ role: "executor", model: "vision-large", inputTokens: 1200, outputTokens: 30, microUsd: 1200 * 2 + 30 * 10 });
    expect(calls[0]!.runId).toBe(a.run.id);
    const spends = await t.db.quotaSpend.findMany({ where: { goalId: a.goal.id } });
    expect(spends.map((s) => ({ tokens: s.tokens, microUsd: Number(s.microUsd), agentId: s.agentId }))).toEqual([{ tokens: 1230, microUsd: 2700, agentId: a.agent.id }]);
  });

  it("counts a reply without usage with the tokenizer, marks it estimated and spends it at the role's prices; the quota spent is the calls' evidence, exactly", async () => {
    const reply = 'I will tap the "Send" button at the bottom of the conversation.';
    const bare = await startScriptedModelServer({ script: [{ text: reply, noUsage: true }, { text: '{"type":"wait"}', promptTokens: 900, completionTokens: 12 }, { text: reply, noUsage: true }] });
    try {
      const a = await runningAgent({ baseUrl: bare.baseURL });
      for (let n = 0; n < 3; n++) expect((await ask({ key: a.token, run: a.run.id })).ok).toBe(true);
      const calls = (await evidenceList(t.db, { goalId: a.goal.id, kind: "model_call" })).items.map((c) => c.data as Record<string, number | boolean | undefined>);
      expect(calls).toHaveLength(3);
      const estimated = calls.filter((c) => c.estimated === true);
      expect(estimated).toHaveLength(2);
      // The prompt as the proxy counted it before the call; the reply's text by the same tokenizer.
      const prompt = await countPromptTokens(bare.requests[0]!.body);
      for (const c of estimated) {
        expect(c).toMatchObject({ via: "api", inputTokens: prompt, outputTokens: countTextTokens(reply), microUsd: prompt * 2 + countTextTokens(reply) * 10 });
        expect(c.outputTokens).toBeGreaterThan(0);
      }
      expect(calls.filter((c) => !c.estimated)).toMatchObject([{ inputTokens: 900, outputTokens: 12, microUsd: 900 * 2 + 12 * 10 }]);
      const spends = await t.db.quotaSpend.findMany({ where: { goalId: a.goal.id } });
      const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
      expect({ tokens: sum(spends.map((x) => x.tokens)), microUsd: sum(spends.map((x) => Number(x.microUsd))) }).toEqual({
        tokens: sum(calls.map((c) => Number(c.inputTokens) + Number(c.outputTokens))),
        microUsd: sum(calls.map((c) => Number(c.microUsd))),
      });
      expect(await t.db.quotaReservation.count({ where: { goalId: a.goal.id } })).toBe(0);
    } finally {
      await bare.stop();
    }
  });

  it("answers 401 to an anonymous caller and 403 to a signed-in person, before any upstream call", async () => {
    const a = await runningAgent();
    const before = upstream.requests.length;
    const anonymous = await fetch(`${api.url}/model/executor/v1/chat/completions`, { method: "POST", headers: { "x-phoneloop-run": a.run.id }, body: "{}" });
    expect(anonymous.status).toBe(401);
    const person = await signUpMember({ db: t.db, auth: api.auth }, { workspaceId: a.workspace.id, role: "operator" });
    const member = await fetch(`${api.url}/model/executor/v1/chat/completions`, { method: "POST", headers: { ...person.headers, "x-phoneloop-run": a.run.id }, body: "{}" });
    expect(member.status).toBe(403);
    expect(upstream.requests.length).toBe(before);
  });

  it("refuses a paused goal and an exhausted quota before the upstream is called", async () => {
    const paused = await runningAgent();
    await pauseGoal(t.db, { goalId: paused.goal.id, reason: "waiting for the owner" });
    const exhausted = await runningAgent();
    await setQuotaPolicy(t.db, { scope: "goal", goalId: exhausted.goal.id, windowMs: 3_600_000, maxTokens: 0 });
    const before = upstream.requests.length;
    const p = await ask({ key: paused.token, run: paused.run.id });
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.error.message).toMatch(/paused/i);
    const q = await ask({ key: exhausted.token, run: exhausted.run.id });
    expect(q.ok).toBe(false);
    if (!q.ok) expect(q.error.message).toMatch(/quota|exhausted/i);
    expect(upstream.requests.length).toBe(before);
  });

  it("answers 400 for a model name that is not in the workspace's settings, and 503 without settings", async () => {
    const a = await runningAgent();
    const before = upstream.requests.length;
    const r = await fetch(`${api.url}/model/executor/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.token}`, "x-phoneloop-run": a.run.id, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-expensive", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/not in this workspace's model settings/);
    expect(upstream.requests.length).toBe(before);
  });

  it("without model settings answers with the demo model (the reference policy), labelled, metered at no cost", async () => {
    const bare = await runningAgent({ settings: false });
    const before = upstream.requests.length;
    const plan = await fetch(`${api.url}/model/planner/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${bare.token}`, "x-phoneloop-run": bare.run.id, "content-type": "application/json" },
      body: JSON.stringify({ response_format: { type: "json_schema", json_schema: { name: "plan", schema: {} } }, messages: [{ role: "user", content: "GOAL: Turn off Wi-Fi.\nWrite the plan: {}" }] }),
    });
    expect(plan.status).toBe(200);
    const body = (await plan.json()) as { model: string; choices: { message: { content: string } }[] };
    expect(body.model).toBe("reference-policy");
    const reply = JSON.parse(body.choices[0]!.message.content) as { todos: { title: string }[] };
    expect(reply.todos.map((t) => t.title)).toEqual(["Step 1 of 3: Open Settings", 'Step 2 of 3: In Settings, tap "Network & internet"', 'Step 3 of 3: In Settings, tap "Wi-Fi"']);
    expect(upstream.requests.length).toBe(before);
    const calls = (await evidenceList(t.db, { goalId: bare.goal.id, kind: "model_call" })).items;
    expect(calls).toHaveLength(1);
    expect(calls[0]!.summary).toMatch(/Demo model — reference policy, not AI/);
    expect(calls[0]!.data).toMatchObject({ role: "planner", model: "reference-policy", microUsd: 0, demo: true });
  });

  it("serves the reference policy at /reference-policy/v1 to a signed-in caller only", async () => {
    const a = await runningAgent({ settings: false });
    const chat = JSON.stringify({ messages: [{ role: "user", content: "GOAL: Turn on Bluetooth.\nWrite the plan: {}" }] });
    const anonymous = await fetch(`${api.url}/reference-policy/v1/chat/completions`, { method: "POST", body: chat });
    expect(anonymous.status).toBe(401);
    const agent = await fetch(`${api.url}/reference-policy/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${a.token}` }, body: chat });
    expect(agent.status).toBe(200);
    expect(((await agent.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toContain("Connected devices");
  });

  it("meters a call without a run header against the agent's only running run", async () => {
    const a = await runningAgent();
    const answer = await ask({ key: a.token });
    expect(answer.ok).toBe(true);
    expect((await evidenceList(t.db, { goalId: a.goal.id, kind: "model_call" })).items).toMatchObject([{ runId: a.run.id }]);
  });

  it("refuses another agent's run and a run that has ended", async () => {
    const a = await runningAgent();
    const b = await runningAgent();
    const foreign = await ask({ key: a.token, run: b.run.id });
    expect(foreign.ok).toBe(false);
    if (!foreign.ok) expect(foreign.error.message).toMatch(/No run/);
    await finishRun(t.db, { runId: a.run.id, agentId: a.agent.id, status: "completed", summary: "done" });
    const ended = await ask({ key: a.token, run: a.run.id });
    expect(ended.ok).toBe(false);
    if (!ended.ok) expect(ended.error.message).toMatch(/is completed; start or resume a run/);
    const noRun = await ask({ key: a.token });
    expect(noRun.ok).toBe(false);
    if (!noRun.ok) expect(noRun.error.message).toMatch(/no running run/);
  });

  it("sends each role with its own endpoint to that endpoint, with its key and model, metered at its prices; no key is ever answered or logged", async () => {
    const PLANNER_KEY = "sk-planner-own-8e13b2c7";
    const planner = await startScriptedModelServer({ fallback: { text: '{"todos":[]}', promptTokens: 500, completionTokens: 40 } });
    const printed: string[] = [];
    const capture = (chunk: unknown) => void printed.push(String(chunk));
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (capture(chunk), true));
    const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (capture(chunk), true));
    try {
      const a = await runningAgent({ settings: false });
      await api.modelSettings.set(
        a.workspace.id,
        {
          baseUrl: upstream.baseURL,
          apiKey: UPSTREAM_KEY,
          models: { planner: "planner-large", executor: "vision-large", summarizer: "text-small" },
          microUsdPerInputToken: 2,
          microUsdPerOutputToken: 10,
          roles: { planner: { baseUrl: planner.baseURL, apiKey: PLANNER_KEY, microUsdPerInputToken: 7, microUsdPerOutputToken: 30 } },
        },
        a.admin.id,
      );
      const sharedBefore = upstream.requests.length;
      const answers: string[] = [];
      for (const role of ["planner", "executor"] as const) {
        const r = await fetch(`${api.url}/model/${role}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${a.token}`, "x-phoneloop-run": a.run.id, "content-type": "application/json" },
          body: JSON.stringify({ messages: [{ role: "user", content: `the ${role} asks` }] }),
        });
        expect(r.status).toBe(200);
        answers.push(await r.text());
      }
      expect(planner.requests.map((q) => [q.authorization, q.model, q.lastUserText])).toEqual([[`Bearer ${PLANNER_KEY}`, "planner-large", "the planner asks"]]);
      expect(upstream.requests.slice(sharedBefore).map((q) => [q.authorization, q.model, q.lastUserText])).toEqual([[`Bearer ${UPSTREAM_KEY}`, "vision-large", "the executor asks"]]);
      const calls = (await evidenceList(t.db, { goalId: a.goal.id, kind: "model_call" })).items;
      const byRole = Object.fromEntries(calls.map((c) => [(c.data as { role: string }).role, c.data]));
      expect(byRole.planner).toMatchObject({ model: "planner-large", inputTokens: 500, outputTokens: 40, microUsd: 500 * 7 + 40 * 30 });
      expect(byRole.executor).toMatchObject({ model: "vision-large", inputTokens: 1200, outputTokens: 30, microUsd: 1200 * 2 + 30 * 10 });
      const spent = await t.db.quotaSpend.findMany({ where: { goalId: a.goal.id } });
      expect(spent.map((x) => Number(x.microUsd)).sort((x, y) => x - y)).toEqual([2700, 4700]);

      // The view names the role's own endpoint and says only that its key is set.
      const view = await api.modelSettings.view(a.workspace.id);
      expect(view?.roles).toEqual({ planner: { baseUrl: planner.baseURL, hasApiKey: true, microUsdPerInputToken: 7, microUsdPerOutputToken: 30 } });
      // Saving again without the key keeps it; clearing the role sends the planner back to the shared endpoint.
      await api.modelSettings.set(a.workspace.id, { baseUrl: upstream.baseURL, models: { planner: "planner-large", executor: "vision-large" }, roles: { planner: { baseUrl: planner.baseURL } } }, a.admin.id);
      expect((await api.modelSettings.upstream(a.workspace.id))?.roles.planner).toMatchObject({ ownEndpoint: true, apiKey: PLANNER_KEY, microUsdPerInputToken: 0 });
      await api.modelSettings.set(a.workspace.id, { baseUrl: upstream.baseURL, models: { planner: "planner-large", executor: "vision-large" }, roles: { planner: null } }, a.admin.id);
      expect((await api.modelSettings.view(a.workspace.id))?.roles).toEqual({});
      expect((await api.modelSettings.upstream(a.workspace.id))?.roles.planner).toMatchObject({ ownEndpoint: false, baseUrl: upstream.baseURL, apiKey: UPSTREAM_KEY });

      const everything = [...answers, JSON.stringify(calls), JSON.stringify(view), ...printed].join("\n");
      for (const key of [PLANNER_KEY, UPSTREAM_KEY]) expect(everything).not.toContain(key);
    } finally {
      out.mockRestore();
      err.mockRestore();
      await planner.stop();
    }
  });

  it("never lends the shared key to a role's own URL, and refuses an endpoint that is not http(s)", async () => {
    const other = await startScriptedModelServer({ fallback: { text: "{}", promptTokens: 1, completionTokens: 1 } });
    try {
      const a = await runningAgent({ settings: false });
      await api.modelSettings.set(a.workspace.id, { baseUrl: upstream.baseURL, apiKey: UPSTREAM_KEY, models: { executor: "vision-large" }, roles: { executor: { baseUrl: other.baseURL } } }, a.admin.id);
      const answer = await ask({ key: a.token, run: a.run.id });
      expect(answer.ok).toBe(true);
      expect(other.requests.map((q) => q.authorization)).toEqual([undefined]);
      await expect(
        api.modelSettings.set(a.workspace.id, { baseUrl: upstream.baseURL, models: {}, roles: { executor: { baseUrl: "file:///etc/passwd" } } }, a.admin.id),
      ).rejects.toThrow(/http\(s\) URL/);
    } finally {
      await other.stop();
    }
  });

  it("reports an upstream failure without its URL or key", async () => {
    // (A base URL with a query is refused on save: model-endpoint-url.test.ts.)
    const a = await runningAgent({ baseUrl: "http://127.0.0.1:9/v1" });
    const r = await fetch(`${api.url}/model/executor/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.token}`, "x-phoneloop-run": a.run.id, "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    const text = await r.text();
    expect(r.status).toBe(502);
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(text).not.toContain("127.0.0.1:9");
    expect(text).not.toContain("api_key");
    expect(text).toMatch(/could not be reached/);
  });
});

describe("model proxy quota: the call's worst case is reserved before it goes out", () => {
  // A prompt of 63 tokens as the proxy and the endpoint count it: with its reply of 227 tokens, a call of 290.
  const PROMPT = "Look at the screen and answer with the next action for the todo. ".repeat(4).trim();
  const promptTokens = countRequestTokens([{ role: "user", content: PROMPT }]).total;
  const REPLY_TOKENS = 290 - promptTokens;
  /** An endpoint like a provider's: it counts the prompt, and its reply stops at the request's max_tokens. */
  const honest = (req: RecordedRequest) => ({
    text: '{"type":"wait"}',
    promptTokens: countRequestTokens(req.messages.map((m) => ({ role: m.role as "user", content: String(m.content) }))).total,
    completionTokens: Math.min(REPLY_TOKENS, typeof req.body.max_tokens === "number" ? req.body.max_tokens : REPLY_TOKENS),
  });
  let provider: ScriptedModelServer;
  beforeAll(async () => {
    provider = await startScriptedModelServer({ fallback: honest });
  });
  afterAll(async () => {
    await provider.stop();
  });

  async function capped(limits: { maxTokens?: number; maxMicroUsd?: number }) {
    const a = await runningAgent({ baseUrl: provider.baseURL });
    await setQuotaPolicy(t.db, { scope: "goal", goalId: a.goal.id, windowMs: 3_600_000, ...limits });
    return a;
  }
  const chat = async (a: { token: string; run: { id: string } }, maxTokens = REPLY_TOKENS) => {
    const r = await fetch(`${api.url}/model/executor/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.token}`, "x-phoneloop-run": a.run.id, "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: PROMPT }], max_tokens: maxTokens }),
    });
    return { status: r.status, body: (await r.json()) as { error?: { message: string; code: string }; usage?: { prompt_tokens: number; completion_tokens: number } } };
  };
  const recorded = async (goalId: string) => {
    const spends = await t.db.quotaSpend.findMany({ where: { goalId } });
    return { tokens: spends.reduce((n, s) => n + s.tokens, 0), microUsd: spends.reduce((n, s) => n + Number(s.microUsd), 0) };
  };

  it("a cap of 100 tokens and ten calls of 290: the first goes out with the reply budget that fits, the rest are 409 naming the quota", async () => {
    expect(promptTokens).toBe(63);
    const a = await capped({ maxTokens: 100 });
    const before = provider.requests.length;
    const answers = [];
    for (let n = 0; n < 10; n++) answers.push(await chat(a));
    expect(answers.map((r) => r.status)).toEqual([200, ...Array(9).fill(409)]);
    expect(provider.requests.slice(before).map((q) => q.body.max_tokens)).toEqual([100 - promptTokens]);
    expect(answers[0]!.body.usage).toEqual({ prompt_tokens: promptTokens, completion_tokens: 100 - promptTokens, total_tokens: 100 });
    const refused = answers[1]!.body.error!;
    expect(refused.code).toBe("QUOTA_EXCEEDED");
    expect(refused.message).toContain(`goal quota of ${a.goal.id}`);
    expect(refused.message).toContain("0 of 100 tokens left");
    expect(refused.message).toContain("an admin can raise the quota");
    expect(await recorded(a.goal.id)).toEqual({ tokens: 100, microUsd: promptTokens * 2 + (100 - promptTokens) * 10 });
    expect(await t.db.quotaReservation.count({ where: { goalId: a.goal.id } })).toBe(0);
  });

  it("a cap of 1,000 µ$: the reply budget is what the money leaves at the role's prices; the calls after it are 409", async () => {
    const a = await capped({ maxMicroUsd: 1_000 });
    const before = provider.requests.length;
    const answers = [];
    for (let n = 0; n < 4; n++) answers.push(await chat(a));
    expect(answers.map((r) => r.status)).toEqual([200, 409, 409, 409]);
    const budget = Math.floor((1_000 - promptTokens * 2) / 10);
    expect(provider.requests.slice(before).map((q) => q.body.max_tokens)).toEqual([budget]);
    expect(answers[1]!.body.error!.message).toMatch(/micro-dollars left/);
    const spent = await recorded(a.goal.id);
    expect(spent.microUsd).toBe(promptTokens * 2 + budget * 10);
    expect(spent.microUsd).toBeLessThanOrEqual(1_000);
  });

  it("twenty concurrent calls: none on a cap of 1 token, at most one on a cap of one call's worst case", async () => {
    const one = await capped({ maxTokens: 1 });
    const tiny = await Promise.all(Array.from({ length: 20 }, () => chat(one, 40)));
    expect(tiny.filter((r) => r.status === 200)).toHaveLength(0);
    expect(await recorded(one.goal.id)).toEqual({ tokens: 0, microUsd: 0 });

    const cap = promptTokens + 40;
    const a = await capped({ maxTokens: cap });
    const answers = await Promise.all(Array.from({ length: 20 }, () => chat(a, 40)));
    expect(answers.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    expect(answers.filter((r) => r.status === 409).length).toBeGreaterThanOrEqual(19);
    expect((await recorded(a.goal.id)).tokens).toBeLessThanOrEqual(cap);
  });

  it("counts a prompt's images by their declared size: a short text with a 2000×2000 screenshot does not fit 500 tokens", async () => {
    const a = await capped({ maxTokens: 500 });
    const png = await sharp({ create: { width: 2000, height: 2000, channels: 3, background: { r: 40, g: 90, b: 200 } } }).png().toBuffer();
    const send = (detail: "high" | "low") =>
      fetch(`${api.url}/model/executor/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${a.token}`, "x-phoneloop-run": a.run.id, "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: [{ type: "text", text: "What next?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${png.toString("base64")}`, detail } }] }], max_tokens: 40 }),
      });
    const high = await send("high");
    expect(high.status).toBe(409);
    // 2000×2000 fits 2048², its short side scaled to 768: 2×2 tiles of 512, 85 + 4 × 170 tokens.
    expect(((await high.json()) as { error: { message: string } }).error.message).toMatch(/needs at least 7\d\d tokens/);
    // At detail "low" an image is a flat 85 tokens: the call fits.
    expect((await send("low")).status).toBe(200);
  });

  it("a call in flight holds its worst case; its upstream failing releases it: the next call has the whole room, the one after is 409", async () => {
    const cap = promptTokens + 40;
    const a = await capped({ maxTokens: cap });
    provider.push({ status: 500, message: "the provider fell over", delayMs: 300 });
    const before = provider.requests.length;
    const failing = chat(a, 40);
    while (provider.requests.length === before) await new Promise((r) => setTimeout(r, 10));
    const meanwhile = await chat(a, 40);
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body.error!.message).toContain(`${cap} tokens held by model calls in flight`);
    expect((await failing).status).toBe(500);
    expect(await t.db.quotaReservation.count({ where: { goalId: a.goal.id } })).toBe(0);
    expect((await chat(a, 40)).status).toBe(200);
    expect((await chat(a, 40)).status).toBe(409);
    expect(await recorded(a.goal.id)).toMatchObject({ tokens: cap });
  });
});

