// Evidence data as each writer writes it today (the writer named beside each), and one malformed row per kind with
// the field its schema names: what the schemas' tests round-trip and insert. Kept beside the writers' own tests
// (the agent's tests run every runtime writer against the same schemas through its in-memory control plane).
import type { EvidenceDataInput, StepOutcome } from "../domain/evidence.ts";
import type { EvidenceKind } from "../domain/vocabulary.ts";

const elements = [
  { i: 0, text: "Search", id: "com.example:id/search", box: [20, 40, 980, 90] as [number, number, number, number] },
  { i: 1, text: null, id: "com.example:id/password", box: [20, 120, 980, 170] as [number, number, number, number], password: true as const },
];

export const EVIDENCE_SAMPLES: { [K in EvidenceKind]: EvidenceDataInput<K>[] } = {
  observation: [
    // graph/run.ts, sense
    { app: "com.example/.Main", phash: "a1b2c3d4e5f60718", screen: { width: 1080, height: 2400 }, elements },
    // graph/executor.ts, screen_read (OCR where the tree is blind)
    { ocr: [{ text: "지금 결제", bounds: { left: 100, top: 2000, right: 500, bottom: 2080 } }], at: { x: 300, y: 2040 } },
    { ocr: null, at: null },
  ],
  action: [
    // graph/executor.ts, performed
    { action: { type: "click", element: "3", thought: "open search", intent: "open search" }, px: { x: 540, y: 120 }, app: "com.example/.Main", policy: { tier: "normal", kind: "navigate", ruleId: "default.normal", evidence: [], policyVersion: "builtin-7" } },
    // graph/executor.ts, perform_failed (connection lost)
    { action: { type: "input_text", text: "hello" }, px: null, error: "device offline" },
    // graph/run.ts, run_skill's onStep
    {
      action: { type: "click", x: 500, y: 300 },
      px: { x: 540, y: 720 },
      app: "com.example/.Main",
      skill: { id: "skill_1", step: 0 },
      before: { app: "com.example/.Main", screen: { width: 1080, height: 2400 }, elements: [{ text: "Search", id: null, box: [20, 40, 980, 90] }] },
    },
  ],
  anomaly: [
    // graph/executor.ts, detectors
    { kind: "no_change" },
    // graph/run.ts, recordOutages
    { fault: "outage", procedure: "step.record", cause: "ECONNREFUSED", lastCause: "HTTP 503", startedAt: "2026-12-02T03:00:00.000Z", durationMs: 4200, attempts: 3, retried: 2, outcome: "recovered" },
    // graph/run.ts, outlastSuspension
    { fault: "suspended", cause: "api_unreachable", suspendedMs: 5000, retriedMs: 130000, outageMs: 135000, attempts: 1, node: "executor", todoId: "todo_1", stepIndex: 4, error: "fetch failed" },
    // graph/effects.ts, callModel
    { fault: "model_call_failed", role: "executor", code: "RATE_LIMITED", status: 429, attempt: 0, willRetry: true, message: "slow down" },
    // services/run/resume-run.ts
    { fault: "resumed", status: "blocked", endReason: "exhausted", cause: "the quota ran out", remedy: "raise the quota", stoppedAt: "2026-12-02T03:00:00.000Z", stoppedSummary: "stopped", from: "agent_a", to: "agent_b", lastStepIndex: 3, deviceSerial: null },
  ],
  validation: [
    // graph/executor.ts, guardAnswered
    { guard: { tier: "confirm", reason: "sends a message" }, error: null, rules: { tier: "normal", kind: "navigate", ruleId: "default.normal" }, decided: { tier: "confirm", kind: "navigate", ruleId: "guard.raise" } },
    { guard: null, error: "GUARD_MODEL_FAILED: TIMEOUT: no answer", rules: { tier: "normal", kind: "navigate", ruleId: "default.normal" }, decided: { tier: "normal", kind: "navigate", ruleId: "default.normal" } },
    // graph/executor.ts, a reply that did not parse twice
    { code: "NOT_JSON", message: "no JSON object in the reply", raw: "I will tap" },
    // graph/planner.ts, outputs accepted / refused, the supervisor, host todos, the plan
    { outputs: { price: "59" } },
    { code: "MISSING_OUTPUT", keys: ["price"] },
    { decision: "retry", reason: "try again", todos: [{ title: "Open the app", kind: "executor", inputs: [], outputs: [] }], attemptsExhausted: false },
    { answer: "price * 2 = 118", outputs: { total: "118" }, expression: "price * 2" },
    { answer: "Paris", outputs: {} },
    { plan: "Open the app, then search", todos: [{ id: "todo_1", title: "Open the app", kind: "executor" }] },
    // packages/cli, recordPhoneTaskScore
    { evaluator: "virtual_phone_task", task: "send-message", score: 1, reason: "sent", checks: [{ name: "sent", ok: true }] },
  ],
  model_call: [
    // apps/api model-proxy.ts, recordCall
    { role: "executor", model: "gpt-test", inputTokens: 1200, outputTokens: 80, microUsd: 420, latencyMs: 900, via: "api", reserved: { tokens: 5000, microUsd: 2000, maxOutputTokens: 1024 } },
    { role: "planner", model: "reference-policy", inputTokens: 40, outputTokens: 12, microUsd: 0, latencyMs: 3, via: "api", demo: true },
    { role: "executor", model: "gpt-test", inputTokens: 1190, outputTokens: 31, microUsd: 400, latencyMs: 700, via: "api", estimated: true, reserved: { tokens: 5000, microUsd: 2000, maxOutputTokens: 1024 } },
    // graph/effects.ts, a direct endpoint
    { role: "guard", model: "small", via: "runtime", inputTokens: 300, outputTokens: 20, microUsd: 10, promptTokensCounted: { text: 250, image: 0, total: 250 }, latencyMs: 400, structured: true, reply: '{"tier":"normal","reason":"looks"}', attempt: 0 },
    { role: "executor", model: "small", via: "runtime", inputTokens: 260, outputTokens: 9, microUsd: 3, estimated: true, latencyMs: 300, structured: false, reply: "tap 3", attempt: 1 },
  ],
  summary: [
    // graph/summarizer.ts
    {
      goal: "Book a table",
      status: "completed",
      endReason: "all_done",
      executed: [{ todoId: "todo_1", title: "Open the app", status: "done", summary: "opened" }],
      findings: ["a table for two at 19:00"],
      blocked: [],
      conclusion: "Booked.",
      outputs: { time: "19:00" },
      totals: { steps: 4, modelCalls: 5, inputTokens: 6000, outputTokens: 300, microUsd: 1200, promptTokensCounted: 5900 },
      lessons: [{ kind: "worked", text: "The search field is at the top." }],
    },
  ],
  gate_decision: [
    // graph/executor.ts, applyGate
    { gateId: "gate_1", kind: "payment", tier: "high_risk", status: "approved", answer: null, rationale: "ok", policy: { ruleId: "money.pay", evidence: ["Pay 20 EUR"], policyVersion: "builtin-7" } },
    { gateId: "gate_2", kind: "question", tier: "question", status: "answered", answer: "the blue one" },
  ],
  handoff: [
    // graph/planner.ts, handleReturn (the executor's return)
    { todoId: "todo_1", status: "completed", reason: "completed", summary: "done", outputs: { price: "59" }, answers: [], finalScreen: { app: "com.example/.Main", phash: "a1b2", observationKey: "run:3:observation:lease" }, steps: 3 },
    { todoId: "todo_2", status: "blocked", reason: "device_lost", summary: "lost", outputs: {}, answers: [], finalScreen: null, steps: 0 },
  ],
  // No writer records checkpoint evidence.
  checkpoint: [{ node: "executor", stepIndex: 2 }],
};

