// The executor's pure transition, observation by observation: which effects each one asks for, in which order,
// and that the state handed in is never changed. No device, model or state core is involved: the runner's part is
// played by the test.
import { describe, expect, it } from "vitest";
import type { Lease, UiNode } from "../ports.ts";
import { uiNode } from "../testing/fake-phone.ts";
import { newExecutor, step, REPEATED_WAITS_MAX, type Effect, type Observation } from "./executor.ts";
import { DEFAULT_CONFIG, initialState, type ExecutorRunState, type Screen } from "./state.ts";

const lease = (epoch = 1): Lease => ({ id: `lease_${epoch}`, todoId: "t1", ownerId: "agent_1", leaseKey: `key_${epoch}`, epoch, ttlMs: 120_000, expiresAt: 1_000_000 });
const ref = (epoch = 1) => ({ todoId: "t1", agentId: "agent_1", leaseKey: `key_${epoch}` });

function runState(over: Partial<ExecutorRunState["executor"]> = {}): ExecutorRunState {
  const { node: _n, lastReturn: _r, held: _h, ...common } = initialState({ runId: "run_1", goalId: "goal_1", agentId: "agent_1", goal: "Buy the earbuds", preapproved: [] });
  return { ...common, node: "executor", executor: { ...newExecutor({ id: "t1", title: "Pay for the cart", outputs: [], appHint: "com.example.shop" }, lease(), {}), ...over } };
}

const node = (over: Partial<UiNode> & Pick<UiNode, "bounds">): UiNode => uiNode({ packageName: "com.example.shop", ...over });
const payButton = node({ index: 1, text: "Pay", className: "android.widget.Button", clickable: true, resourceId: "com.example.shop:id/pay", bounds: { left: 100, top: 2000, right: 980, bottom: 2200 } });
const screen: Screen = {
  app: "com.example.shop/.Cart",
  packageName: "com.example.shop",
  width: 1080,
  height: 2400,
  phash: "00ff00ff00ff00ff",
  tree: node({ className: "android.widget.FrameLayout", bounds: { left: 0, top: 0, right: 1080, bottom: 2400 }, children: [payButton] }),
  elements: [{ index: 1, text: "Pay", resourceId: "com.example.shop:id/pay", className: "android.widget.Button", clickable: true, scrollable: false, editable: false, box: [93, 833, 907, 917], bounds: payButton.bounds }],
  image: { bytes: new Uint8Array([1, 2, 3]), mime: "image/jpeg", width: 486, height: 1080 },
  observationKey: "run_1:0:observation:lk",
};
const usage = { steps: 0, modelCalls: 1, inputTokens: 900, outputTokens: 20, microUsd: 2450, promptTokensCounted: 880 };
const ready: Observation = { type: "routed", route: "ready_for_host", reason: "held, unblocked, within quota", skip: null, openGate: null };
/** A model's reply: it was metered where the call was made (the proxy, or its model_call evidence). */
const reply = (action: Record<string, unknown>): Observation => ({ type: "replied", text: JSON.stringify(action), usage });

/** Walks observations through `step`, checking each time that the state handed in is left as it was. */
function walk(state: ExecutorRunState, observations: Observation[]): { state: ExecutorRunState; batches: Effect[][] } {
  const batches: Effect[][] = [];
  for (const obs of observations) {
    const before = structuredClone(state);
    const r = step(state, obs, DEFAULT_CONFIG);
    expect(state).toEqual(before);
    batches.push(r.effects);
    state = r.state;
  }
  return { state, batches };
}
const types = (effects: Effect[]) => effects.map((e) => e.type);

