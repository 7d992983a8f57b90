// A takeover through the real runtime (runAgent: the runner, its gate effects, the executor) with the memory control
// plane: the model asks for a takeover, a person taps on the phone themselves while the gate is open (their step
// recorded as the core records a person's step: the run's next step index, with its action evidence), hands back,
// and the agent goes on from the screen they left — its own steps after the person's, none on an index they took.
import { describe, expect, it } from "vitest";
import { runAgent } from "./run.ts";
import { act } from "../testing/scripted-model-server.ts";
import { ladderPhone, onEachTap, tapRow, tappedRows } from "./ladder-testing.ts";
import { useHarness } from "../testing/use-harness.ts";

const agent = { id: "worker-takeover", name: "worker", kind: "headless" as const, capabilities: ["phone"] };
const harness = useHarness();

describe("takeover in a run", () => {
  it("the model asks, a person taps and hands back, the agent goes on after the person's step with their words in its prompt", async () => {
    const phone = ladderPhone();
    let personStepIndex = -1;
    const h = await harness({
      device: phone,
      executor: [tapRow(0), act({ type: "ask_takeover", reason: "login", question: "The next screen needs a password I was not given." }), tapRow(2), act({ type: "status", status: "complete" })],
      onGate: async (g) => {
        if (g.input.kind !== "takeover") return undefined;
        // The person, on the phone itself: one tap on row 1 (as the browser sends it through its own connection).
        await phone.tap({ x: 540, y: 324 });
        const runId = g.input.runId!;
        personStepIndex = Math.max(-1, ...h.cp.stepsOf(runId).map((s) => s.index)) + 1;
        h.cp.steps.set(`${runId}:${personStepIndex}`, { runId, agentId: "member_ana", index: personStepIndex, node: "executor", todoId: g.input.todoId, action: { type: "tap", x: 500, y: 135 }, outcome: { outcome: "tapped at (540, 324)" }, anomalies: [], tokens: 0 });
        await h.cp.appendEvidence({ idempotencyKey: `takeover:${g.id}:${personStepIndex}:action`, kind: "action", goalId: g.input.goalId, runId, todoId: g.input.todoId, stepIndex: personStepIndex, summary: "Ana tapped at (540, 324)", data: { action: { type: "tap", x: 500, y: 135 }, px: { x: 540, y: 324 } } });
        return { status: "answered", answer: "signed in", rationale: "A person took over: Ana did: tapped at (540, 324). Their note: signed in" };
      },
    });
    const out = await runAgent(h.ports, { goal: "Open three items in order", agent });
    expect(out).toMatchObject({ status: "completed" });

    // The gate the runtime opened: a takeover with its reason, shown with the step's screenshot.
    const [gate] = [...h.cp.gates.values()];
    expect(gate!.input).toMatchObject({ kind: "takeover", takeoverReason: "login", tier: "question", options: [] });
    expect(gate!.input.question).toMatch(/^Please sign in on the phone/);
    // Rows 0 (agent), 1 (the person), 2 (agent, after the hand back): each once, in order.
    expect(tappedRows(phone)).toEqual([0, 1, 2]);
    // The person's step kept its index; the agent's ask and its next steps came after it.
    const steps = h.cp.stepsOf(out.runId);
    expect(personStepIndex).toBe(1);
    expect(steps.map((s) => [s.index, (s.action as { type: string }).type])).toEqual([
      [0, "click"],
      [1, "tap"],
      [2, "ask_takeover"],
      [3, "click"],
      [4, "status"],
    ]);
    expect(steps[1]).toMatchObject({ agentId: "member_ana" });
    // The model, asked after the hand back, read what the person did and their note.
    const after = h.executorRequests()[2]!;
    expect(JSON.stringify(after.body)).toContain("A person took over: Ana did: tapped at (540, 324). Their note: signed in.");
  });

  it("a person takes over unasked: the agent stops at its next step boundary, waits for the gate, and goes on after the hand back", async () => {
    const phone = ladderPhone();
    // Right after the agent's first tap reaches the phone, a person takes over (run.takeOver opens a takeover gate
    // on the todo the agent holds, which ends its lease) and hands back a moment later.
    const device = onEachTap(phone, (n) => {
      if (n !== 1) return;
      const todo = [...h.cp.todos.values()][0]!;
      const runId = [...h.cp.runs.keys()][0]!;
      void h.cp.openGate({ idempotencyKey: "person-takeover", goalId: todo.goalId, todoId: todo.id, runId, question: "Ana took over the phone.", options: [], evidenceIds: [], kind: "takeover", takeoverReason: "other", tier: "question" }).then((g) => {
        setTimeout(() => h.cp.resolveGate(g.gateId, { status: "answered", answer: "Handed back.", rationale: "A person took over: Ana did nothing on the phone." }), 50);
      });
    });
    const h = await harness({ device, executor: [tapRow(0), tapRow(1), tapRow(2), act({ type: "status", status: "complete" })] });
    const out = await runAgent(h.ports, { goal: "Open three items in order", agent });
    expect(out).toMatchObject({ status: "completed" });
    // Each row tapped once: the agent did not repeat or lose a move around the takeover.
    expect(tappedRows(phone)).toEqual([0, 1, 2]);
    const indexes = h.cp.stepsOf(out.runId).map((s) => s.index);
    expect(new Set(indexes).size).toBe(indexes.length);
    // The model asked after the hand back was told a person had the phone.
    const after = h.executorRequests()[1]!;
    expect(after.lastUserText).toContain("While you worked, a person took the phone over and handed it back. A person took over: Ana did nothing on the phone.");
  });
});
