// The executor's takeover, observation by observation: the model's ask_takeover and a blind screen open a takeover
// gate (a person operates the phone), and after the hand back the step is recorded, the screen sensed again and the
// model told what the person did. Pure: the runner's part is played by the test.
import { describe, expect, it } from "vitest";
import type { ChatMessage, Lease, UiNode } from "../ports.ts";
import { uiNode } from "../testing/fake-phone.ts";
import { newExecutor, step, type Effect, type Observation } from "./executor.ts";
import { DEFAULT_CONFIG, initialState, type ExecutorRunState, type Screen } from "./state.ts";

const lease = (epoch = 1): Lease => ({ id: `lease_${epoch}`, todoId: "t1", ownerId: "agent_1", leaseKey: `key_${epoch}`, epoch, ttlMs: 120_000, expiresAt: 1_000_000 });
const ref = (epoch = 1) => ({ todoId: "t1", agentId: "agent_1", leaseKey: `key_${epoch}` });

function runState(): ExecutorRunState {
  const { node: _n, lastReturn: _r, held: _h, ...common } = initialState({ runId: "run_1", goalId: "goal_1", agentId: "agent_1", goal: "Sign in to Mail and open Settings", preapproved: [] });
  return { ...common, node: "executor", executor: newExecutor({ id: "t1", title: "Sign in to Mail", outputs: [], appHint: "com.example.mail" }, lease(), {}) };
}

const node = (over: Partial<UiNode> & Pick<UiNode, "bounds">): UiNode => uiNode({ packageName: "com.example.mail", ...over });
const password = node({ index: 1, className: "android.widget.EditText", password: true, clickable: true, resourceId: "com.example.mail:id/password", bounds: { left: 100, top: 900, right: 980, bottom: 1000 } });
const loginScreen: Screen = {
  app: "com.example.mail/.Login",
  packageName: "com.example.mail",
  width: 1080,
  height: 2400,
  phash: "00ff00ff00ff00ff",
  tree: node({ className: "android.widget.FrameLayout", bounds: { left: 0, top: 0, right: 1080, bottom: 2400 }, children: [node({ index: 0, text: "Sign in", bounds: { left: 100, top: 600, right: 980, bottom: 700 } }), password] }),
  elements: [{ index: 1, text: "", resourceId: "com.example.mail:id/password", className: "android.widget.EditText", clickable: true, scrollable: false, editable: true, password: true, box: [93, 375, 907, 417], bounds: password.bounds }],
  image: { bytes: new Uint8Array([1, 2, 3]), mime: "image/jpeg", width: 486, height: 1080 },
  observationKey: "run_1:0:observation:lk",
};
const inbox: Screen = { ...loginScreen, app: "com.example.mail/.Inbox", phash: "ff00ff00ff00ff00", observationKey: "run_1:1:observation:lk2" };
const usage = { steps: 0, modelCalls: 1, inputTokens: 900, outputTokens: 20, microUsd: 0, promptTokensCounted: 880 };
const ready: Observation = { type: "routed", route: "ready_for_host", reason: "held, unblocked, within quota", skip: null, openGate: null };
const reply = (action: Record<string, unknown>): Observation => ({ type: "replied", text: JSON.stringify(action), usage });

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
const promptText = (e: Effect): string => ((e as { messages: ChatMessage[] }).messages[1]!.content as { type: string; text?: string }[]).find((p) => p.type === "text")!.text!;

