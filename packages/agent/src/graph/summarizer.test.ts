// The summarizer's pure transition, input by input: which effects each one asks for, in which order, what the
// report says, and that the state handed in is never changed. No model or state core is involved: the runner's part
// is played by the test.
import { describe, expect, it } from "vitest";
import { initialState, toSummarizer, type SummarizerState } from "./state.ts";
import { summarize, type RunReport, type SummarizerEffect, type SummarizerInput } from "./summarizer.ts";

function ended(over: Partial<SummarizerState> = {}, end: SummarizerState["end"] = { status: "completed", reason: "all_done", detail: "all todos done" }): SummarizerState {
  const s = toSummarizer(initialState({ runId: "run_1", goalId: "goal_1", agentId: "agent_1", goal: "Find the price of the earbuds", preapproved: [] }), end);
  return {
    ...s,
    stepIndex: 4,
    plannerCalls: 1,
    executed: [{ todoId: "t1", title: "Open the shop", status: "done", summary: "the shop is open" }],
    findings: ["the earbuds cost 49 €"],
    blackboard: { price: "49 €" },
    totals: { steps: 4, modelCalls: 5, inputTokens: 4000, outputTokens: 100, microUsd: 9000, promptTokensCounted: 3900 },
    ...over,
  };
}

const usage = { steps: 0, modelCalls: 1, inputTokens: 300, outputTokens: 40, microUsd: 700, promptTokensCounted: 290 };

/** Walks inputs through `summarize`, checking each time that the state handed in is left as it was. */
function walk(state: SummarizerState, inputs: SummarizerInput[]): { state: SummarizerState; batches: SummarizerEffect[][] } {
  const batches: SummarizerEffect[][] = [];
  for (const input of inputs) {
    const before = structuredClone(state);
    const r = summarize(state, input);
    expect(state).toEqual(before);
    batches.push(r.effects);
    state = r.state;
  }
  return { state, batches };
}
const types = (effects: SummarizerEffect[]) => effects.map((e) => e.type);
const reportOf = (effects: SummarizerEffect[]): RunReport => (effects.at(-1) as Extract<SummarizerEffect, { type: "done" }>).report;

describe("summarizer (pure)", () => {
  it("asks the core first, then the model with the run's facts, then stores the report and finishes the run (the call was metered where it was made)", () => {
    const reply = JSON.stringify({ findings: ["the earbuds are in stock"], conclusion: "The earbuds cost 49 €.", lessons: [{ kind: "worked", text: "search from the home tab" }] });
    const { state, batches } = walk(ended(), [{ type: "begin" }, { type: "may_run", run: true, cancelled: false }, { type: "replied", text: reply, usage }]);
    expect(batches[0]).toEqual([{ type: "should_run" }]);
    const ask = batches[1]!;
    expect(ask).toHaveLength(1);
    expect(ask[0]).toMatchObject({ type: "ask_model", role: "summarizer", key: "run_1:summary:4:1:summarizer", jsonSchema: { name: "run_report" } });
    const prompt = JSON.stringify((ask[0] as Extract<SummarizerEffect, { type: "ask_model" }>).messages);
    expect(prompt).toContain("Open the shop: done — the shop is open");
    expect(prompt).toContain("price = 49 €");

    expect(types(batches[2]!)).toEqual(["evidence", "finish_run", "done"]);
    const [evidence, finish] = batches[2]!;
    expect(finish).toEqual({ type: "finish_run", status: "completed", endReason: "all_done", summary: "The earbuds cost 49 €." });
    const report = reportOf(batches[2]!);
    expect(report).toMatchObject({ status: "completed", conclusion: "The earbuds cost 49 €.", findings: ["the earbuds cost 49 €", "the earbuds are in stock"], outputs: { price: "49 €" }, lessons: [{ kind: "worked", text: "search from the home tab" }] });
    // The call's usage is counted into the run's totals, and the report carries them.
    expect(state.totals).toEqual({ steps: 4, modelCalls: 6, inputTokens: 4300, outputTokens: 140, microUsd: 9700, promptTokensCounted: 4190 });
    expect(report.totals).toEqual(state.totals);
    expect(evidence).toEqual({ type: "evidence", input: { idempotencyKey: "run_1:summary:4:1", kind: "summary", goalId: "goal_1", runId: "run_1", summary: "The earbuds cost 49 €.", data: { ...report } } });
  });

  it("does not ask the model when the core refuses it or the run was cancelled: the report is the facts, nothing is spent", () => {
    const blocked = ended({}, { status: "blocked", reason: "exhausted", detail: "the token quota is used up" });
    for (const may of [{ run: false, cancelled: false }, { run: true, cancelled: true }]) {
      const { state, batches } = walk(blocked, [{ type: "begin" }, { type: "may_run", ...may }]);
      expect(types(batches[1]!)).toEqual(["evidence", "finish_run", "done"]);
      const report = reportOf(batches[1]!);
      expect(report.conclusion).toBe("The run is blocked and can resume. the token quota is used up. 1 todo(s) worked on, 4 step(s).");
      expect(report.lessons).toEqual([]);
      expect(batches[1]![1]).toEqual({ type: "finish_run", status: "blocked", endReason: "exhausted", summary: report.conclusion });
      expect(state.totals).toEqual(blocked.totals);
    }
  });

  it("keeps the status line factual and first when the run did not complete, and the model's conclusion after it", () => {
    const lost = ended({}, { status: "blocked", reason: "device_lost", detail: "the phone disconnected" });
    const reply = JSON.stringify({ findings: [], conclusion: "Reconnect the phone and resume." });
    const { batches } = walk(lost, [{ type: "may_run", run: true, cancelled: false }, { type: "replied", text: reply, usage }]);
    expect(types(batches[1]!)).toEqual(["evidence", "finish_run", "done"]);
    expect(reportOf(batches[1]!).conclusion).toBe("The run stopped: the connection to the phone was lost. the phone disconnected. Reconnect the phone and resume.");
  });

  it("falls back to the facts on an unreadable reply or a failed call, still counting the attempts' usage", () => {
    const s = ended();
    for (const input of [{ type: "replied", text: "not json", usage }, { type: "model_failed", code: "RATE_LIMITED", message: "429", usage }] as SummarizerInput[]) {
      const { state, batches } = walk(s, [input]);
      const report = reportOf(batches[0]!);
      expect(report.conclusion).toBe("The goal was completed. 1 todo(s) worked on, 4 step(s).");
      expect(report.findings).toEqual(["the earbuds cost 49 €"]);
      expect(state.totals.modelCalls).toBe(6);
    }
    // An unreadable reply was still a call, metered where it was made: the summarizer spends nothing of its own.
    expect(types(summarize(s, { type: "replied", text: "not json", usage }).effects)).toEqual(["evidence", "finish_run", "done"]);
  });

  it("keys each end of a resumed run apart: a later end has its own report and model call keys", () => {
    const later = ended({ stepIndex: 9, plannerCalls: 3 });
    const { batches } = walk(later, [{ type: "may_run", run: true, cancelled: false }]);
    expect(batches[0]![0]).toMatchObject({ key: "run_1:summary:9:3:summarizer" });
  });
});
