import { describe, expect, it } from "vitest";
import { formatHistory, type StepSummary } from "./history.ts";
import { extractOutputs, readInputs } from "./blackboard.ts";
import { routeReturn } from "../graph/routes.ts";
import type { ExecutorReturn } from "../graph/state.ts";

describe("history", () => {
  it("keeps the last K steps verbatim and folds older ones into one line", () => {
    const steps: StepSummary[] = Array.from({ length: 10 }, (_, i) => ({ index: i, action: i % 2 ? "scroll down" : `click (${i}, 1)`, outcome: i === 3 ? "denied by the user, not performed" : "ok", ...(i === 5 ? { anomalies: ["repetition"] } : {}) }));
    const text = formatHistory(steps, 4).split("\n");
    expect(text).toHaveLength(5);
    expect(text[0]).toMatch(/^\(earlier\) steps 1-6: 3x click, 3x scroll/);
    expect(text[0]).toMatch(/#4 scroll down → denied/);
    expect(text[0]).toMatch(/anomalies seen: repetition/);
    expect(text[4]).toBe("#10 scroll down → ok");
  });
});

describe("blackboard", () => {
  it("fails closed on a missing input or output", () => {
    expect(readInputs(["price"], {}, "Text the price")).toMatchObject({ ok: false, error: { code: "MISSING_INPUT", keys: ["price"] } });
    expect(readInputs(["price"], { price: "$59" }, "t")).toEqual({ ok: true, value: { price: "$59" } });
    expect(extractOutputs(["price", "name"], { price: "$59" }, ["whatever"], "t")).toMatchObject({ ok: false, error: { code: "MISSING_OUTPUT", keys: ["name"] } });
    expect(extractOutputs(["price"], {}, ["$59.00"], "t")).toEqual({ ok: true, value: { price: "$59.00" } });
    expect(extractOutputs(["price"], { price: "  " }, [], "t")).toMatchObject({ ok: false });
  });
});

describe("classifying an executor exit", () => {
  const ret = (reason: ExecutorReturn["reason"]): ExecutorReturn => ({ todoId: "t", status: "partial", reason, summary: "s", outputs: {}, answers: [], finalScreen: null, steps: 1 });
  // Every run end reason the executor may exit with → what the runtime does next and which turn result it records.
  it.each([
    ["completed", { kind: "validate" }],
    ["all_done", { kind: "validate" }],
    ["infeasible", { kind: "supervise", turn: "replan_required" }],
    ["scroll_streak", { kind: "supervise", turn: "replan_required" }],
    ["step_cap", { kind: "supervise", turn: "replan_required" }],
    ["run_step_cap", { kind: "stop", turn: "replan_required", status: "partial", detail: "s" }],
    ["device_lost", { kind: "stop", turn: "host_failure", status: "failed", detail: "s" }], // the executor's summary says what was lost (routes.ts adds no prefix)
    ["cancelled", { kind: "stop", turn: "wait", status: "cancelled", detail: "Cancelled by the user." }],
    ["goal_cancelled", { kind: "stop", turn: "wait", status: "cancelled", detail: "Cancelled by the user." }],
    ["exhausted", { kind: "stop", turn: "wait", status: "blocked", detail: "quota exhausted: s" }],
    ["goal_paused", { kind: "stop", turn: "wait", status: "blocked", detail: "paused: s" }],
    ["throttled", { kind: "stop", turn: "wait", status: "blocked", detail: "throttled: s" }],
    ["model_failed", { kind: "stop", turn: "wait", status: "blocked", detail: "model endpoint failing: s" }],
    ["gate_waiting", { kind: "stop", turn: null, status: "blocked", detail: "s" }],
    ["todo_blocked", { kind: "stop", turn: null, status: "blocked", detail: "s" }],
    ["writeback_failed", { kind: "stop", turn: null, status: "blocked", detail: "s" }],
    ["lease_lost", { kind: "stop", turn: null, status: "blocked", detail: "s" }],
  ] as const)("%s", (reason, expected) => {
    expect(routeReturn(ret(reason))).toEqual(expected);
  });
});
