// Acceptance: killing the worker mid-run (resume from checkpoint, no step repeated, no evidence lost), device
// lost (connection-lost summary, no retries after it), quota exhausted (no further model calls, todo waits).
// Plus model endpoint faults: 429/500 retried, malformed output repaired or fed back once, no JSON schema support.
import { describe, expect, it } from "vitest";
import { runAgent } from "./run.ts";
import { WorkerKilled } from "./state.ts";
import { act } from "../testing/scripted-model-server.ts";
import { planOf, type Harness } from "../testing/harness.ts";
import { ladderPhone, onEachTap, tapRow, tappedRows } from "./ladder-testing.ts";
import { useHarness } from "../testing/use-harness.ts";
import { ControlPlaneConflict, leaseRefOf } from "../ports.ts";

const agent = (name: string) => ({ name, kind: "headless" as const, capabilities: ["phone"] });
const harness = useHarness();

describe("worker killed mid-run", () => {
  it("another worker resumes from the last checkpoint: no step repeated, no evidence lost", async () => {
    const phone = ladderPhone();
    const kill = new AbortController();
    // Worker A dies right after its 3rd tap reached the phone, before it could record the step.
    const dyingDevice = onEachTap(phone, (n) => {
      if (n === 3) kill.abort();
    });
    const h = await harness({ device: dyingDevice, executor: [tapRow(0), tapRow(1), tapRow(2), tapRow(3), tapRow(4), act({ type: "status", status: "complete" })] });
    const runA = runAgent(h.ports, { goal: "Open five items in order", agent: agent("worker-a"), kill: kill.signal, config: { leaseTtlMs: 60_000 } });
    await expect(runA).rejects.toBeInstanceOf(WorkerKilled);
    const runId = [...h.cp.runs.keys()][0]!;
    const evidenceBefore = new Map([...h.cp.evidence.entries()].map(([k, v]) => [k, v.id]));
    const stepsBefore = h.cp.stepsOf(runId).map((s) => s.index);
    expect(stepsBefore).toEqual([0, 1]);
    const oldLease = [...h.cp.leases.values()][0]!;

    // Worker A's lease must expire before B may take the todo over.
    h.clock.advance(61_000);
    const portsB = { ...h.ports, device: phone };
    const out = await runAgent(portsB, { runId, agent: agent("worker-b"), config: { leaseTtlMs: 60_000 } });
    expect(out.resumed).toBe(true);
    expect(out.status).toBe("completed");

    // Every row tapped exactly once, in order: the interrupted 3rd tap was not repeated.
    expect(tappedRows(phone)).toEqual([0, 1, 2, 3, 4]);
    const steps = h.cp.stepsOf(runId);
    expect(steps.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(steps[2]!.outcome.outcome).toMatch(/^outcome unknown: its record is missing/);
    // Nothing worker A wrote was lost or rewritten.
    for (const [key, id] of evidenceBefore) expect(h.cp.evidence.get(key)?.id).toBe(id);
    // The next request after resume tells the model its last action's effect is not recorded: the screen shows it.
    expect(h.executorRequests()[3]!.lastUserText).toMatch(/whether it took effect is not recorded; it was not repeated/);
    // A late write by the dead worker is an explicit conflict, not a silent overwrite.
    await expect(
      h.cp.appendEvidence({ idempotencyKey: "late-write", kind: "action", goalId: out.goalId, todoId: oldLease.todoId, lease: leaseRefOf(oldLease), summary: "late", data: { action: { type: "navigate_back" } } }),
    ).rejects.toBeInstanceOf(ControlPlaneConflict);
    const startedBy = h.cp.runs.get(runId)!.startedBy;
    expect(startedBy).toHaveLength(2);
    expect(startedBy[1]).toBe(out.agentId);
    expect(startedBy[0]).not.toBe(out.agentId);
  });
});

describe("device lost", () => {
  it("ends the run with the connection-lost summary and makes no device call after it", async () => {
    const phone = ladderPhone();
    // Three steps' worth of commands succeed, then the cable is pulled.
    phone.disconnectAfter = 11;
    const h = await harness({ device: phone, executor: Array.from({ length: 8 }, (_, i) => tapRow(i)) });
    const out = await runAgent(h.ports, { goal: "Open every item", agent: agent("worker") });
    expect(out).toMatchObject({ status: "failed", endReason: "device_lost" });
    const attemptedAfterLoss = (phone as unknown as { calls: number }).calls - phone.disconnectAfter;
    // Sensing issues screenshot, tree and foreground together; the first failure stops everything.
    expect(attemptedAfterLoss).toBeLessThanOrEqual(3);
    const summary = h.cp.evidenceList({ kind: "summary" })[0]!;
    expect(summary.summary).toMatch(/connection to the phone was lost/);
    expect((summary.data as { blocked: string[] }).blocked.join(" ")).toMatch(/Device connection lost/);
    // Said once: the stop's detail is the executor's own summary, not that summary behind the same words again.
    expect((summary.data as { blocked: string[] }).blocked.join(" ")).not.toMatch(/Device connection lost.*Device connection lost/);
    expect((h.cp.runs.get(out.runId) as { summary?: string }).summary ?? "").not.toMatch(/Device connection lost.*Device connection lost/);
    expect(h.cp.runs.get(out.runId)).toMatchObject({ status: "failed", endReason: "device_lost" });
    // host_failure gives the todo back to the pool, for a worker whose phone is connected.
    const todo = [...h.cp.todos.values()][0]!;
    expect(todo).toMatchObject({ state: "pending", lastResult: "host_failure" });
  });
});

describe("quota exhausted", () => {
  it("makes no further model calls; the todo goes back to the pool and the run ends blocked with the reason", async () => {
    const phone = ladderPhone();
    const h = await harness({ device: phone, executor: Array.from({ length: 10 }, (_, i) => tapRow(i % 8)) });
    const goal = await h.cp.createGoal({ objective: "Open every item" });
    h.cp.setQuota(goal.id, { steps: 3 });
    const out = await runAgent(h.ports, { goalId: goal.id, agent: agent("worker") });
    expect(out).toMatchObject({ status: "blocked", endReason: "exhausted" });
    expect(h.executorRequests()).toHaveLength(3);
    expect(h.summarizerRequests()).toHaveLength(0);
    expect(phone.actions()).toHaveLength(3);
    const todo = [...h.cp.todos.values()][0]!;
    expect(todo).toMatchObject({ state: "pending", lastResult: "wait" });
    expect(out.report.blocked.join(" ")).toMatch(/quota exhausted/i);
    expect(out.report.blocked.join(" ")).toMatch(/steps/);
    // Spent exactly the three validated steps, each once.
    expect(h.cp.spent.get(goal.id)!.steps).toBe(3);
  });

  it("a direct endpoint's call past the cap is spent as made (never refused); no further call is made and the run ends exhausted", async () => {
    const phone = ladderPhone();
    const h = await harness({ device: phone, executor: Array.from({ length: 10 }, (_, i) => tapRow(i % 8)) });
    const goal = await h.cp.createGoal({ objective: "Open every item" });
    // Room left (1 token), so the plan is asked; the call costs more than that and is spent in full with its evidence.
    h.cp.setQuota(goal.id, { tokens: 1 });
    const out = await runAgent(h.ports, { goalId: goal.id, agent: agent("worker") });
    expect(out).toMatchObject({ status: "blocked", endReason: "exhausted" });
    expect(h.plannerRequests()).toHaveLength(1);
    expect(h.executorRequests()).toHaveLength(0);
    const [plan] = h.cp.evidenceList({ kind: "model_call" }).map((c) => c.data as { inputTokens: number; outputTokens: number });
    expect(h.cp.spent.get(goal.id)!.tokens).toBe(plan!.inputTokens + plan!.outputTokens);
    expect(out.report.blocked.join(" ")).toMatch(/quota exhausted/i);
  });

  it("spends a step only after it was written back, once per key; each direct call once, with its evidence", async () => {
    const phone = ladderPhone();
    const h = await harness({ device: phone, executor: [tapRow(0), act({ type: "status", status: "complete" })] });
    const out = await runAgent(h.ports, { goal: "Open an item", agent: agent("worker") });
    const spent = h.cp.spent.get(out.goalId)!;
    expect(spent.steps).toBe(2);
    expect(spent.tokens).toBeGreaterThan(0);
    expect(spent.microUsd).toBeGreaterThan(0);
    const again = await h.cp.spendQuota({ key: `${out.runId}:0:spend`, agentId: out.agentId, goalId: out.goalId, steps: 1, tokens: 1, microUsd: 1 });
    expect(again).toEqual({ spent: false, duplicate: true });
    // Usage and cost of every call are evidence, metered by the runtime; the tokens spent are exactly theirs.
    const calls = h.cp.evidenceList({ kind: "model_call" }).map((c) => c.data as { via: string; inputTokens: number; outputTokens: number; microUsd: number });
    expect(calls.length).toBe(h.server.requests.length);
    expect(calls.every((c) => c.via === "runtime")).toBe(true);
    expect(spent.tokens).toBe(calls.reduce((n, c) => n + c.inputTokens + c.outputTokens, 0));
    expect(spent.microUsd).toBe(calls.reduce((n, c) => n + c.microUsd, 0));
  });
});

describe("model endpoint faults", () => {
  it("retries 429 and 500 with backoff on the injected clock", async () => {
    const phone = ladderPhone();
    const h = await harness({ device: phone, executor: [{ status: 429 }, { status: 500 }, tapRow(0), act({ type: "status", status: "complete" })] });
    const out = await runAgent(h.ports, { goal: "Open an item", agent: agent("worker") });
    expect(out.status).toBe("completed");
    expect(phone.actions()).toHaveLength(1);
    expect(h.clock.sleeps.filter((ms) => ms >= 1000)).toEqual([1000, 2000]);
  });

  it("three 500s then success: the run continues, and each fault is a typed anomaly evidence row", async () => {
    const phone = ladderPhone();
    const h = await harness({ device: phone, executor: [{ status: 500 }, { status: 500 }, { status: 500 }, tapRow(0), act({ type: "status", status: "complete" })] });
    const out = await runAgent(h.ports, { goal: "Open an item", agent: agent("worker") });
    expect(out.status).toBe("completed");
    expect(phone.actions()).toHaveLength(1);
    const faults = h.cp.evidenceList({ kind: "anomaly" }).filter((e) => (e.data as { fault?: string }).fault === "model_call_failed");
    expect(faults.map((e) => e.data)).toEqual([0, 1, 2].map((attempt) => expect.objectContaining({ role: "executor", code: "SERVER_ERROR", status: 500, attempt, willRetry: true })));
    expect(h.clock.sleeps.filter((ms) => ms >= 1000)).toEqual([1000, 2000, 4000]);
  });

  it("a long model call reports progress while it is pending", async () => {
    const phone = ladderPhone();
    // The reply waits 300 ms on the server; progress is due every 100 ms (both timers in this process, so in order).
    const h = await harness({ device: phone, executor: [act({ type: "status", status: "complete" }, { delayMs: 300 })] });
    const progress: { role: string; elapsedMs: number }[] = [];
    const out = await runAgent(h.ports, { goal: "Open an item", agent: agent("worker"), config: { modelProgressMs: 100 }, onEvent: (e) => void (e.type === "model_progress" && progress.push(e)) });
    expect(out.status).toBe("completed");
    // (On a loaded machine the planner's call may report progress too: the executor's is the one waited on here.)
    expect(progress.find((p) => p.role === "executor")).toMatchObject({ role: "executor", attempt: 0 });
  });

  it("gives up after the retries; the todo goes back to the pool and the run ends blocked", async () => {
    const phone = ladderPhone();
    const h = await harness({ device: phone, executor: [{ status: 500 }, { status: 500 }, { status: 500 }] });
    const out = await runAgent(h.ports, { goal: "Open an item", agent: agent("worker") });
    expect(out).toMatchObject({ status: "blocked", endReason: "model_failed" });
    expect([...h.cp.todos.values()][0]!.state).toBe("pending");
    expect(out.report.blocked.join(" ")).toMatch(/model endpoint failing/);
  });

  it("repairs malformed output; an unreadable reply is fed back once as a typed error, then the step fails", async () => {
    const phone = ladderPhone();
    const h = await harness({
      device: phone,
      executor: [
        { text: "Sure! ```json\n｛\"type\"：\"click\"，\"x\"：500，\"y\"：85｝\n``` that opens item 0" },
        { text: "I think I should look around first." },
        { text: "still no JSON here" },
        { text: "{'type': 'status', 'status': 'complete'}" },
      ],
    });
    const out = await runAgent(h.ports, { goal: "Open an item", agent: agent("worker") });
    expect(out.status).toBe("completed");
    expect(phone.actions()).toHaveLength(1);
    const reqs = h.executorRequests();
    expect(reqs[2]!.lastUserText).toMatch(/NO_ACTION_FOUND/);
    const steps = h.cp.stepsOf(out.runId);
    expect(steps.map((s) => s.outcome.outcome)).toEqual(["ok", "failed: NO_ACTION_FOUND", "complete"]);
    expect(h.cp.evidenceList({ kind: "validation" }).some((e) => e.summary.includes("parse failed twice"))).toBe(true);
  });

  it("falls back from JSON-schema output when the endpoint rejects response_format", async () => {
    const phone = ladderPhone();
    const h = await harness({ device: phone, rejectResponseFormat: true, executor: [tapRow(0), act({ type: "status", status: "complete" })] });
    const out = await runAgent(h.ports, { goal: "Open an item", agent: agent("worker") });
    expect(out.status).toBe("completed");
    const withFormat = h.server.requests.filter((r) => r.responseFormat);
    // One rejected attempt per role's client, then plain requests.
    expect(withFormat.length).toBeLessThanOrEqual(3);
    expect(h.server.requests.at(-1)!.responseFormat).toBeUndefined();
  });

  it("sends JSON-schema structured output where supported", async () => {
    const phone = ladderPhone();
    const h = await harness({ device: phone, executor: [act({ type: "status", status: "complete" })] });
    await runAgent(h.ports, { goal: "Open an item", agent: agent("worker") });
    const rf = h.executorRequests()[0]!.responseFormat as { type: string; json_schema: { name: string } };
    expect(rf.type).toBe("json_schema");
    expect(rf.json_schema.name).toBe("phone_action");
  });
});

describe("blackboard and host todos", () => {
  it("carries declared outputs to the next todo's inputs; the host answers what needs no screen", async () => {
    const phone = ladderPhone();
    const h = await harness({
      device: phone,
      executor: [act({ type: "status", status: "complete", outputs: { first_item: "Item 0" } }), act({ type: "answer", text: "Item 1 opened", outputs: { second_item: "Item 1" } })],
      planner: [
        planOf([
          { id: "read", title: "Read the first item's name", outputs: ["first_item"] },
          { id: "next", title: "Open the item after it", inputs: ["first_item"], outputs: ["second_item"] },
          { id: "sum", title: "Write one sentence naming both items", kind: "host", inputs: ["first_item", "second_item"], outputs: ["sentence"] },
        ]),
        { text: JSON.stringify({ answer: "Item 0 precedes Item 1.", outputs: { sentence: "Item 0 precedes Item 1." } }) },
      ],
    });
    const out = await runAgent(h.ports, { goal: "Name two items", agent: agent("worker") });
    expect(out.status).toBe("completed");
    expect(out.report.outputs).toEqual({ first_item: "Item 0", second_item: "Item 1", sentence: "Item 0 precedes Item 1." });
    expect(h.executorRequests()[1]!.lastUserText).toMatch(/first_item = Item 0/);
    expect(h.plannerRequests()[1]!.lastUserText).toMatch(/second_item = Item 1/);
    expect(h.executorRequests()).toHaveLength(2);
  });

  it.each([2, 4])("a missing output fails closed: the todo is not accepted, retried with the reason, then blocked at the core's limit (%i attempts)", async (maxAttempts) => {
    const phone = ladderPhone();
    const h = await harness({
      device: phone,
      executor: Array.from({ length: maxAttempts + 2 }, () => act({ type: "status", status: "complete" })),
      planner: [planOf([{ id: "read", title: "Read the price", outputs: ["price"] }, { id: "use", title: "Use the price", inputs: ["price"] }])],
      maxAttempts,
    });
    const out = await runAgent(h.ports, { goal: "Find the price", agent: agent("worker") });
    expect(out.status).toBe("blocked");
    expect(h.executorRequests()[1]!.lastUserText).toMatch(/without reporting price/);
    // The runtime stops at the limit the core's todo carries, never at one of its own.
    expect(h.executorRequests()).toHaveLength(maxAttempts);
    expect(out.report.blocked.join(" ")).toMatch(/without reporting price/);
    const todos = [...h.cp.todos.values()];
    expect(todos.find((t) => t.title === "Read the price")!.state).not.toBe("done");
    expect(todos.find((t) => t.title === "Use the price")!.state).toBe("pending");
  });

  it("a missing input fails closed before any model call on that todo", async () => {
    const phone = ladderPhone();
    const h = await harness({ device: phone, executor: [], planner: [planOf([{ id: "use", title: "Pay the invoice amount", inputs: ["amount"] }])] });
    const out = await runAgent(h.ports, { goal: "Pay the invoice", agent: agent("worker") });
    expect(out.status).toBe("blocked");
    expect(out.report.blocked[0]).toMatch(/needs amount, which no earlier todo produced/);
    expect(h.executorRequests()).toHaveLength(0);
  });
});

describe("pause, cancel and the report", () => {
  it("a pause stops before the next step; the todo waits with the reason and the run resumes later", async () => {
    const phone = ladderPhone();
    // eslint-disable-next-line prefer-const -- read by the scripted reply before it is assigned
    let cpRef: Harness["cp"] | undefined;
    let goalId = "";
    const h = await harness({ device: phone, executor: [tapRow(0), () => (cpRef!.pause(goalId), { text: JSON.stringify({ type: "click", x: 500, y: 185 }) }), tapRow(2), act({ type: "status", status: "complete" })] });
    cpRef = h.cp;
    goalId = (await h.cp.createGoal({ objective: "Open items" })).id;
    const first = await runAgent(h.ports, { goalId, agent: agent("worker") });
    expect(first).toMatchObject({ status: "blocked", endReason: "goal_paused" });
    expect(phone.actions()).toHaveLength(2);
    expect([...h.cp.todos.values()][0]!.state).toBe("pending");
    expect(first.report.blocked.join(" ")).toMatch(/paused/);
    h.cp.pause(goalId, false);
    const second = await runAgent(h.ports, { goalId, agent: agent("worker") });
    expect(second.status).toBe("completed");
    expect(phone.actions()).toHaveLength(3);
  });

  it("a pause while the model is asked: the proxy's refusal (409) ends the run as paused, not as a model failure; resume takes the same step", async () => {
    const phone = ladderPhone();
    // eslint-disable-next-line prefer-const -- read by the scripted reply before it is assigned
    let cpRef: Harness["cp"] | undefined;
    let goalId = "";
    // The second call is the one in flight when the person pauses: the API's model proxy refuses it as the core says.
    const refused = () => (cpRef!.pause(goalId), { status: 409, message: `Goal ${goalId} may not spend now: the goal is paused` });
    const h = await harness({ device: phone, executor: [tapRow(0), refused, tapRow(1), tapRow(2), act({ type: "status", status: "complete" })] });
    cpRef = h.cp;
    goalId = (await h.cp.createGoal({ objective: "Open items" })).id;
    const first = await runAgent(h.ports, { goalId, agent: agent("worker") });
    expect(first).toMatchObject({ status: "blocked", endReason: "goal_paused" });
    expect(phone.actions()).toHaveLength(1);
    expect(h.cp.stepsOf(first.runId).map((st) => st.index)).toEqual([0]);
    h.cp.pause(goalId, false);
    const second = await runAgent(h.ports, { goalId, agent: agent("worker") });
    expect(second.status).toBe("completed");
    expect(phone.actions()).toHaveLength(3);
  });

  it("a core that keeps refusing the spend while routing on ends the run as a model failure, asked once per step", async () => {
    const phone = ladderPhone();
    const refusal = { status: 409, message: "Run is not running" };
    const h = await harness({ device: phone, executor: [tapRow(0), refusal, refusal, refusal] });
    const out = await runAgent(h.ports, { goal: "Open items", agent: agent("worker") });
    expect(out.endReason).toBe("model_failed");
    expect(h.executorRequests()).toHaveLength(3);
  });

  it("a cancel goes to the summarizer; the structured report is stored as evidence", async () => {
    const phone = ladderPhone();
    const ac = new AbortController();
    const h = await harness({ device: phone, executor: [tapRow(0), () => (ac.abort(), { text: JSON.stringify({ type: "click", x: 500, y: 185 }) }), tapRow(2)] });
    const out = await runAgent(h.ports, { goal: "Open items", agent: agent("worker"), signal: ac.signal });
    expect(out.status).toBe("cancelled");
    const summary = h.cp.evidenceList({ kind: "summary" });
    expect(summary).toHaveLength(1);
    expect(summary[0]!.data).toMatchObject({ goal: "Open items", status: "cancelled", blocked: ["Cancelled by the user."] });
    expect(Object.keys(summary[0]!.data!)).toEqual(expect.arrayContaining(["goal", "executed", "findings", "blocked", "conclusion"]));
    expect(h.cp.runs.get(out.runId)!.status).toBe("cancelled");
  });
});

