// The planner's pure transition, effect by effect: which questions and writes it asks the runner for, in which
// order, what it does with each answer, and that the state handed in is never changed. No model or state core is
// involved: the runner's part is played by the test, which answers each effect from a script.
import { describe, expect, it } from "vitest";
import type { ClaimResult, Lease, Todo } from "../ports.ts";
import { plan, type PlannerAnswers, type PlannerEffect } from "./planner.ts";
import { initialState, type ExecutorReturn, type PlannerState, type RunState } from "./state.ts";

const lease = (todoId: string, epoch = 1): Lease => ({ id: `lease_${todoId}`, todoId, ownerId: "agent_1", leaseKey: `key_${todoId}`, epoch, ttlMs: 120_000, expiresAt: 1_000_000 });
const ref = (todoId: string) => ({ todoId, agentId: "agent_1", leaseKey: `key_${todoId}` });

function todo(id: string, over: Partial<Todo> = {}): Todo {
  return { id, goalId: "goal_1", position: 0, title: `Todo ${id}`, detail: "", kind: "executor", appHint: null, requiredCapabilities: ["phone"], inputs: [], outputs: [], values: {}, state: "ready", attempts: 0, maxAttempts: 5, lastResult: null, reason: null, supersededById: null, openGate: null, ...over } as Todo;
}
const claimed = (t: Todo): ClaimResult => ({ claimed: true, todo: t, lease: lease(t.id), reclaimedFrom: null });
const usage = { steps: 0, modelCalls: 1, inputTokens: 500, outputTokens: 60, microUsd: 1200, promptTokensCounted: 480 };
/** A proxied call's reply: metered by the proxy, nothing for the runtime to spend. */
const replied = (reply: unknown): PlannerAnswers["ask_model"] => ({ type: "replied", text: typeof reply === "string" ? reply : JSON.stringify(reply), usage, spend: { tokens: 0, microUsd: 0 } }) as PlannerAnswers["ask_model"];

function planner(over: Partial<PlannerState> = {}): PlannerState {
  return { ...initialState({ runId: "run_1", goalId: "goal_1", agentId: "agent_1", goal: "Find the price of the earbuds", preapproved: [] }), ...over };
}

type Answer = { [K in keyof PlannerAnswers]: { type: K; answer: PlannerAnswers[K] } }[keyof PlannerAnswers];

/** Runs the planner to its end, answering each effect with the next scripted answer (which must be for that effect's type). */
function drive(state: PlannerState, script: Answer[]): { next: RunState; effects: PlannerEffect[] } {
  const before = structuredClone(state);
  const planning = plan(state);
  const effects: PlannerEffect[] = [];
  let answer: unknown;
  for (;;) {
    const r = planning.next(answer);
    if (r.done) {
      expect(state).toEqual(before);
      expect(script).toEqual([]);
      return { next: r.value, effects };
    }
    effects.push(r.value);
    const a = script.shift();
    if (!a) throw new Error(`no answer scripted for ${r.value.type}`);
    expect(r.value.type).toBe(a.type);
    answer = a.answer;
  }
}
const types = (effects: PlannerEffect[]) => effects.map((e) => e.type);
const a = <K extends keyof PlannerAnswers>(type: K, answer: PlannerAnswers[K]): Answer => ({ type, answer }) as Answer;

