// Learning pays off in the product, end to end from a fresh database: the headless composition (packages/client's
// ControlPlane over the real API), a fresh virtual phone over real ADB per run, and the pack's scripted model
// (@phoneloop/agent/testing pack-work: each task's path through the UI, and a skill used only when the executor's
// prompt offers one whose description the todo fills). A run of notes_create at its own values leaves a skill; then
// notes_create at other values, and a different task whose first half is the same work in Notes, each use that skill
// — their replays, read through packages/client as the replay page reads them, show a use_skill step naming it —
// score 1, and make fewer model calls (their model_call evidence) than the same task on its own fresh phone with
// learning withheld (the runtime's controlPlaneView: unlearned, as bench learn measures).
import { describe, expect, it } from "vitest";
import { packExecutor, packWork, planOf, SINGLE_APP_TASKS, unlearned, type PackWork } from "@phoneloop/agent/testing";
import { createApiClient, readAllPages } from "@phoneloop/client";
import { resolveGate } from "@phoneloop/state";
import { taskGoal, type PhoneEngine } from "@phoneloop/virtual-phone";
import { useHeadlessE2e, type E2eWorker } from "../testing/headless-e2e.ts";
import { runHeadless } from "./compose.ts";

const { t, api, ...e2e } = useHeadlessE2e("learning-e2e");

// The pack has no task whose first half is notes_create's work (social_to_notes ends with a note; notes_to_mail opens
// one), so the third task is written here, over the pack: a note in Notes, then a text of it in Messages.
const NOTE_THEN_TEXT = "notes_then_text";
const SCENARIO = {
  extends: "pack",
  name: "learning-e2e",
  description: "The full pack on the home screen, with a task that first does notes_create's work and then texts the note.",
  tasks: [
    {
      id: NOTE_THEN_TEXT,
      goal: "In Notes, create a note titled '{title}' containing '{body}', then text '{body}' to {name} in Messages.",
      apps: ["notes", "messages"],
      params: { title: "Book club", body: "Chapter four by Friday", name: "Bob Miller" },
      maxSteps: 40,
      tags: ["cross-app", "notes", "messages"],
      evaluator: {
        checks: [
          { name: "note saved", when: { some: { in: { var: "notes:notes" }, where: { all: [{ eq: [{ item: "title" }, { param: "title" }] }, { icontains: [{ item: "body" }, { param: "body" }] }] } } } },
          { name: "texted", when: { some: { in: { var: "messages:sent" }, where: { all: [{ eq: [{ item: "to" }, { param: "name" }] }, { eq: [{ item: "text" }, { param: "body" }] }] } } } },
        ],
        failIf: [{ reason: "texted someone else", when: { some: { in: { var: "messages:sent" }, where: { ne: [{ item: "to" }, { param: "name" }] } } } }],
      },
    },
  ],
};

/** The scripted planner's todos: the pack's own tasks' paths, titled in their wording (the third task's halves are notes_create's and messages_send's). */
function workOf(engine: PhoneEngine, task: string, goal: string, params: Record<string, unknown>): PackWork[] {
  if (task !== NOTE_THEN_TEXT) return packWork(task, goal, params);
  const p = { title: String(params.title), body: String(params.body), name: String(params.name) };
  return [
    { title: taskGoal(engine.task("notes_create"), { title: p.title, body: p.body }), steps: SINGLE_APP_TASKS.notes_create!(p) },
    { title: taskGoal(engine.task("messages_send"), { name: p.name, text: p.body }), steps: SINGLE_APP_TASKS.messages_send!({ name: p.name, text: p.body }) },
  ];
}