/** One malformed payload per kind and the field its refusal names (a path under `data`). */
export const MALFORMED_EVIDENCE: { [K in EvidenceKind]: { data: unknown; field: string } } = {
  observation: { data: { app: "com.example", elements: [{ i: 0, text: "x", box: [0, 0, 2000, 10] }] }, field: "data.elements.0.box.2" },
  action: { data: { action: { type: "click" }, px: { x: "540", y: 120 } }, field: "data.px.x" },
  anomaly: { data: { fault: "outage", procedure: "step.record", cause: "x", lastCause: "x", startedAt: "t", durationMs: -1, attempts: 1, retried: 0, outcome: "recovered" }, field: "data.durationMs" },
  validation: { data: { decision: "shrug" }, field: "data.decision" },
  model_call: { data: { via: "api", role: "executor", model: "m", inputTokens: 1.5, outputTokens: 0, microUsd: 0, latencyMs: 1 }, field: "data.inputTokens" },
  summary: { data: { ...EVIDENCE_SAMPLES.summary[0], findings: "booked" }, field: "data.findings" },
  gate_decision: { data: { gateId: "gate_1", kind: "payment", tier: "urgent", status: "approved" }, field: "data.tier" },
  handoff: { data: { ...EVIDENCE_SAMPLES.handoff[0], steps: "three" }, field: "data.steps" },
  checkpoint: { data: ["not", "an", "object"], field: "data" },
};

/** A step's outcome as graph/run.ts writes it. */
export const STEP_OUTCOME_SAMPLE: StepOutcome = { outcome: "ok", app: "com.example/.Main", phash: "a1b2", timings: { sense: 120, model: 900, perform: 300, writeback: 40 }, replies: ['{"type":"click","element":"3"}'] };
