// A skill whose step needs a person's approval stops there; the runtime takes that step itself through its gate (the
// person approves it) and the skill goes on from the next step by itself, without a model call — on the virtual phone over real ADB, with the
// pack's contacts_add (typing a phone number into a new contact needs approval).
import { describe, expect, it } from "vitest";
import { runAgent } from "../graph/run.ts";
import { planOf } from "../testing/harness.ts";
import { useHarness } from "../testing/use-harness.ts";
import { useTaskPhone } from "../testing/use-task-phone.ts";
import { packExecutor, packWork } from "../testing/pack-work.ts";

const agent = { name: "learner", kind: "headless" as const, capabilities: ["phone"] };
const taskPhone = useTaskPhone();
const harness = useHarness();
const contactsPhone = (seed: number, variant: number) => taskPhone("contacts_add", { seed, variant });

describe("a skill past a person's approval", () => {
  it("stops at the step to approve, the runtime takes it through its gate, and the skill goes on by itself to its end", { timeout: 180_000 }, async () => {
    const questions: string[] = [];
    const approve = (g: { input: { question: string } }) => (questions.push(g.input.question), { status: "approved" as const });
    const a = await contactsPhone(1, 0);
    const learnt = packExecutor(packWork("contacts_add", a.goal, a.params));
    const h = await harness({ device: a.device, executor: Array.from({ length: 60 }, () => learnt), planner: [planOf([{ id: "t1", title: a.goal }])], onGate: approve });
    const first = await runAgent(h.ports, { goal: a.goal, agent });
    expect(first.status, JSON.stringify(h.cp.stepsOf(first.runId).map((s) => s.outcome.outcome))).toBe("completed");
    expect(a.score()).toBe(1);

    const b = await contactsPhone(2, 1);
    const asked = h.executorRequests().length;
    const using = packExecutor(packWork("contacts_add", b.goal, b.params));
    const other = await harness({ device: b.device, executor: Array.from({ length: 60 }, () => using), planner: [planOf([{ id: "t1", title: b.goal }])] });
    const run = await runAgent({ ...h.ports, device: b.device, models: other.ports.models }, { goal: b.goal, agent });
    expect(run.status).toBe("completed");
    expect(b.score()).toBe(1);
    const steps = h.cp.stepsOf(run.runId);
    const outcomes = steps.map((s) => String(s.outcome.outcome));
    expect(outcomes.some((o) => /needs a person/.test(o))).toBe(true);

    const resumed = steps.filter((s) => s.outcome.modelSkipped === "skill_resumed");
    expect(resumed).toHaveLength(1);
    expect(String(resumed[0]!.outcome.outcome)).toMatch(/skill done: \d+\/\d+ steps, end screen reached/);
    // The runtime took the step to approve itself, through its gate.
    const taken = steps.filter((s) => s.outcome.modelSkipped === "skill_step");
    expect(taken).toHaveLength(1);
    expect(JSON.stringify(taken[0]!.action)).toContain(b.params.phone!);
    // The skill's steps are numbered in the whole skill, before the approved step and after it: none twice, in order.
    const numbered = [...h.cp.evidence.values()].flatMap((e) => {
      const part = e.data.skill as { step: number; seek?: number; popup?: number } | undefined;
      return e.runId === run.runId && e.kind === "action" && part && part.seek === undefined && part.popup === undefined ? [part.step] : [];
    });
    expect(numbered.length).toBeGreaterThan(2);
    expect(numbered).toEqual([...new Set(numbered)].sort((x, y) => x - y));
    // Its question says whose step it is (the skill's, taken by the runtime), not that the model intends it.
    const last = questions.at(-1)!;
    expect(last).toMatch(/This is step \d+ of the skill ".+", learnt from an earlier run; the runtime takes it, not the model\./);
    expect(last).not.toMatch(/model says it intends/);
    // The model was asked for the skill and the end: the step to approve and those after it cost no call.
    expect(other.executorRequests().length).toBe(2);
    expect(h.executorRequests().length).toBe(asked);
  });

  it("a person who denies the step stops the skill there: nothing after it runs and the contact is not saved", { timeout: 180_000 }, async () => {
    const a = await contactsPhone(3, 0);
    const learnt = packExecutor(packWork("contacts_add", a.goal, a.params));
    // The control plane the runs share answers its gates: approved while the skill is learnt, denied after.
    let verdict: { status: "approved" } | { status: "denied"; rationale: string } = { status: "approved" };
    const h = await harness({ device: a.device, executor: Array.from({ length: 60 }, () => learnt), planner: [planOf([{ id: "t1", title: a.goal }])], onGate: () => verdict });
    expect((await runAgent(h.ports, { goal: a.goal, agent })).status).toBe("completed");
    verdict = { status: "denied", rationale: "not this number" };

    const b = await contactsPhone(4, 1);
    const using = packExecutor(packWork("contacts_add", b.goal, b.params));
    const other = await harness({ device: b.device, executor: Array.from({ length: 60 }, () => using), planner: Array.from({ length: 10 }, () => planOf([{ id: "t1", title: b.goal }])) });
    const run = await runAgent({ ...h.ports, device: b.device, models: other.ports.models }, { goal: b.goal, agent, config: { maxStepsPerTodo: 8, maxStepsPerRun: 10 } });
    const steps = h.cp.stepsOf(run.runId);
    expect(steps.some((s) => s.outcome.modelSkipped === "skill_step")).toBe(true);
    expect(steps.find((s) => s.outcome.modelSkipped === "skill_step")!.outcome.outcome).toMatch(/denied/);
    expect(steps.some((s) => s.outcome.modelSkipped === "skill_resumed")).toBe(false);
    expect(b.score()).toBe(0);
  });
});
