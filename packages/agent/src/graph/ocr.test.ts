// Where the UI tree is blind (a WebView or canvas without nodes, no tree at all), the executor reads the
// screenshot's pixels before the permission checkpoint decides on a tap there, and the checkpoint decides on what
// was read: a committing button in a payment dialog is gated, a harmless link is not, and no reading is gated.
import { describe, expect, it } from "vitest";
import type { Lease, OcrReading, UiNode } from "../ports.ts";
import { uiNode } from "../testing/fake-phone.ts";
import { newExecutor, step, type Effect, type Observation } from "./executor.ts";
import { DEFAULT_CONFIG, initialState, type AgentConfig, type ExecutorRunState, type Screen } from "./state.ts";

const lease: Lease = { id: "lease_1", todoId: "t1", ownerId: "agent_1", leaseKey: "key_1", epoch: 1, ttlMs: 120_000, expiresAt: 1_000_000 };

function runState(): ExecutorRunState {
  const { node: _n, lastReturn: _r, held: _h, ...common } = initialState({ runId: "run_1", goalId: "goal_1", agentId: "agent_1", goal: "Read the store's page", preapproved: [] });
  return { ...common, node: "executor", executor: newExecutor({ id: "t1", title: "Open the article", outputs: [], appHint: "com.android.chrome" }, lease, {}) };
}

const node = (over: Partial<UiNode> & Pick<UiNode, "bounds">): UiNode => uiNode({ packageName: "com.android.chrome", ...over });
const full = { left: 0, top: 0, right: 1080, bottom: 2400 };
const webView = node({ index: 1, className: "android.webkit.WebView", bounds: { left: 0, top: 200, right: 1080, bottom: 2400 } });
const blindScreen = (tree: UiNode | null): Screen => ({
  app: "com.android.chrome/.Main",
  packageName: "com.android.chrome",
  width: 1080,
  height: 2400,
  phash: "00ff00ff00ff00ff",
  tree,
  elements: [],
  image: { bytes: new Uint8Array([1, 2, 3]), mime: "image/jpeg", width: 486, height: 1080 },
  observationKey: "run_1:0:observation:key_1",
});
const webPage = blindScreen(node({ className: "android.widget.FrameLayout", bounds: full, children: [node({ index: 0, text: "store.example", className: "android.widget.TextView", bounds: { left: 0, top: 60, right: 1080, bottom: 200 } }), webView] }));
const usage = { steps: 0, modelCalls: 1, inputTokens: 900, outputTokens: 20, microUsd: 2450, promptTokensCounted: 880 };
const ready: Observation = { type: "routed", route: "ready_for_host", reason: "held", skip: null, openGate: null };
// The committing button of a payment dialog drawn inside the page, at 750,1355 (x 694/1000, y 565/1000).
const tapPay: Observation = { type: "replied", text: JSON.stringify({ type: "click", x: 694, y: 565 }), usage };
const payDialog: OcrReading = {
  items: [
    { text: "Confirm payment", bounds: { left: 150, top: 985, right: 620, bottom: 1045 } },
    { text: "Pay $49.99 to Acme Store?", bounds: { left: 150, top: 1110, right: 780, bottom: 1165 } },
    { text: "Cancel", bounds: { left: 330, top: 1325, right: 470, bottom: 1385 } },
    { text: "Pay now", bounds: { left: 600, top: 1320, right: 900, bottom: 1395 } },
  ],
};
const articlePage: OcrReading = {
  items: [
    { text: "Ten walks along the river", bounds: { left: 60, top: 700, right: 1000, bottom: 780 } },
    { text: "Read the article", bounds: { left: 600, top: 1320, right: 900, bottom: 1395 } },
  ],
};

function walk(config: AgentConfig, screen: Screen, observations: Observation[]): Effect[][] {
  let state = runState();
  const batches: Effect[][] = [];
  for (const obs of [ready, { type: "sensed", screen } as Observation, tapPay, ...observations]) {
    const r = step(state, obs, config);
    batches.push(r.effects);
    state = r.state;
  }
  return batches;
}
const last = (b: Effect[][]) => b.at(-1)!.at(-1)!;
const withOcr: AgentConfig = { ...DEFAULT_CONFIG, ocr: true };

describe("executor on a blind screen", () => {
  it("asks for the screenshot to be read around the tap point before deciding on a tap inside a WebView without nodes", () => {
    const b = walk(withOcr, webPage, []);
    expect(last(b)).toEqual({ type: "read_screen", stepIndex: 0, around: { x: 749, y: 1355 } });
  });

  it("reads a screen without any tree too, and not a screen whose tree shows the target", () => {
    expect(last(walk(withOcr, blindScreen(null), []))).toMatchObject({ type: "read_screen" });
    const button = node({ index: 1, text: "Read the article", className: "android.widget.Button", clickable: true, bounds: { left: 600, top: 1300, right: 900, bottom: 1400 } });
    const sighted = blindScreen(node({ className: "android.widget.FrameLayout", bounds: full, children: [button] }));
    expect(last(walk(withOcr, sighted, [])).type).toBe("perform");
  });

  it("decides on what was read: the committing button of a payment dialog opens a gate; the reading is recorded", () => {
    const b = walk(withOcr, webPage, [{ type: "screen_read", ocr: payDialog }]);
    const evidence = b.at(-1)!.find((e) => e.type === "evidence");
    expect(evidence).toMatchObject({ input: { idempotencyKey: "run_1:0:ocr", kind: "observation", data: { ocr: payDialog.items, at: { x: 749, y: 1355 } } } });
    expect(last(b)).toMatchObject({ type: "open_gate", options: ["approve", "deny"] });
  });

  it("a harmless link read on the page is tapped without asking", () => {
    expect(last(walk(withOcr, webPage, [{ type: "screen_read", ocr: articlePage }])).type).toBe("perform");
  });

  it("without a reading (no reader, or it failed) the tap on a blind screen is gated", () => {
    expect(last(walk(withOcr, webPage, [{ type: "screen_read", ocr: null }]))).toMatchObject({ type: "open_gate" });
    const noReader = walk(DEFAULT_CONFIG, webPage, []);
    expect(noReader.flat().some((e) => e.type === "read_screen")).toBe(false);
    expect(last(noReader)).toMatchObject({ type: "open_gate" });
  });
});
