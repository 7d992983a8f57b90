// What a finished run leaves as skills: one per done todo of two steps or more, and one over consecutive todos in
// the same app (the whole piece of work), with the goal's values as parameters and each step's screenshot. The run's
// evidence is written to the in-memory control plane as a run writes it (observations with their screenshot blob).
import { describe, expect, it } from "vitest";
import type { AgentPorts, EvidenceInput } from "../ports.ts";
import { MemoryControlPlane } from "../testing/memory-control-plane.ts";
import { FakePhone } from "../testing/fake-phone.ts";
import { readSkillBody } from "../skills/contract.ts";
import { emptyLearned, learnFromRun } from "./learning.ts";
import { DEFAULT_CONFIG } from "./state.ts";

const SIZE = { width: 1001, height: 1001 };
type El = [text: string, id: string];
const elements = (els: El[]) => els.map(([text, id], i) => ({ i, text, id, box: [0, i * 100, 1000, i * 100 + 90] }));
const at = (i: number) => ({ x: 500, y: i * 100 + 45 });

const LAUNCHER: [string, El[]] = ["com.launcher/.Home", [["Notes", ""], ["Clock", ""]]];
const MAIN: [string, El[]] = ["com.notes/.Main", [["New note", "com.notes:id/new_note"]]];
const EDIT: [string, El[]] = ["com.notes/.Edit", [["", "com.notes:id/note_title"], ["Save", "com.notes:id/save"]]];
const CLOCK: [string, El[]] = ["com.clock/.Alarms", [["Add alarm", "com.clock:id/add_alarm"]]];

async function recordRun(cp: MemoryControlPlane) {
  const goal = await cp.createGoal({ objective: "Create a note titled Groceries in Notes, then add an alarm in Clock." });
  let n = 0;
  const write = (todoId: string, e: Pick<EvidenceInput, "kind" | "data"> & { blob?: EvidenceInput["blob"] }) => cp.appendEvidence({ idempotencyKey: `k${++n}`, goalId: goal.id, runId: "run1", todoId, stepIndex: n, summary: e.kind, ...e } as EvidenceInput);
  const observe = (todoId: string, [app, els]: [string, El[]]) => write(todoId, { kind: "observation", data: { app, screen: SIZE, elements: elements(els) }, blob: { bytes: new TextEncoder().encode(`png of ${app} #${n}`), mime: "image/png" } });
  const act = (todoId: string, action: Record<string, unknown>, px: { x: number; y: number } | null) => write(todoId, { kind: "action", data: { action, px } });
  const handoff = (todoId: string) => write(todoId, { kind: "handoff", data: { todoId, status: "completed", reason: "completed", summary: "done", outputs: {}, answers: [], finalScreen: null, steps: 1 } });

  await observe("t1", LAUNCHER);
  await act("t1", { type: "open_app", app: "com.notes" }, null);
  await observe("t1", MAIN);
  await handoff("t1");
  await observe("t2", MAIN);
  await act("t2", { type: "click", element: "0" }, at(0));
  await observe("t2", EDIT);
  await handoff("t2");
  await observe("t3", EDIT);
  await act("t3", { type: "click", element: "0" }, at(0));
  await observe("t3", EDIT);
  await act("t3", { type: "input_text", text: "Groceries" }, null);
  await observe("t3", EDIT);
  await handoff("t3");
  // A todo that did not finish ends the piece of work; the Clock todo after it is one tap (not worth a skill).
  await observe("t5", CLOCK);
  await act("t5", { type: "click", element: "0" }, at(0));
  await observe("t5", CLOCK);
  await handoff("t5");
  const shots = (await cp.listEvidence({ goalId: goal.id, runId: "run1", kind: "observation" })).map((e) => e.blobSha256!);
  return { goal, shots };
}