describe("executor step (pure)", () => {
  it("begins by routing the turn when it holds a lease, by claiming again when it does not, by waiting on a gate it left open", () => {
    expect(types(step(runState(), { type: "begin" }, DEFAULT_CONFIG).effects)).toEqual(["route"]);
    expect(step(runState({ lease: null }), { type: "begin" }, DEFAULT_CONFIG).effects).toEqual([{ type: "acquire", todoId: "t1" }]);
    const pendingGate = { gateId: "gate_1", stepIndex: 0, action: { type: "click" as const, element: "1" }, kind: "pay", tier: "high_risk" as const };
    expect(step(runState({ lease: null, pendingGate }), { type: "begin" }, DEFAULT_CONFIG).effects).toEqual([{ type: "wait_gate", gateId: "gate_1" }]);
  });

  it("one step: route → sense → model → write-ahead and act → recorded, spent, checkpointed, next route", () => {
    const s0 = runState();
    const { state, batches } = walk(s0, [ready, { type: "sensed", screen }, reply({ type: "scroll", direction: "down" }), { type: "performed", outcome: "ok" }]);
    expect(batches[0]).toEqual([{ type: "sense", stepIndex: 0, lease: ref() }]);
    expect(types(batches[1]!)).toEqual(["ask_model"]);
    expect(batches[1]![0]).toMatchObject({ type: "ask_model", key: "run_1:0:1:0", stepIndex: 0, lease: ref(), jsonSchema: { name: "phone_action" } });
    expect(batches[2]).toEqual([{ type: "checkpoint" }, { type: "perform", action: { type: "scroll", direction: "down" }, px: undefined, screen: { width: 1080, height: 2400 }, description: "scroll down" }]);
    expect(types(batches[3]!)).toEqual(["evidence", "step", "turn_result", "checkpoint", "event", "route"]);
    expect(batches[3]![0]).toMatchObject({ type: "evidence", input: { idempotencyKey: "run_1:0:action", kind: "action", goalId: "goal_1", runId: "run_1", todoId: "t1", lease: ref(), stepIndex: 0 } });
    expect(batches[3]![1]).toMatchObject({ type: "step", stepIndex: 0, todoId: "t1", outcome: "ok", phash: "00ff00ff00ff00ff", tokens: 920 });
    expect(batches[3]![2]).toEqual({ type: "turn_result", idempotencyKey: "run_1:0:turn", lease: ref(), kind: "validated_progress", summary: "scroll down → ok", spend: { key: "run_1:0:spend", steps: 1, tokens: 0, microUsd: 0 } });
    expect(state.stepIndex).toBe(1);
    expect(state.executor).toMatchObject({ stepCount: 1, sensedAfterAction: false, steps: [{ index: 0, action: "scroll down", outcome: "ok" }] });
    // The write-ahead record is gone once the step is recorded; nothing of the step in progress is left.
    expect(state.executor.inFlight).toBeUndefined();
    expect(state.executor.turn).toBeUndefined();
    expect(state.totals).toMatchObject({ steps: 1, modelCalls: 1, inputTokens: 900, outputTokens: 20, microUsd: 2450 });
  });

  it("a reply is counted on the step row and in the totals, but its turn result spends only the step (the call was metered as made)", () => {
    const proxied: Observation = { type: "replied", text: JSON.stringify({ type: "scroll", direction: "down" }), usage };
    const { state, batches } = walk(runState(), [ready, { type: "sensed", screen }, proxied, { type: "performed", outcome: "ok" }]);
    expect(batches[3]![1]).toMatchObject({ type: "step", stepIndex: 0, tokens: 920 });
    expect(batches[3]![2]).toMatchObject({ type: "turn_result", kind: "validated_progress", spend: { key: "run_1:0:spend", steps: 1, tokens: 0, microUsd: 0 } });
    expect(state.totals).toMatchObject({ modelCalls: 1, inputTokens: 900, outputTokens: 20, microUsd: 2450 });
  });

  it("a call the quota will not hold ends the todo with the quota as the reason, in the proxy's words, without asking again", () => {
    const message = "The quota refuses this model call: This model call needs at least 1311 tokens (its prompt of 1310 and one reply token), more than the goal quota of goal_1 has: 20 of 3000 tokens left. an admin can raise the quota (quota.setPolicy), or send a shorter prompt.";
    const refused: Observation = { type: "model_failed", code: "QUOTA_EXCEEDED", message, usage: { ...usage, inputTokens: 0, outputTokens: 0, microUsd: 0 } };
    const { batches } = walk(runState(), [ready, { type: "sensed", screen }, refused]);
    expect(batches[2]).toEqual([expect.objectContaining({ type: "exit", ret: expect.objectContaining({ todoId: "t1", status: "blocked", reason: "exhausted", summary: message }) })]);
  });

  it.each([
    [{ route: "replan_required", reason: "5 attempts used", skip: null }, "infeasible"],
    [{ route: "blocked", reason: "the goal is paused", skip: { reason: "goal_paused", message: "The goal is paused." } }, "goal_paused"],
    [{ route: "blocked", reason: "quota exhausted", skip: { reason: "exhausted", message: "Quota exhausted: steps." } }, "exhausted"],
    [{ route: "wait", reason: "quota throttled", skip: { reason: "throttled", message: "The next turn would not fit." } }, "throttled"],
    [{ route: "wait", reason: "the todo is held by agent_2", skip: null }, "lease_lost"],
    [{ route: "contract_error", reason: "your lease expired; claim the todo again", skip: null }, "lease_lost"],
    [{ route: "contract_error", reason: "inputs no done todo of the goal gave: price; replan so an earlier todo outputs them", skip: null }, "todo_blocked"],
  ] as const)("a route that does not run ends the executor: %o → %s", (routed, reason) => {
    const r = step(runState(), { type: "routed", openGate: null, ...routed }, DEFAULT_CONFIG);
    expect(r.effects).toHaveLength(1);
    expect(r.effects[0]).toMatchObject({ type: "exit", ret: { todoId: "t1", reason } });
  });

  it("user_action_required with the todo's open gate waits on that gate, then routes again under the same lease", () => {
    const { batches } = walk(runState(), [
      { type: "routed", route: "user_action_required", reason: "1 open gate(s) wait for an answer", skip: null, openGate: { id: "gate_9", question: "Which size?" } },
      { type: "gate_resolved", gateId: "gate_9", resolution: { status: "answered", answer: "M", rationale: null } },
    ]);
    expect(batches[0]).toEqual([{ type: "event", event: { type: "gate", gateId: "gate_9", question: "Which size?" } }, { type: "wait_gate", gateId: "gate_9" }]);
    expect(types(batches[1]!)).toEqual(["route"]);
  });

  it("the model's question, however short, opens a gate with a question the core accepts, labelled as the agent's", () => {
    const { batches } = walk(runState(), [ready, { type: "sensed", screen }, reply({ type: "ask_user", question: "Size?", options: ["S", "M"] })]);
    expect(batches[2]).toEqual([
      {
        type: "open_gate",
        idempotencyKey: "run_1:0:gate",
        question: 'The agent asks: "Size?"',
        options: ["S", "M"],
        evidenceKeys: ["run_1:0:observation:lk"],
        kind: "question",
        tier: "question",
        action: { type: "ask_user", question: "Size?", options: ["S", "M"] },
        policy: expect.objectContaining({ ruleId: expect.any(String) }),
        lease: ref(),
      },
    ]);
  });

  it("the step caps end the executor before sensing", () => {
    expect(step(runState({ stepCount: 50 }), ready, DEFAULT_CONFIG).effects[0]).toMatchObject({ type: "exit", ret: { reason: "step_cap", status: "partial" } });
    expect(step({ ...runState(), stepIndex: 200 }, ready, DEFAULT_CONFIG).effects[0]).toMatchObject({ type: "exit", ret: { reason: "run_step_cap", status: "partial" } });
  });

  it("a high-risk tap opens a gate (the core blocks the todo and ends the lease as it opens); after a denial the todo is claimed again, and the model is told without acting", () => {
    const { state, batches } = walk(runState(), [
      ready,
      { type: "sensed", screen },
      reply({ type: "click", element: "1", intent: "pay for the order" }),
      { type: "gate_opened", gateId: "gate_1" },
      { type: "gate_resolved", gateId: "gate_1", resolution: { status: "denied", answer: null, rationale: "too expensive" } },
      { type: "acquired", lease: lease(2) },
      ready,
    ]);
    expect(batches[2]).toHaveLength(1);
    expect(batches[2]![0]).toMatchObject({
      type: "open_gate",
      idempotencyKey: "run_1:0:gate",
      options: ["approve", "deny"],
      evidenceKeys: ["run_1:0:observation:lk"],
      kind: "approval",
      tier: "high_risk",
      action: { type: "click", element: "1" },
      lease: ref(1),
    });
    expect((batches[2]![0] as { question: string }).question).toMatch(/Pay.*high-risk/s);
    // The runtime writes nothing on the todo: no turn result blocks it, no reopen gives it back.
    expect(types(batches[3]!)).toEqual(["checkpoint", "event", "wait_gate"]);
    expect(batches.flat().some((e) => e.type === "turn_result" && e.idempotencyKey === "run_1:0:gate_turn")).toBe(false);
    expect(batches[4]).toEqual([{ type: "acquire", todoId: "t1" }]);
    expect(types(batches[5]!)).toEqual(["route"]);
    // The same step goes on with the screen it saw: the decision is recorded, the tap is not performed.
    expect(types(batches[6]!)).toEqual(["event", "evidence", "step", "turn_result", "checkpoint", "event", "route"]);
    expect(batches[6]![1]).toMatchObject({ type: "evidence", input: { idempotencyKey: "run_1:0:gate_decision", kind: "gate_decision", lease: ref(2), data: { gateId: "gate_1", status: "denied", tier: "high_risk", rationale: "too expensive" } } });
    expect(batches[6]![3]).toMatchObject({ type: "turn_result", idempotencyKey: "run_1:0:turn", lease: ref(2), kind: "validated_progress", summary: expect.stringMatching(/denied by the user, not performed$/) });
    expect(batches.flat().some((e) => e.type === "perform")).toBe(false);
    expect(state.executor.feedback).toMatch(/DENIED.*too expensive.*not performed/s);
    expect(state.executor.pendingGate).toBeUndefined();
    expect(state.executor.lease).toEqual(lease(2));
  });

  it("an unusable reply gets one repair round; a second one fails the step as repair_required, spending nothing", () => {
    const garbage: Observation = { type: "replied", text: "I think I should look around first.", usage };
    const { state, batches } = walk(runState(), [ready, { type: "sensed", screen }, garbage, garbage]);
    expect(batches[2]![0]).toMatchObject({ type: "ask_model", key: "run_1:0:1:1" });
    expect(types(batches[3]!)).toEqual(["evidence", "step", "turn_result", "checkpoint", "event", "route"]);
    expect(batches[3]![0]).toMatchObject({ input: { idempotencyKey: "run_1:0:parse_error", kind: "validation" } });
    expect(batches[3]![2]).toEqual({ type: "turn_result", idempotencyKey: "run_1:0:turn", lease: ref(), kind: "repair_required", summary: "(unparseable reply) → failed: NO_ACTION_FOUND" });
    expect(state.executor.feedback).toMatch(/NO_ACTION_FOUND/);
  });

  it("resumed with an action in flight (its record missing): the phone is drained first, then the step is recorded as unknown with what the screen shows, not repeated", () => {
    const inFlight = { stepIndex: 3, action: { type: "click" as const, x: 500, y: 500 }, description: "click (500, 500)" };
    const drained: Observation = { type: "drained", drained: true, checked: true, running: [], waitedMs: 1800, app: "com.example/.Main" };
    const { state, batches } = walk({ ...runState({ lease: null, inFlight }), stepIndex: 3 }, [{ type: "begin" }, { type: "acquired", lease: lease(2) }, drained]);
    expect(batches[0]).toEqual([{ type: "acquire", todoId: "t1" }]);
    expect(batches[1]).toEqual([{ type: "drain", stepIndex: 3 }]);
    expect(types(batches[2]!)).toEqual(["step", "turn_result", "checkpoint", "event", "route"]);
    expect(batches[2]![0]).toMatchObject({ type: "step", stepIndex: 3, outcome: "outcome unknown: its record is missing (the worker stopped while it was performed); not repeated; the screen now shows com.example/.Main" });
    expect(batches[2]![1]).toMatchObject({ lease: ref(2), kind: "validated_progress", spend: { key: "run_1:3:spend", steps: 1, tokens: 0, microUsd: 0 } });
    expect(state.stepIndex).toBe(4);
    expect(state.executor.inFlight).toBeUndefined();
    expect(state.executor.feedback).toMatch(/click \(500, 500\)\) was sent to the phone just before the worker stopped.*not repeated.*finished every input it was still carrying out/);
    // A phone still busy when the drain gave up: the model is told the screen may still change.
    const busy = walk({ ...runState({ lease: null, inFlight }), stepIndex: 3 }, [{ type: "begin" }, { type: "acquired", lease: lease(2) }, { ...drained, drained: false, running: ["input tap 5 5"], waitedMs: 15_000 }]);
    expect(busy.state.executor.feedback).toMatch(/still running input tap 5 5 after 15\.0 s, so the screen may still change/);
  });

  it("a lost phone ends the executor at once: device_lost, with the action's evidence when it was acting", () => {
    expect(step(runState(), { type: "sense_failed", lost: true, message: "The phone disconnected." }, DEFAULT_CONFIG).effects).toEqual([
      { type: "exit", ret: { todoId: "t1", status: "blocked", reason: "device_lost", summary: "Device connection lost: The phone disconnected.", outputs: {}, answers: [], finalScreen: null, steps: 0 } },
    ]);
    const { batches } = walk(runState(), [ready, { type: "sensed", screen }, reply({ type: "navigate_back" }), { type: "perform_failed", lost: true, message: "The phone disconnected.", attempts: 1 }]);
    expect(types(batches[3]!)).toEqual(["evidence", "exit"]);
    expect(batches[3]![1]).toMatchObject({ ret: { reason: "device_lost", finalScreen: { phash: "00ff00ff00ff00ff", observationKey: "run_1:0:observation:lk" } } });
  });
});

