// Learning across runs on the virtual phone over real ADB: a skill distilled from one run is offered to the next run
// on a fresh phone under another seed, unverified, and that run's use validates it; a moved element makes it hand
// back to the model and the repaired skill is validated by the next run that uses it; a broken
// deeplink is retired after one failed validation and never offered; lessons reach the next run of the same app only.
import { describe, expect, it } from "vitest";
import { runAgent } from "../graph/run.ts";
import { planOf } from "../testing/harness.ts";
import { useHarness } from "../testing/use-harness.ts";
import { useTaskPhone, type TaskPhone } from "../testing/use-task-phone.ts";
import type { RecordedRequest, ScriptedReply } from "../testing/scripted-model-server.ts";
import { elementOn as find, lampExecutor, lampScenario, replyAction as reply, screenOf, type LampVariant } from "../testing/lamp.ts";
import { readSkillBody } from "./contract.ts";

const agent = { name: "learner", kind: "headless" as const, capabilities: ["phone"] };
const taskPhone = useTaskPhone();
const harness = useHarness();

const phone = (variant: LampVariant, seed: number, task = "lamp_on") => taskPhone(task, { seed, scenario: lampScenario(variant, { radio: true, deeplinks: true }) });

const planner = (req: RecordedRequest): ScriptedReply => {
  const goal = /GOAL: (.*)/.exec(req.lastUserText)?.[1] ?? "the goal";
  return planOf([{ id: "t1", title: goal, app: /Radio/.test(goal) ? "Radio" : "Lamp" }]) as ScriptedReply;
};

async function learningHarness(device: TaskPhone["device"], executor: (req: RecordedRequest) => ScriptedReply, lessons: { kind: string; text: string }[] = []) {
  return harness({
    device,
    executor: Array.from({ length: 200 }, () => executor),
    planner: Array.from({ length: 50 }, () => planner),
    summarizer: [{ text: JSON.stringify({ findings: [], conclusion: "Done.", lessons }) }],
  });
}