describe("takeover in the executor", () => {
  it("the model's ask_takeover opens a takeover gate with its reason; after the hand back the step is recorded, the screen sensed again and the model told what the person did", () => {
    // As the core hands back: the note is the answer, the rationale says who did what; the person's three steps took
    // the run's step indexes 0–2, so the agent's next free index is 3.
    const rationale = "A person took over: Ana did: tapped at (540, 950); typed a secret (••••••); tapped at (540, 1200). Their note: signed in as ana";
    const handedBack: Observation = { type: "gate_resolved", gateId: "gate_1", resolution: { status: "answered", answer: "signed in as ana", rationale }, nextStepIndex: 3 };
    const { state, batches } = walk(runState(), [
      ready,
      { type: "sensed", screen: loginScreen },
      reply({ type: "ask_takeover", reason: "login", question: "The app asks for a password I was not given.", intent: "ask a person to sign in" }),
      { type: "gate_opened", gateId: "gate_1" },
      handedBack,
      { type: "acquired", lease: lease(2) },
      ready,
      ready,
      { type: "sensed", screen: inbox },
    ]);
    expect(batches[2]).toHaveLength(1);
    expect(batches[2]![0]).toMatchObject({ type: "open_gate", idempotencyKey: "run_1:0:gate", kind: "takeover", takeoverReason: "login", tier: "question", options: [], evidenceKeys: ["run_1:0:observation:lk"], action: { type: "ask_takeover", reason: "login" }, policy: { ruleId: "action.ask_takeover.login", kind: "takeover" }, lease: ref(1) });
    expect((batches[2]![0] as { question: string }).question).toMatch(/^Please sign in on the phone.*hand the phone back.*"The app asks for a password I was not given\."/s);
    expect(types(batches[3]!)).toEqual(["checkpoint", "event", "wait_gate"]);
    expect(state.executor.pendingGate).toBeUndefined();
    // Claimed again after the hand back; the step is recorded (nothing performed by the agent) and routed on.
    expect(batches[4]).toEqual([{ type: "acquire", todoId: "t1" }]);
    expect(types(batches[6]!)).toEqual(["event", "evidence", "step", "turn_result", "checkpoint", "event", "route"]);
    // Recorded after the person's steps, not on the index one of them took.
    expect(batches[6]![2]).toMatchObject({ type: "step", stepIndex: 3, action: { type: "ask_takeover", reason: "login" }, outcome: "a person took over and handed the phone back" });
    expect(batches[6]![3]).toMatchObject({ type: "turn_result", lease: ref(2), kind: "validated_progress" });
    // The next step senses the screen the person left, and the model reads what they did.
    expect(batches[7]).toEqual([{ type: "sense", stepIndex: 4, lease: ref(2) }]);
    expect(types(batches[8]!)).toEqual(["ask_model"]);
    expect(promptText(batches[8]![0]!)).toMatch(/You asked a person to take over the phone \(login\)\. A person took over: Ana did: tapped at \(540, 950\); typed a secret \(••••••\); tapped at \(540, 1200\)\. Their note: signed in as ana\. They handed the phone back: the screen below is how they left it/s);
    expect(batches.flat().some((e) => e.type === "perform")).toBe(false);
  });

  it("nobody took over (the gate expired): the model is told so and not to ask again", () => {
    const { state } = walk(runState(), [
      ready,
      { type: "sensed", screen: loginScreen },
      reply({ type: "ask_takeover", reason: "captcha", question: "A captcha blocks the sign-in." }),
      { type: "gate_opened", gateId: "gate_1" },
      { type: "gate_resolved", gateId: "gate_1", resolution: { status: "expired", answer: null, rationale: null } },
      { type: "acquired", lease: lease(2) },
      ready,
    ]);
    expect(state.executor.feedback).toMatch(/asked a person to take over \(captcha\), and nobody did: the gate expired.*Do not ask again/s);
    expect(state.executor.steps.at(-1)).toMatchObject({ outcome: "no person took over (the gate expired)" });
  });

  for (const blind of ["black", "secure"] as const) {
    it(`a blind screen (${blind}) asks for a takeover with reason blind_screen, without asking the model or tapping`, () => {
      const { batches } = walk(runState(), [ready, { type: "sensed", screen: { ...loginScreen, blind } }]);
      expect(types(batches[1]!)).toEqual(["open_gate"]);
      expect(batches[1]![0]).toMatchObject({ type: "open_gate", kind: "takeover", takeoverReason: "blind_screen", options: [], action: { type: "ask_takeover", reason: "blind_screen" } });
      expect((batches[1]![0] as { question: string }).question).toMatch(blind === "secure" ? /cannot be seen.*secure window/s : /cannot be seen.*screenshot is black/s);
    });
  }

  it("a screen that is not blind asks the model", () => {
    const { batches } = walk(runState(), [ready, { type: "sensed", screen: loginScreen }]);
    expect(types(batches[1]!)).toEqual(["ask_model"]);
  });
});