describe("repeated wait: the screen unchanged since the model's wait, the executor waits again without asking the model", () => {
  const waited: Observation = { type: "performed", outcome: "waited" };
  /** One step of the model's: route, sense `seen`, the model answers `action`, performed. */
  const modelStep = (action: Record<string, unknown>, seen: Screen = screen): Observation[] => [ready, { type: "sensed", screen: seen }, reply(action), waited];
  /** The same screen's tree with other text (a spinner's label that became a result). */
  const loaded: Screen = { ...screen, tree: node({ className: "android.widget.FrameLayout", bounds: { left: 0, top: 0, right: 1080, bottom: 2400 }, children: [node({ ...payButton, text: "Paid" })] }) };

  it("unchanged after the model's wait: the same wait is performed without a model call, recorded as skipped, spending a step and no tokens", () => {
    const first = walk(runState(), modelStep({ type: "wait", ms: 1500, thought: "the page is loading" }));
    const { state, batches } = walk(first.state, [ready, { type: "sensed", screen }, waited]);
    // No ask_model: straight to the write-ahead and the same wait (the model's words are not repeated as its own).
    expect(batches[1]).toEqual([{ type: "checkpoint" }, { type: "perform", action: { type: "wait", ms: 1500 }, px: undefined, screen: { width: 1080, height: 2400 }, description: "wait 1500ms" }]);
    expect(types(batches[2]!)).toEqual(["evidence", "step", "turn_result", "checkpoint", "event", "route"]);
    expect(batches[2]![1]).toMatchObject({ type: "step", stepIndex: 1, action: { type: "wait", ms: 1500 }, outcome: "waited", tokens: 0, modelSkipped: "unchanged_after_wait" });
    expect(batches[2]![2]).toMatchObject({ type: "turn_result", kind: "validated_progress", spend: { key: "run_1:1:spend", steps: 1, tokens: 0, microUsd: 0 } });
    // The model's step is recorded without the field; the run counts one model call over two steps.
    expect(first.batches[3]!.find((e) => e.type === "step")).not.toHaveProperty("modelSkipped");
    expect(state.totals).toMatchObject({ steps: 2, modelCalls: 1, inputTokens: 900, outputTokens: 20 });
    expect(state.executor.waited).toMatchObject({ action: { type: "wait", ms: 1500 }, repeats: 1 });
    // The detectors judge the model's actions: the repeated wait is not one of them.
    expect(state.executor.samples.map((a) => a.type)).toEqual(["wait"]);
    // When the model is asked next, its history says which wait it did not choose.
    expect(state.executor.steps.at(-1)).toEqual({ index: 1, action: "wait 1500ms", outcome: "waited again (screen unchanged, model not asked)" });
  });

  it("a screen that changed since the model's wait (its tree's text, or its image) asks the model", () => {
    const first = walk(runState(), modelStep({ type: "wait" }));
    expect(types(walk(first.state, [ready, { type: "sensed", screen: loaded }]).batches[1]!)).toEqual(["ask_model"]);
    const repainted: Screen = { ...screen, phash: "ff00ff00ff00ff00" };
    expect(types(walk(first.state, [ready, { type: "sensed", screen: repainted }]).batches[1]!)).toEqual(["ask_model"]);
  });

  it(`after ${REPEATED_WAITS_MAX} repeated waits in a row the model is asked though nothing changed, and its new wait starts the count again`, () => {
    let { state } = walk(runState(), modelStep({ type: "wait" }));
    for (let i = 0; i < REPEATED_WAITS_MAX; i++) {
      const r = walk(state, [ready, { type: "sensed", screen }, waited]);
      expect(types(r.batches[1]!)).toEqual(["checkpoint", "perform"]);
      state = r.state;
    }
    const asked = walk(state, [ready, { type: "sensed", screen }]);
    expect(types(asked.batches[1]!)).toEqual(["ask_model"]);
    expect(asked.batches[1]![0]).toMatchObject({ stepIndex: REPEATED_WAITS_MAX + 1 });
    // The model waits again: the next unchanged screen is a repeated wait again.
    const again = walk(asked.state, [reply({ type: "wait" }), waited, ready, { type: "sensed", screen }]);
    expect(types(again.batches[3]!)).toEqual(["checkpoint", "perform"]);
    expect(again.state.totals.modelCalls).toBe(2);
  });

  it("after an action that is not a wait, the same screen asks the model", () => {
    const first = walk(runState(), modelStep({ type: "scroll", direction: "down" }));
    expect(first.state.executor.waited).toBeUndefined();
    expect(types(walk(first.state, [ready, { type: "sensed", screen }]).batches[1]!)).toEqual(["ask_model"]);
  });

  it("something new to tell the model (the core asked for a repair) asks it, even on the unchanged screen after a wait", () => {
    const first = walk(runState(), modelStep({ type: "wait" }));
    const repair: Observation = { type: "routed", route: "repair_required", reason: "the turn was not accepted", skip: null, openGate: null };
    expect(types(walk(first.state, [repair, { type: "sensed", screen }]).batches[1]!)).toEqual(["ask_model"]);
  });
});
