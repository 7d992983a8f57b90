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
    expect(readInputs(["price"], {}, "Text the price")).toMatchObject({ ok: false, error: { code: "missing_input", keys: ["price"] } });
    expect(readInputs(["price"], { price: "$59" }, "t")).toEqual({ ok: true, value: { price: "$59" } });
    expect(extractOutputs(["price", "name"], { price: "$59" }, ["whatever"], "t")).toMatchObject({ ok: false, error: { code: "missing_output", keys: ["name"] } });
    expect(extractOutputs(["price"], {}, ["$59.00"], "t")).toEqual({ ok: true, value: { price: "$59.00" } });
    expect(extractOutputs(["price"], { price: "  " }, [], "t")).toMatchObject({ ok: false });
  });
});

describe("routing after an executor return", () => {
  const ret = (reason: ExecutorReturn["reason"]): ExecutorReturn => ({ todoId: "t", status: "partial", reason, summary: "s", outputs: {}, answers: [], finalScreen: null, steps: 1 });
  it("maps every exit to validate / supervise / wait / stop", () => {
    expect(routeReturn(ret("complete")).kind).toBe("validate");
    expect(routeReturn(ret("scroll_streak"))).toEqual({ kind: "supervise", turn: "replan_required" });
    expect(routeReturn(ret("device_lost"))).toMatchObject({ kind: "stop", status: "device_lost", turn: "host_failure" });
    expect(routeReturn(ret("cancelled"))).toMatchObject({ kind: "stop", status: "cancelled" });
    expect(routeReturn(ret("quota"))).toMatchObject({ kind: "wait", turn: "wait" });
    expect(routeReturn(ret("lease_lost"))).toMatchObject({ kind: "wait", turn: null });
  });
});
