// A tab's run through the API's model proxy: the real runtime (runAgent) with this package's ControlPlane, its models
// at `<api>/model/<role>/v1` with the agent token as the key (as the web app's runner builds them), the real API on a
// throwaway Postgres database, and a scripted OpenAI-compatible endpoint as the workspace's model. The proxy reserves
// and settles each call against the quota; the runtime must not spend the same tokens again, and a call the quota
// will not hold ends the todo with the quota as the reason, in the proxy's words.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModels, runAgent, systemClock, type Models } from "@phoneloop/agent";
import { nodeImages } from "@phoneloop/agent/node";
import { FakePhone, act, box, startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { agentTokenHeaders, type SignedUpMember, signUpMember, useApiServer } from "@phoneloop/api/testing";
import { useTestDatabase } from "@phoneloop/state/testing";
import { createApiClient, type ApiClient } from "./api-client.ts";
import { createControlPlane } from "./control-plane.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let admin: SignedUpMember;
let member: ApiClient;
const servers: ScriptedModelServer[] = [];

// What the endpoint reports for each call of a model (its usage), and the prices per token (the workspace's, and a
// direct endpoint's: micro-dollars per token are dollars per million tokens).
const USAGE: Record<string, { promptTokens: number; completionTokens: number }> = {
  "text-model": { promptTokens: 700, completionTokens: 60 },
  "vision-model": { promptTokens: 1500, completionTokens: 20 },
  "report-model": { promptTokens: 400, completionTokens: 50 },
};
const PRICE = { in: 2, out: 10 };
const MODELS = { planner: "text-model", executor: "vision-model", summarizer: "report-model" } as const;
const PLAN = JSON.stringify({ plan: "one todo", todos: [{ id: "look", title: "Look further down the list", kind: "executor", inputs: [], outputs: [] }] });

/** An OpenAI-compatible endpoint: a plan of one todo, a scroll then done, a report; each call reports `usage`. */
async function endpoint(usage = USAGE, executor = [act({ type: "scroll", direction: "down" }, usage["vision-model"]), act({ type: "status", status: "complete", summary: "looked" }, usage["vision-model"])]) {
  const server = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === MODELS.planner, replies: [{ text: PLAN, ...usage[MODELS.planner] }], repeatLast: true },
      { match: (r) => r.model === MODELS.summarizer, replies: [{ text: JSON.stringify({ findings: [], conclusion: "Report written." }), ...usage[MODELS.summarizer] }], repeatLast: true },
      { match: (r) => r.model === MODELS.executor, replies: executor, repeatLast: true },
    ],
  });
  servers.push(server);
  return server;
}

/** The workspace's model: the proxy's upstream. */
const useEndpoint = (server: ScriptedModelServer) =>
  api.modelSettings.set(admin.workspaceId, { baseUrl: server.baseURL, apiKey: "sk-upstream-9c2e71", models: MODELS, microUsdPerInputToken: PRICE.in, microUsdPerOutputToken: PRICE.out }, admin.userId);

/** What the endpoint reported for its calls since `from`, at PRICE. */
function reported(server: ScriptedModelServer, from = 0) {
  return server.requests.slice(from).reduce((n, r) => {
    const u = USAGE[r.model]!;
    return { tokens: n.tokens + u.promptTokens + u.completionTokens, microUsd: n.microUsd + u.promptTokens * PRICE.in + u.completionTokens * PRICE.out };
  }, { tokens: 0, microUsd: 0 });
}

beforeAll(async () => {
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin", name: "Olive" });
  member = createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: admin.headers.cookie! } });
});
afterAll(async () => {
  for (const s of servers) await s.stop();
});

/** An agent token of the workspace and the ControlPlane over it. */
async function worker(): Promise<{ token: string; controlPlane: ReturnType<typeof createControlPlane> }> {
  const { token } = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId, name: "tab" });
  return { token, controlPlane: createControlPlane(createApiClient({ apiUrl: api.url, auth: { kind: "token", token } }), { apiUrl: api.url }) };
}

/** A tab's runtime: the agent token as the proxy's key, every role through the proxy (the workspace's model). */
async function tab(): Promise<{ models: Models; controlPlane: ReturnType<typeof createControlPlane> }> {
  const { token, controlPlane } = await worker();
  const role = (r: string) => ({ baseURL: `${api.url}/model/${r}/v1`, apiKey: token, model: "" });
  return { models: createModels({ planner: role("planner"), executor: role("executor"), summarizer: role("summarizer") }), controlPlane };
}

const list = () =>
  new FakePhone(
    {
      top: { app: "com.example.notes", background: "#fafafa", elements: [{ id: "a", text: "First note", bounds: box(50, 100, 950, 300) }], onScroll: (phone) => void (phone.current = "bottom") },
      bottom: { app: "com.example.notes", background: "#eef", elements: [{ id: "z", text: "Last note", bounds: box(50, 100, 950, 300) }] },
    },
    "top",
  );