let seed = 10;
/** One run of the headless agent on a fresh phone, at the task's variant; learning withheld when `learning` is false. */
async function run(worker: E2eWorker, task: string, variant: number, learning: boolean) {
  const p = await e2e.phone({ scenario: SCENARIO, seed: seed++, task, variant });
  const work = workOf(p.engine, task, p.goal, p.params);
  const server = await e2e.modelServer({
    rules: [
      { match: (r) => r.model === "planner", replies: [planOf(work.map((w, i) => ({ id: `t${i + 1}`, title: w.title })))], repeatLast: true },
      { match: (r) => r.model === "summarizer", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Done." }) }], repeatLast: true },
      { match: (r) => r.model === "executor", replies: [packExecutor(work)], repeatLast: true },
    ],
  });
  const models = { executor: { baseURL: server.baseURL, model: "executor" }, planner: { baseURL: server.baseURL, model: "planner" }, summarizer: { baseURL: server.baseURL, model: "summarizer" } };
  // A person approves the gates the run opens (sending a text): the person's side is not what is tested.
  const approve = (gateId: string) => void resolveGate(t.db, { gateId, userId: worker.admin.id, decision: "approve", rationale: "the test's person approves" }).catch(() => undefined);
  const out = await runHeadless({
    apiUrl: api.url, agentToken: worker.token, agentId: worker.agentId, device: p.device, models, goal: p.goal, agentName: "learner", ocr: null,
    config: { maxStepsPerTodo: 40, maxStepsPerRun: 60 },
    onEvent: (e) => (e.type === "gate" ? approve(e.gateId) : undefined),
    ...(learning ? {} : { controlPlaneView: unlearned }),
  });
  // The replay as the replay page reads it: run.replay and every page of run.steps, through packages/client.
  const client = createApiClient({ apiUrl: api.url, auth: { kind: "token", token: worker.token } });
  const replay = await client.run.replay.query({ runId: out.runId });
  const steps = await readAllPages((cursor) => client.run.steps.query({ runId: out.runId, limit: 100, ...(cursor ? { cursor } : {}) }));
  const skillSteps = steps.filter((s) => s.action && typeof s.action === "object" && s.action.type === "use_skill");
  return { out, score: p.score([out.report.conclusion, ...out.report.findings].join("\n")), modelCalls: replay.totals.modelCalls, requests: server.requests.length, skillSteps, client, params: p.params };
}

describe("learning pays off in the product", () => {
  it("a skill learnt from notes_create is used by notes_create at other values and by a task whose first half is the same work: score 1 and fewer model calls than without learning", { timeout: 300_000 }, async () => {
    const worker = await e2e.worker("Learning pays off", "learner");
    const client = createApiClient({ apiUrl: api.url, auth: { kind: "token", token: worker.token } });
    expect((await client.skill.list.query({})).items).toEqual([]);

    const first = await run(worker, "notes_create", 0, true);
    expect(first.out.status).toBe("completed");
    expect(first.score).toBe(1);
    expect(first.skillSteps).toEqual([]);
    const learnt = (await client.skill.list.query({})).items.filter((s) => s.app === "com.phoneloop.notes");
    expect(learnt.length).toBeGreaterThan(0);
    expect(learnt.every((s) => s.runId === first.out.runId)).toBe(true);
    const names = learnt.map((s) => s.name);

    for (const [task, variant] of [["notes_create", 1], [NOTE_THEN_TEXT, 0]] as const) {
      const withLearning = await run(worker, task, variant, true);
      const without = await run(worker, task, variant, false);
      console.log(`${task}@${variant}: ${withLearning.modelCalls} model calls with learning, ${without.modelCalls} without`);
      expect(withLearning.out.status, `${task}@${variant}`).toBe("completed");
      expect(withLearning.score, `${task}@${variant}`).toBe(1);
      expect(without.score, `${task}@${variant} without learning`).toBe(1);
      // Its replay shows the learnt skill used, to its end screen, with this run's values.
      expect(withLearning.skillSteps, `${task}@${variant}`).toHaveLength(1);
      const [used] = withLearning.skillSteps;
      const action = used!.action as { skill?: string; params?: Record<string, string> };
      expect(names).toContain(action.skill);
      expect(action.params).toMatchObject({ title: withLearning.params.title, body: withLearning.params.body });
      expect(used!.outcome).toMatch(/^skill done: \d+\/\d+ steps, end screen reached/);
      expect(without.skillSteps).toEqual([]);
      // Fewer model calls: the run's model_call evidence (the replay's totals), every call the model server answered.
      expect(withLearning.modelCalls).toBe(withLearning.requests);
      expect(without.modelCalls).toBe(without.requests);
      expect(withLearning.modelCalls, `${task}@${variant}`).toBeLessThan(without.modelCalls);
      // The skill's uses keep the values it was given.
      const skill = learnt.find((s) => s.name === action.skill)!;
      const uses = await t.db.event.findMany({ where: { subjectId: skill.id, operator: "skill.recordUse", payload: { path: ["runId"], equals: withLearning.out.runId } } });
      expect(uses.map((u) => u.payload)).toEqual([expect.objectContaining({ ok: true, params: { title: withLearning.params.title, body: withLearning.params.body } })]);
    }
  });
});