describe("skills", () => {
  it("distilled from one run, it is offered unverified to the next run on a fresh phone, whose use validates it; a moved element hands back to the model and the next run validates the repair", { timeout: 120_000 }, async () => {
    const a = await phone("plain", 1);
    const h = await learningHarness(a.device, lampExecutor());
    const first = await runAgent(h.ports, { goal: a.goal, agent });
    expect(first.status).toBe("completed");
    expect(a.score()).toBe(1);
    const [skill] = await h.cp.listSkills({ app: "com.example.lamp" });
    expect(skill).toMatchObject({ status: "candidate", version: 1, runId: first.runId });
    const body = readSkillBody(skill!.body)!;
    // The detour through About is not part of the skill: Controls, then the switch.
    expect(body.steps.map((s) => s.target?.resourceId?.replace(/^.*\//, ""))).toEqual(["open_controls", "lamp_switch"]);
    expect(body.pre.activity).toMatch(/lamp/);

    // A run on another fresh phone is offered the candidate, unverified, and uses it: fewer steps than the first
    // run, and the run's end validates it (its todo was accepted).
    const c = await phone("plain", 3);
    const executorAsked = h.executorRequests().length;
    const second = await runAgent({ ...h.ports, device: c.device }, { goal: c.goal, agent });
    expect(second.status).toBe("completed");
    expect(c.score()).toBe(1);
    expect(h.executorRequests()[executorAsked]!.lastUserText).toMatch(/- "[^"]+" \(com\.example\.lamp\): [^\n]*unverified \(no run has confirmed it yet\), 2 step\(s\)/);
    expect(h.cp.stepsOf(second.runId).length).toBeLessThan(h.cp.stepsOf(first.runId).length);
    expect((await h.cp.listSkills({ app: "com.example.lamp" }))[0]).toMatchObject({ status: "validated", successes: 1, version: 1 });

    // The element moved (Controls is under More now): the skill's precondition fails, the model finishes, the skill is repaired.
    const d = await phone("moved", 4);
    const moved = await learningHarness(d.device, lampExecutor());
    const third = await runAgent({ ...h.ports, device: d.device, models: moved.ports.models }, { goal: d.goal, agent });
    expect(third.status).toBe("completed");
    expect(d.score()).toBe(1);
    const fallback = h.cp.stepsOf(third.runId).find((s) => /use_skill/.test(JSON.stringify(s.action)));
    expect(String(fallback?.outcome.outcome)).toMatch(/skill stopped before step 1\/2: .*open_controls/);
    const repaired = (await h.cp.listSkills({ app: "com.example.lamp" }))[0]!;
    expect(repaired).toMatchObject({ id: skill!.id, version: 2, runId: third.runId, status: "candidate", failures: 1 });
    expect(readSkillBody(repaired.body)!.steps.map((s) => s.target?.resourceId?.replace(/^.*\//, ""))).toEqual(["open_more", "open_controls", "lamp_switch"]);
    // The next run that uses the repaired version validates it.
    const e = await phone("moved", 5);
    const again = await learningHarness(e.device, lampExecutor());
    const fourth = await runAgent({ ...h.ports, device: e.device, models: again.ports.models }, { goal: e.goal, agent });
    expect(fourth.status).toBe("completed");
    expect(e.score()).toBe(1);
    expect((await h.cp.listSkills({ app: "com.example.lamp" }))[0]).toMatchObject({ version: 2, status: "validated", successes: 2, failures: 1 });
  });
});

describe("a skill whose app renamed a screen", () => {
  it("hands back at the step whose screen changed, the model finishes, the repaired path is version 2 of the same skill, and a next run's use validates it", { timeout: 120_000 }, async () => {
    const a = await phone("plain", 1);
    const h = await learningHarness(a.device, lampExecutor());
    expect((await runAgent(h.ports, { goal: a.goal, agent })).status).toBe("completed");
    const [skill] = await h.cp.listSkills({ app: "com.example.lamp" });
    expect(readSkillBody(skill!.body)!.steps.map((s) => s.before.activity)).toEqual(["com.example.lamp.MainActivity", "com.example.lamp.ControlsActivity"]);

    // Controls is the Lights screen now: step 1 (tap Controls) still runs, step 2 expects a screen that is gone.
    const b = await phone("renamed", 2);
    const renamed = await learningHarness(b.device, lampExecutor());
    const second = await runAgent({ ...h.ports, device: b.device, models: renamed.ports.models }, { goal: b.goal, agent });
    expect(second.status).toBe("completed");
    expect(b.score()).toBe(1);
    const handedBack = h.cp.stepsOf(second.runId).find((s) => /use_skill/.test(JSON.stringify(s.action)));
    expect(String(handedBack?.outcome.outcome)).toMatch(/skill stopped before step 2\/2: expected the screen com\.example\.lamp\.ControlsActivity, found com\.example\.lamp\.LightsActivity/);
    const repaired = (await h.cp.listSkills({ app: "com.example.lamp" }))[0]!;
    expect(repaired).toMatchObject({ id: skill!.id, name: skill!.name, version: 2, runId: second.runId, status: "candidate", failures: 1 });
    const body = readSkillBody(repaired.body)!;
    expect(body.steps.map((s) => [s.target?.resourceId?.replace(/^.*\//, ""), s.before.activity])).toEqual([
      ["open_controls", "com.example.lamp.MainActivity"],
      ["lamp_switch", "com.example.lamp.LightsActivity"],
    ]);

    // A next run on the renamed app uses version 2 to its end: validated.
    const c = await phone("renamed", 3);
    const again = await learningHarness(c.device, lampExecutor());
    const third = await runAgent({ ...h.ports, device: c.device, models: again.ports.models }, { goal: c.goal, agent });
    expect(third.status).toBe("completed");
    expect(c.score()).toBe(1);
    const used = h.cp.stepsOf(third.runId).find((s) => /use_skill/.test(JSON.stringify(s.action)));
    expect(String(used?.outcome.outcome)).toMatch(/skill done: 2\/2 steps, end screen reached/);
    expect((await h.cp.listSkills({ app: "com.example.lamp" }))[0]).toMatchObject({ id: skill!.id, version: 2, status: "validated", successes: 1, failures: 1 });
  });
});

describe("shortcuts and lessons", () => {
  it("validating shortcuts after a run leaves the phone on the screen the run ended on: home, or the app's screen", { timeout: 120_000 }, async () => {
    const lampOf = (req: RecordedRequest) => /Welcome to Lamp|Lamp 1\.0/.test(screenOf(req));
    // Ends on the home screen: opens Lamp, goes home, done.
    let wentHome = false;
    const homeward = (req: RecordedRequest): ScriptedReply => {
      if (wentHome) return reply({ type: "status", status: "complete", summary: "Back home." });
      if (!lampOf(req)) return reply({ type: "open_app", app: "com.example.lamp" });
      wentHome = true;
      return reply({ type: "navigate_home" });
    };
    const a = await phone("plain", 1);
    let h = await learningHarness(a.device, homeward);
    await runAgent(h.ports, { goal: a.goal, agent });
    expect((await h.cp.listShortcuts({ app: "com.example.lamp", appVersion: "1.0 (1)" })).map((s) => s.status)).toEqual(["validated", "validated"]);
    expect(a.phone.engine.state().focusedWindow).toMatch(/launcher/i);

    // Ends on Lamp's About screen; the deeplinks opened About and Controls on top of it.
    let onAbout = false;
    const toAbout = (req: RecordedRequest): ScriptedReply => {
      if (/Lamp 1\.0/.test(screenOf(req)) && onAbout) return reply({ type: "status", status: "complete", summary: "On About." });
      const about = find(req, /id="?open_about/);
      if (about) {
        onAbout = true;
        return reply({ type: "click", element: about });
      }
      return reply({ type: "open_app", app: "com.example.lamp" });
    };
    const b = await phone("plain", 2);
    h = await learningHarness(b.device, toAbout);
    await runAgent(h.ports, { goal: b.goal, agent });
    expect((await h.cp.listShortcuts({ app: "com.example.lamp", appVersion: "1.0 (1)" })).map((s) => s.status)).toEqual(["validated", "validated"]);
    expect(b.phone.engine.state().focusedWindow).toBe("com.example.lamp/com.example.lamp.AboutActivity");
  });

  it("a broken deeplink is retired after one failed validation and never offered; lessons reach the same app's next run, not another app's", { timeout: 120_000 }, async () => {
    const a = await phone("broken_link", 1);
    const h = await learningHarness(a.device, lampExecutor(), [{ kind: "failed", text: "About is a detour: the switch is under Controls." }]);
    await runAgent(h.ports, { goal: a.goal, agent });
    const shortcuts = await h.cp.listShortcuts({ app: "com.example.lamp", appVersion: "1.0 (1)" });
    expect(shortcuts.map((s) => [s.uri, s.status])).toEqual([
      ["lamp://about", "validated"],
      ["lamp://controls", "retired"],
    ]);
    expect(shortcuts.find((s) => s.uri === "lamp://controls")?.reason).toMatch(/instead of com\.example\.lamp\.ControlsActivity/);

    const b = await phone("broken_link", 2);
    const plannerBefore = h.plannerRequests().length;
    await runAgent({ ...h.ports, device: b.device }, { goal: b.goal, agent });
    const plan = h.plannerRequests()[plannerBefore]!.lastUserText;
    expect(plan).toMatch(/About is a detour/);
    expect(plan).toMatch(/lamp:\/\/about/);
    expect(plan).not.toMatch(/lamp:\/\/controls/);

    const r = await phone("plain", 3, "radio_on");
    const radioBefore = h.plannerRequests().length;
    const radioExec = (req: RecordedRequest): ScriptedReply => {
      const sw = find(req, /id="?radio_switch/);
      return /\bchecked\b/.test(screenOf(req)) || !sw ? reply({ type: "status", status: "complete" }) : reply({ type: "click", element: sw });
    };
    const radio = await learningHarness(r.device, radioExec);
    await runAgent({ ...h.ports, device: r.device, models: radio.ports.models }, { goal: r.goal, agent });
    const radioPlan = radio.plannerRequests()[0]!.lastUserText;
    expect(h.plannerRequests().length).toBe(radioBefore);
    expect(radioPlan).not.toMatch(/About is a detour|LESSONS/);
  });
});

describe("a todo of an app the goal does not name", () => {
  it("is offered that app's skill when the todo is claimed (the goal brought in no such app)", { timeout: 120_000 }, async () => {
    // The radio's path, or its skill when the prompt offers one.
    const radioExecutor = () => {
      let tried = false;
      return (req: RecordedRequest): ScriptedReply => {
        if (/The skill "[^"]+" ran its/.test(req.lastUserText)) return reply({ type: "status", status: "complete", summary: "The radio is on." });
        const offered = /- "([^"]+)" \(com\.example\.radio\)/.exec(req.lastUserText)?.[1];
        if (offered && !tried) {
          tried = true;
          return reply({ type: "use_skill", skill: offered, intent: "the path that worked before" });
        }
        if (/"ON" id="?radio_switch/.test(screenOf(req))) return reply({ type: "status", status: "complete", summary: "The radio is on." });
        const sw = find(req, /id="?radio_switch/);
        return sw ? reply({ type: "click", element: sw, intent: "power on" }) : reply({ type: "open_app", app: "com.example.radio" });
      };
    };
    const a = await phone("plain", 1, "radio_on");
    const h = await learningHarness(a.device, radioExecutor());
    expect((await runAgent(h.ports, { goal: a.goal, agent })).status).toBe("completed");
    expect(await h.cp.listSkills({ app: "com.example.radio" })).toHaveLength(1);

    // A goal in other words (no app named, the lamp in front); its planner writes the radio's todo.
    const b = await phone("plain", 2, "radio_on");
    const other = await harness({
      device: b.device,
      executor: Array.from({ length: 50 }, () => radioExecutor()),
      planner: Array.from({ length: 20 }, () => planOf([{ id: "t1", title: "Turn on the power in Radio." }]) as ScriptedReply),
      summarizer: [{ text: JSON.stringify({ findings: [], conclusion: "Done.", lessons: [] }) }],
    });
    const run = await runAgent({ ...h.ports, device: b.device, models: other.ports.models }, { goal: "Get some music going in the living room.", agent });
    expect(run.status).toBe("completed");
    expect(b.score()).toBe(1);
    expect(other.executorRequests()[0]!.lastUserText).toMatch(/- "[^"]+" \(com\.example\.radio\)/);
    expect(h.cp.stepsOf(run.runId).some((s) => /use_skill/.test(JSON.stringify(s.action)))).toBe(true);
  });
});