describe("a run through the API's model proxy", () => {
  it("spends each call's tokens and money once: what the endpoint reported, settled by the proxy, not again by the runtime", async () => {
    const upstream = await endpoint();
    await useEndpoint(upstream);
    const { models, controlPlane } = await tab();
    const out = await runAgent(
      { device: list(), models, controlPlane, clock: systemClock, images: nodeImages },
      { goal: "Look at the end of the notes list", agent: { name: "tab", kind: "browser", capabilities: ["phone"] }, config: { learn: false } },
    );
    expect(out).toMatchObject({ status: "completed", endReason: "all_done" });
    expect(upstream.requests.map((r) => r.model).sort()).toEqual(["report-model", "text-model", "vision-model", "vision-model"]);
    // The goal's spend as the state core holds it (the board): the tokens and money the endpoint reported, and the
    // steps, which only the runtime spends.
    const run = await member.run.get.query({ runId: out.runId });
    const board = await member.board.get.query({ goalId: out.goalId });
    expect(board.spent).toEqual({ steps: run.steps.length, ...reported(upstream) });
    // The run's totals still count every token the calls used; each step row counts its model call.
    expect(out.report.totals).toMatchObject({ modelCalls: 4, inputTokens: 4100, outputTokens: 150 });
    expect(run.steps.map((s) => s.tokens)).toEqual([1520, 1520]);
  }, 120_000);

  it("a direct endpoint's calls are spent by the runtime, once each (the step's turn result, the planner's and the summarizer's own keys)", async () => {
    const direct = await endpoint();
    const { controlPlane } = await worker();
    const role = (model: string) => ({ baseURL: direct.baseURL, model, price: { inputPerMTok: PRICE.in, outputPerMTok: PRICE.out } });
    const models = createModels({ planner: role(MODELS.planner), executor: role(MODELS.executor), summarizer: role(MODELS.summarizer) });
    const out = await runAgent(
      { device: list(), models, controlPlane, clock: systemClock, images: nodeImages },
      { goal: "Look at the end of the notes list, headless", agent: { name: "headless", kind: "headless", capabilities: ["phone"] }, config: { learn: false } },
    );
    expect(out).toMatchObject({ status: "completed", endReason: "all_done" });
    expect(direct.requests).toHaveLength(4);
    const run = await member.run.get.query({ runId: out.runId });
    expect((await member.board.get.query({ goalId: out.goalId })).spent).toEqual({ steps: run.steps.length, ...reported(direct) });
  }, 120_000);

  it("a call the quota will not hold (room is left, but not for the prompt) ends the todo with the quota as the reason, in the proxy's words", async () => {
    // The plan leaves 20 of 3,000 tokens: the quota is not exhausted, but no executor prompt fits in it.
    const planned = { promptTokens: 2900, completionTokens: 80 };
    const goal = await member.goal.create.mutate({ title: "Look at the end", objective: "Look at the end of the notes list", quota: { windowMs: 3_600_000, maxTokens: 3000 } });
    const upstream = await endpoint({ ...USAGE, [MODELS.planner]: planned }, [act({ type: "scroll", direction: "down" })]);
    await useEndpoint(upstream);
    const { models, controlPlane } = await tab();
    const phone = list();
    const out = await runAgent(
      { device: phone, models, controlPlane, clock: systemClock, images: nodeImages },
      { goalId: goal.id, agent: { name: "tab", kind: "browser", capabilities: ["phone"] }, config: { learn: false } },
    );
    expect(out).toMatchObject({ status: "blocked", endReason: "exhausted" });
    // The proxy never forwarded an executor call, and the phone was not touched.
    expect(upstream.requests.map((r) => r.model)).toEqual(["text-model"]);
    expect(phone.actions()).toEqual([]);
    // The run ends in the proxy's words: what the quota leaves and what to do.
    expect(out.report.conclusion).toContain(`the goal quota of ${goal.id} has: 20 of 3000 tokens left`);
    expect(out.report.conclusion).toContain("an admin can raise the quota");
    // The executor asked once: no retry of a refusal the quota will repeat.
    const faults = (await member.evidence.list.query({ goalId: goal.id, kind: "anomaly" })).items.map((e) => e.data as { fault?: string; role?: string; code?: string });
    expect(faults.filter((f) => f.fault === "model_call_failed" && f.role === "executor").map((f) => f.code)).toEqual(["QUOTA_EXCEEDED"]);
    const board = await member.board.get.query({ goalId: goal.id });
    expect(board.spent).toMatchObject({ steps: 0, tokens: planned.promptTokens + planned.completionTokens });
  }, 120_000);
});
