// use_skill with parameters, on the virtual phone over real ADB: a skill learnt from notes_create at its own values
// types the values a later use_skill gives into the fields (the phone saves a note with them), and a use_skill that
// leaves a parameter out is refused — the model is told which value is missing, and nothing reaches the phone.
import { describe, expect, it } from "vitest";
import { runAgent } from "../graph/run.ts";
import { planOf } from "../testing/harness.ts";
import { useHarness } from "../testing/use-harness.ts";
import { useTaskPhone } from "../testing/use-task-phone.ts";
import { packExecutor, packWork } from "../testing/pack-work.ts";
import { replyAction as reply } from "../testing/lamp.ts";
import type { RecordedRequest, ScriptedReply } from "../testing/scripted-model-server.ts";
import { readSkillBody } from "./contract.ts";

const agent = { name: "learner", kind: "headless" as const, capabilities: ["phone"] };
const taskPhone = useTaskPhone();
const harness = useHarness();

async function notesPhone(seed: number, variant: number) {
  const { phone, device, goal, params } = await taskPhone("notes_create", { seed, variant });
  const notes = () => (phone.engine.state().apps as { notes: { vars: { notes: { title: string; body: string }[] } } }).notes.vars.notes;
  return { engine: phone.engine, device, goal, params: params as { title: string; body: string }, notes };
}

describe("use_skill with parameters", () => {
  it("types the values it is given into the fields; a missing parameter is refused with feedback to the model and nothing is done on the phone", { timeout: 120_000 }, async () => {
    // Learnt from notes_create at its own values.
    const a = await notesPhone(1, 0);
    const work = packWork("notes_create", a.goal, a.params);
    const scripted = packExecutor(work);
    const h = await harness({ device: a.device, executor: Array.from({ length: 60 }, () => scripted), planner: [planOf([{ id: "t1", title: a.goal }])] });
    expect((await runAgent(h.ports, { goal: a.goal, agent })).status).toBe("completed");
    const [skill] = await h.cp.listSkills({ app: "com.phoneloop.notes" });
    const stored = readSkillBody(skill!.body)!;
    expect(stored.params).toEqual(["title", "body"]);

    // Another phone, other values: first a use_skill without {body}, then with both, then done.
    const b = await notesPhone(2, 1);
    const { title, body } = b.params;
    expect(title).not.toBe(a.params.title);
    const asked: { text: string; phoneActions: number }[] = [];
    const executor = (req: RecordedRequest): ScriptedReply => {
      asked.push({ text: req.lastUserText, phoneActions: b.engine.state().actionCount as number });
      if (asked.length === 1) return reply({ type: "use_skill", skill: skill!.name, params: { title } });
      if (asked.length === 2) return reply({ type: "use_skill", skill: skill!.name, params: { title, body } });
      return reply({ type: "status", status: "complete", summary: "The note is saved." });
    };
    const second = await harness({ device: b.device, executor: Array.from({ length: 10 }, () => executor), planner: [planOf([{ id: "t1", title: b.goal }])] });
    const run = await runAgent({ ...h.ports, device: b.device, models: second.ports.models }, { goal: b.goal, agent });
    expect(run.status).toBe("completed");

    // Refused: the model's next prompt names the missing value, the phone did nothing in between, no use is counted.
    expect(asked[1]!.text).toContain(`The skill "${skill!.name}" was not run: it needs a value for {body} and your use_skill gave none.`);
    expect(asked[1]!.phoneActions).toBe(asked[0]!.phoneActions);
    const steps = h.cp.stepsOf(run.runId).filter((s) => /use_skill/.test(JSON.stringify(s.action)));
    expect(steps.map((s) => String(s.outcome.outcome))).toEqual(["failed: missing parameter(s) {body}", expect.stringMatching(/^skill done: \d+\/\d+ steps, end screen reached/)]);
    const skillActions = h.cp.evidenceList({ kind: "action", runId: run.runId }).filter((e) => (e.data as { skill?: unknown }).skill);
    expect(new Set(skillActions.map((e) => e.stepIndex))).toEqual(new Set([steps[1]!.index]));
    expect(h.cp.skillUses.filter((u) => u.runId === run.runId)).toEqual([expect.objectContaining({ ok: true, params: { title, body } })]);

    // Bound: the skill typed this run's values, and the phone saved the note with them (the evaluator at variant 1 agrees).
    const typed = skillActions.map((e) => (e.data as { action: { text?: string } }).action.text).filter(Boolean);
    expect(typed).toEqual([title, body]);
    expect(b.notes()).toContainEqual(expect.objectContaining({ title, body }));
    expect(b.engine.evaluate("notes_create").score).toBe(1);
    // The stored skill still holds its places, not this run's values.
    expect(JSON.stringify((await h.cp.listSkills({ app: "com.phoneloop.notes" })).find((s) => s.id === skill!.id)!.body)).not.toContain(title);
  });
});
