// A model call is metered once, where it is made, end to end: the headless composition (packages/client's
// ControlPlane over the real API on a throwaway database), the virtual phone over real ADB, a scripted
// OpenAI-compatible endpoint — asked directly (the runtime meters the call: its model_call evidence is spent as the
// step records it) or through the API's model proxy (the proxy meters it: its settle records the evidence). Some
// replies carry no usage: they are counted with the tokenizer and marked estimated. After each run the quota's spent
// tokens and micro-dollars equal the sum of the run's model_call evidence, exactly.
import { describe, expect, it } from "vitest";
import { lampExecutor, lampScenario, planOf, type RecordedRequest, type ScriptedReply } from "@phoneloop/agent/testing";
import { readEvidenceData } from "@phoneloop/state/domain";
import { useHeadlessE2e } from "../testing/headless-e2e.ts";
import { runHeadless } from "./compose.ts";

const { t, api, ...e2e } = useHeadlessE2e("metering-e2e");

async function phone(seed: number) {
  const p = await e2e.phone({ scenario: lampScenario("plain"), seed, task: "lamp_on" });
  return { device: p.device, goal: p.goal };
}

/** Every other reply of a role comes without usage (an endpoint that omits it). */
function everyOtherWithoutUsage(reply: (req: RecordedRequest) => ScriptedReply): (req: RecordedRequest) => ScriptedReply {
  let n = 0;
  return (req) => {
    const r = reply(req);
    return n++ % 2 === 1 && "text" in r ? { ...r, noUsage: true } : r;
  };
}

async function scriptedEndpoint(goal: string) {
  const executor = everyOtherWithoutUsage(lampExecutor());
  const server = await e2e.modelServer({
    rules: [
      // The plan reports its usage; the summarizer's report does not.
      { match: (r) => r.model === "planner-model", replies: [planOf([{ id: "t1", title: goal, app: "Lamp" }])], repeatLast: true },
      { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Done." }), noUsage: true }], repeatLast: true },
      { match: (r) => r.model === "executor-model", replies: [executor], repeatLast: true },
    ],
  });
  return server;
}

const worker = (name: string) => e2e.worker(name, "meter");

/** The run's model calls as their evidence says, and what the quota spent on the run's goal. */
async function meterOf(runId: string) {
  const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
  const rows = await t.db.evidence.findMany({ where: { goalId: run.goalId, kind: "model_call" } });
  const calls = rows.map((r) => readEvidenceData("model_call", r.data));
  const spends = await t.db.quotaSpend.findMany({ where: { goalId: run.goalId } });
  return {
    calls,
    evidence: { tokens: calls.reduce((n, c) => n + (c.inputTokens ?? 0) + (c.outputTokens ?? 0), 0), microUsd: calls.reduce((n, c) => n + (c.microUsd ?? 0), 0) },
    spent: { tokens: spends.reduce((n, s) => n + s.tokens, 0), microUsd: spends.reduce((n, s) => n + Number(s.microUsd), 0), steps: spends.reduce((n, s) => n + s.steps, 0) },
    reservations: await t.db.quotaReservation.count({ where: { goalId: run.goalId } }),
  };
}

const PRICE = { inputPerMTok: 2, outputPerMTok: 10 };

describe("a model call is metered once, where it is made", () => {
  it("direct endpoints: the quota spent equals the run's model_call evidence, estimated replies included", { timeout: 120_000 }, async () => {
    const w = await worker("Direct meter");
    const p = await phone(1);
    const server = await scriptedEndpoint(p.goal);
    const models = {
      executor: { baseURL: server.baseURL, model: "executor-model", price: PRICE },
      planner: { baseURL: server.baseURL, model: "planner-model", price: PRICE },
      summarizer: { baseURL: server.baseURL, model: "summarizer-model", price: PRICE },
    };
    const out = await runHeadless({ apiUrl: api.url, agentToken: w.token, agentId: w.agentId, device: p.device, models, goal: p.goal, agentName: "meter", ocr: null, config: { maxStepsPerTodo: 30, maxStepsPerRun: 40 } });
    expect(out.status).toBe("completed");
    const m = await meterOf(out.runId);
    expect(m.calls.length).toBe(server.requests.length);
    expect(m.calls.every((c) => c.via === "runtime")).toBe(true);
    const estimated = m.calls.filter((c) => c.estimated);
    expect(estimated.length).toBeGreaterThanOrEqual(2); // the summarizer's report and every other executor reply
    for (const c of estimated) {
      expect(c.inputTokens).toBeGreaterThan(0);
      expect(c.outputTokens).toBeGreaterThan(0);
      expect(c.microUsd).toBe(Math.round(c.inputTokens! * PRICE.inputPerMTok + c.outputTokens! * PRICE.outputPerMTok));
    }
    expect(m.evidence.tokens).toBeGreaterThan(0);
    expect({ tokens: m.spent.tokens, microUsd: m.spent.microUsd }).toEqual(m.evidence);
    expect(m.spent.steps).toBeGreaterThan(0); // the steps are still counted, by the turn results
  });

  it("through the API's model proxy: the quota spent equals the run's model_call evidence, estimated replies included", { timeout: 120_000 }, async () => {
    const w = await worker("Proxied meter");
    const p = await phone(2);
    const server = await scriptedEndpoint(p.goal);
    await api.modelSettings.set(
      w.workspace.id,
      { baseUrl: server.baseURL, apiKey: "sk-meter-upstream-1f2e3d4c", models: { executor: "executor-model", planner: "planner-model", summarizer: "summarizer-model" }, microUsdPerInputToken: 2, microUsdPerOutputToken: 10 },
      w.admin.id,
    );
    const proxy = (role: string, model: string) => ({ baseURL: `${api.url}/model/${role}/v1`, apiKey: w.token, model });
    const models = { executor: proxy("executor", "executor-model"), planner: proxy("planner", "planner-model"), summarizer: proxy("summarizer", "summarizer-model") };
    const out = await runHeadless({ apiUrl: api.url, agentToken: w.token, agentId: w.agentId, device: p.device, models, goal: p.goal, agentName: "meter", ocr: null, config: { maxStepsPerTodo: 30, maxStepsPerRun: 40 } });
    expect(out.status).toBe("completed");
    const m = await meterOf(out.runId);
    expect(m.calls.length).toBe(server.requests.length);
    expect(m.calls.every((c) => c.via === "api")).toBe(true);
    const estimated = m.calls.filter((c) => c.estimated);
    expect(estimated.length).toBeGreaterThanOrEqual(2);
    for (const c of estimated) {
      expect(c.inputTokens).toBeGreaterThan(0);
      expect(c.outputTokens).toBeGreaterThan(0);
      expect(c.microUsd).toBe(Math.round(c.inputTokens! * 2 + c.outputTokens! * 10));
    }
    expect({ tokens: m.spent.tokens, microUsd: m.spent.microUsd }).toEqual(m.evidence);
    expect(m.spent.steps).toBeGreaterThan(0);
    expect(m.reservations).toBe(0);
  });
});