describe("planner (pure)", () => {
  it("plans a goal with no todos: asks the core, then the model, adds the plan's todos, records it, claims and starts the first", () => {
    const t1 = todo("run_1-p1-1", { title: "Open the shop" });
    const t2 = todo("run_1-p1-2", { title: "Read the price", outputs: ["price"] });
    const { next, effects } = drive(planner(), [
      a("cancel_requested", false),
      a("list_todos", []),
      a("should_run", { decision: "run" }),
      a("get_goal", null),
      a("ask_model", replied({ plan: "open, then read", todos: [{ title: "Open the shop", kind: "executor", app: "com.example.shop" }, { title: "Read the price", kind: "executor", outputs: ["price"] }] })),
      a("replan", [t1, t2]),
      a("evidence", undefined),
      a("claim_next", claimed(t1)),
      a("start_todo", undefined),
    ]);
    expect(types(effects)).toEqual(["cancel_requested", "list_todos", "should_run", "get_goal", "ask_model", "replan", "evidence", "claim_next", "start_todo"]);
    expect(effects[4]).toMatchObject({ type: "ask_model", role: "planner", key: "run_1:planner:1", jsonSchema: { name: "plan" } });
    const replan = effects[5] as Extract<PlannerEffect, { type: "replan" }>;
    expect(replan).toMatchObject({ idempotencyKey: "run_1:plan", reason: "initial plan" });
    expect(replan.ops).toEqual([
      { op: "add", todo: { id: "run_1-p1-1", title: "Open the shop", kind: "executor", appHint: "com.example.shop", requiredCapabilities: ["phone"], inputs: [], outputs: [] } },
      { op: "add", todo: { id: "run_1-p1-2", title: "Read the price", kind: "executor", requiredCapabilities: ["phone"], inputs: [], outputs: ["price"] } },
    ]);
    expect(effects[6]).toMatchObject({ type: "evidence", input: { idempotencyKey: "run_1:plan", kind: "validation", summary: "plan: 2 todos" } });
    expect(effects[8]).toEqual({ type: "start_todo", lease: ref("run_1-p1-1") });
    expect(next.node).toBe("executor");
    if (next.node !== "executor") return;
    expect(next.executor).toMatchObject({ todoId: "run_1-p1-1", todoTitle: "Open the shop", lease: lease("run_1-p1-1") });
    expect(next).toMatchObject({ plan: "open, then read", plannerCalls: 1, totals: { modelCalls: 1, inputTokens: 500, outputTokens: 60, microUsd: 1200 } });
  });

  it("asks once more on an unreadable plan, then falls back to the goal as the one todo", () => {
    const goalTodo = todo("run_1-p2-1", { title: "Find the price of the earbuds" });
    const { next, effects } = drive(planner(), [
      a("cancel_requested", false),
      a("list_todos", []),
      a("should_run", { decision: "run" }),
      a("get_goal", null),
      a("ask_model", replied("not json")),
      a("ask_model", { type: "model_failed", code: "SERVER_ERROR", message: "500", usage }),
      a("replan", [goalTodo]),
      a("evidence", undefined),
      a("claim_next", claimed(goalTodo)),
      a("start_todo", undefined),
    ]);
    const repair = effects[5] as Extract<PlannerEffect, { type: "ask_model" }>;
    expect(repair.key).toBe("run_1:planner:2");
    expect(repair.messages.at(-2)).toEqual({ role: "assistant", content: "not json" });
    expect(repair.messages.at(-1)!.content).toContain("That reply is not valid JSON");
    expect((effects[6] as Extract<PlannerEffect, { type: "replan" }>).ops).toEqual([{ op: "add", todo: { id: "run_1-p2-1", title: "Find the price of the earbuds", kind: "executor", requiredCapabilities: ["phone"], inputs: [], outputs: [] } }]);
    expect(next).toMatchObject({ node: "executor", plan: "Do the goal on the phone: Find the price of the earbuds", plannerCalls: 2, totals: { modelCalls: 2 } });
  });

  it("does not plan when the core refuses the model call: the run goes to the summarizer, blocked, in the core's words", () => {
    const { next, effects } = drive(planner(), [a("cancel_requested", false), a("list_todos", []), a("should_run", { decision: "skip", reason: "exhausted", message: "the token quota is used up", retryAfterMs: null })]);
    expect(types(effects)).toEqual(["cancel_requested", "list_todos", "should_run"]);
    expect(next).toMatchObject({ node: "summarizer", end: { status: "blocked", reason: "exhausted", detail: "cannot plan: the token quota is used up" } });
  });

  it("accepts a completed return with its outputs: handoff, validation, the completion under the executor's lease, then the next todo", () => {
    const t1 = todo("t1", { title: "Read the price", outputs: ["price"], state: "running" });
    const ret: ExecutorReturn = { todoId: "t1", status: "completed", reason: "completed", summary: "read it", outputs: { price: "49 €" }, answers: ["the earbuds cost 49 €"], finalScreen: null, steps: 3 };
    const { next, effects } = drive(planner({ lastReturn: ret, held: { todoId: "t1", lease: lease("t1") }, plan: "read the price" }), [
      a("list_todos", [t1]),
      a("evidence", undefined),
      a("evidence", undefined),
      a("turn_result", { ...t1, state: "done" }),
      a("cancel_requested", false),
      a("list_todos", [{ ...t1, state: "done", values: { price: "49 €" } }]),
      a("claim_next", { claimed: false, reason: "nothing claimable" }),
      a("list_todos", [{ ...t1, state: "done" }]),
    ]);
    expect(effects[1]).toMatchObject({ type: "evidence", input: { idempotencyKey: "run_1:return:t1:0:1:handoff", kind: "handoff", summary: "executor → planner: completed (completed)" } });
    expect(effects[2]).toMatchObject({ type: "evidence", input: { idempotencyKey: "run_1:return:t1:0:1:validation", summary: "accepted: Read the price", data: { outputs: { price: "49 €" } } } });
    expect(effects[3]).toEqual({ type: "turn_result", idempotencyKey: "run_1:return:t1:0:1:validated_completion", lease: ref("t1"), kind: "validated_completion", summary: "read it", values: { price: "49 €" }, tolerateConflict: true });
    expect(next).toMatchObject({ node: "summarizer", end: { status: "completed", reason: "all_done" }, blackboard: { price: "49 €" }, findings: ["the earbuds cost 49 €"], executed: [{ todoId: "t1", status: "done" }] });
  });

  it("hands a step cap to the supervisor; a retry past the todo's attempt limit gives up, partial", () => {
    const t1 = todo("t1", { state: "running", maxAttempts: 1 });
    const ret: ExecutorReturn = { todoId: "t1", status: "partial", reason: "step_cap", summary: "ran out of steps", outputs: {}, answers: [], finalScreen: { app: "com.example.shop/.Main", phash: "ff" }, steps: 20 };
    const { next, effects } = drive(planner({ lastReturn: ret, held: { todoId: "t1", lease: lease("t1") } }), [
      a("list_todos", [t1]),
      a("evidence", undefined),
      a("turn_result", { ...t1, state: "blocked" }),
      a("should_run", { decision: "run" }),
      a("ask_model", replied({ decision: "retry", reason: "try the search" })),
      a("evidence", undefined),
    ]);
    // The todo is blocked by the result: nothing is held, so no release.
    expect(types(effects)).toEqual(["list_todos", "evidence", "turn_result", "should_run", "ask_model", "evidence"]);
    expect(effects[2]).toMatchObject({ kind: "replan_required", summary: "step_cap: ran out of steps" });
    expect(effects[4]).toMatchObject({ jsonSchema: { name: "supervisor_decision" } });
    expect(effects[5]).toMatchObject({ input: { idempotencyKey: "run_1:return:t1:0:1:decision", summary: "supervisor: retry — try the search", data: { attemptsExhausted: true } } });
    expect(next).toMatchObject({ node: "summarizer", end: { status: "partial", reason: "step_cap", detail: "Todo t1: gave up after 1 attempts (step_cap: ran out of steps)" }, attempts: { t1: 1 } });
  });

  it("a claim refused for a WIP limit ends the run blocked on wip_limit (it waits, resumable), with the core's words", () => {
    const why = "WIP limit reached: agent_1 holds 1 todo and one phone may hold 1 at once; it claims again when one of them finishes.";
    const { next, effects } = drive(planner(), [
      a("cancel_requested", false),
      a("list_todos", [todo("t1")]),
      a("claim_next", { claimed: false, reason: why, refusal: "wip_limit" }),
    ]);
    expect(types(effects)).toEqual(["cancel_requested", "list_todos", "claim_next"]);
    expect(next).toMatchObject({ node: "summarizer", end: { status: "blocked", reason: "wip_limit", detail: why } });
  });

  it("releases the held lease when the run was cancelled", () => {
    const { next, effects } = drive(planner({ held: { todoId: "t1", lease: lease("t1") } }), [a("cancel_requested", true), a("release_lease", undefined)]);
    expect(effects).toEqual([{ type: "cancel_requested" }, { type: "release_lease", lease: ref("t1"), reason: "the run was cancelled" }]);
    expect(next).toMatchObject({ node: "summarizer", end: { status: "cancelled", reason: "cancelled" }, blocked: ["Cancelled by the user."] });
  });

  it("computes an arithmetic host todo from the blackboard without asking the model, then ends when nothing is left", () => {
    const host = todo("h1", { kind: "host", title: "sum = a + b", inputs: ["a", "b"], outputs: ["sum"], requiredCapabilities: [] });
    const { next, effects } = drive(planner({ blackboard: { a: "2", b: "3" } }), [
      a("cancel_requested", false),
      a("list_todos", [host]),
      a("claim_next", claimed(host)),
      a("start_todo", undefined),
      a("evidence", undefined),
      a("turn_result", { ...host, state: "done" }),
      a("claim_next", { claimed: false, reason: "nothing claimable" }),
      a("list_todos", [{ ...host, state: "done" }]),
    ]);
    expect(types(effects)).not.toContain("ask_model");
    expect(effects[5]).toMatchObject({ type: "turn_result", kind: "validated_completion", idempotencyKey: "run_1:host:h1:1:validated_completion", tolerateConflict: false });
    expect(next).toMatchObject({ node: "summarizer", end: { status: "completed" }, executed: [{ todoId: "h1", status: "host" }] });
  });
});