describe("learning from a finished run", () => {
  it("a skill per todo of two steps or more and one over the consecutive todos in one app, with the goal's values as parameters and each step's screenshot", async () => {
    const cp = new MemoryControlPlane();
    const { goal, shots } = await recordRun(cp);
    const learned = { ...emptyLearned(), apps: [{ packageName: "com.notes", label: "Notes", version: "1.0 (1)" }, { packageName: "com.clock", label: "Clock", version: "2.0 (2)" }] };
    const ctx = { ports: { device: new FakePhone({ home: { app: "com.launcher", background: "#000", elements: [] } }, "home"), controlPlane: cp } as unknown as AgentPorts, config: DEFAULT_CONFIG };
    await learnFromRun(ctx, {
      runId: "run1",
      goalId: goal.id,
      goal: goal.objective,
      learned,
      executed: [
        { todoId: "t1", title: "Step 1 of 5: Open Notes", status: "done" },
        { todoId: "t2", title: 'Step 2 of 5: In Notes, tap "New note"', status: "done" },
        { todoId: "t3", title: 'Step 3 of 5: In Notes, type "Groceries" into note_title', status: "done" },
        { todoId: "t4", title: "Step 4 of 5: In Clock, open the alarms", status: "partial" },
        { todoId: "t5", title: 'Step 5 of 5: In Clock, tap "Add alarm"', status: "done" },
      ],
      blackboard: {},
    }, []);

    const skills = await cp.listSkills({});
    expect(skills.map((s) => [s.app, s.appVersion, s.name]).sort()).toEqual([
      ["com.notes", "1.0 (1)", "in notes type title into note title"],
      ["com.notes", "1.0 (1)", "open notes tap new note type title into note title"],
    ]);
    const todo = readSkillBody(skills.find((s) => s.name.startsWith("in notes"))!.body)!;
    expect(todo).toMatchObject({ description: 'In Notes, type "{title}" into note_title', params: ["title"], example: { title: "Groceries" } });
    expect(todo.steps.map((s) => ("text" in s.action ? s.action.text : s.action.type))).toEqual(["click", "{title}"]);

    const whole = readSkillBody(skills.find((s) => s.name.startsWith("open notes"))!.body)!;
    expect(whole).toMatchObject({ app: "com.notes", description: 'Open Notes, tap "New note", type "{title}" into note_title', params: ["title"], example: { title: "Groceries" } });
    expect(whole.steps.map((s) => s.action.type)).toEqual(["open_app", "click", "click", "input_text"]);
    expect(whole.steps.map((s) => s.target?.resourceId ?? null)).toEqual([null, "com.notes:id/new_note", "com.notes:id/note_title", null]);
    // Each step's screenshot is the observation it started from: the launcher, Notes' main screen, the editor twice.
    expect(whole.steps.map((s) => s.shot)).toEqual([shots[0], shots[2], shots[4], shots[5]]);
    // Opening the app starts from any screen: the launcher the run left it on is no part of the skill.
    expect(whole.pre).toEqual({ app: "", required: [] });
    expect(whole.post).toMatchObject({ app: "com.notes", activity: "com.notes.Edit" });
  });

  it("a password the todo's words spell out is kept nowhere: not in the skill's goal, name, description or body", async () => {
    const cp = new MemoryControlPlane();
    const goal = await cp.createGoal({ objective: "Sign in to the bank as ada with the password hunter22." });
    const login = { app: "com.bank/.Login", screen: SIZE, elements: [{ i: 0, text: "", id: "com.bank:id/user_input", box: [0, 0, 1000, 90] }, { i: 1, text: "", id: "com.bank:id/pass_input", box: [0, 100, 1000, 190], password: true }, { i: 2, text: "Sign in", id: "com.bank:id/sign_in", box: [0, 200, 1000, 290] }] };
    let n = 0;
    const write = (e: Pick<EvidenceInput, "kind" | "data">) => cp.appendEvidence({ idempotencyKey: `k${++n}`, goalId: goal.id, runId: "run2", todoId: "t1", stepIndex: n, summary: e.kind, ...e } as EvidenceInput);
    await write({ kind: "observation", data: login });
    await write({ kind: "action", data: { action: { type: "click_then_type", element: "0", text: "ada" }, px: at(0) } });
    await write({ kind: "observation", data: login });
    await write({ kind: "action", data: { action: { type: "click_then_type", element: "1", text: "hunter22" }, px: at(1) } });
    await write({ kind: "observation", data: login });
    await write({ kind: "action", data: { action: { type: "click", element: "2" }, px: at(2) } });
    await write({ kind: "observation", data: { ...login, app: "com.bank/.Home", elements: [] } });
    await write({ kind: "handoff", data: { todoId: "t1", status: "completed", reason: "completed", summary: "done", outputs: {}, answers: [], finalScreen: null, steps: 3 } });
    const learned = { ...emptyLearned(), apps: [{ packageName: "com.bank", label: "Bank", version: "3.1 (31)" }] };
    const ctx = { ports: { device: new FakePhone({ home: { app: "com.launcher", background: "#000", elements: [] } }, "home"), controlPlane: cp } as unknown as AgentPorts, config: DEFAULT_CONFIG };
    await learnFromRun(ctx, { runId: "run2", goalId: goal.id, goal: goal.objective, learned, executed: [{ todoId: "t1", title: goal.objective, status: "done" }], blackboard: {} }, []);
    const skills = await cp.listSkills({});
    expect(skills).toHaveLength(1);
    expect(skills[0]!.goal).toBe("Sign in to the bank as ada with the password {pass}.");
    expect(JSON.stringify(skills)).not.toContain("hunter22");
    expect(readSkillBody(skills[0]!.body)).toMatchObject({ params: ["user", "pass"], example: { user: "ada" } });
  });
});
