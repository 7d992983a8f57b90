// `npm run suite -- --validate-skills` end to end: the workspace's candidates of the scenarios' apps are replayed,
// each in a real run on its own virtual phone process through the runtime, the real API on a throwaway database
// and a scripted model that uses the skill it is offered (with the skill's example values as its params). A
// candidate whose use reaches its end for an accepted todo is validated by the core; one whose step finds another
// screen hands back at that step; one the model leaves alone is not used; a skill of another app is not replayed.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { elementOn as find, lampScenario, offeredLampSkill, planOf, replyAction as reply, startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedReply } from "@phoneloop/agent/testing";
import { useApiServer } from "@phoneloop/api/testing";
import { issueAgentToken, saveSkill } from "@phoneloop/state";
import { seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { main } from "./main.ts";
import { parseSuiteArgs, UsageError } from "./options.ts";
import { runSuite } from "./runner.ts";
import { selectTasks } from "./tasks.ts";
import { skillValidationLine, skillValidationSummary, validateSkills } from "./validate-skills.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let dir: string;
let server: ScriptedModelServer;
/** The example values of each seeded skill, by name: what the scripted model answers use_skill with. */
const examples = new Map<string, Record<string, string>>();

/** Reads only its prompt (runs share the server): uses the offered skill once unless it is the one to leave alone. */
const executor = (req: RecordedRequest): ScriptedReply => {
  const text = req.lastUserText;
  if (/The skill "[^"]+" ran its/.test(text)) return reply({ type: "status", status: "complete", summary: "The skill turned the lamp on." });
  const skill = offeredLampSkill(req);
  if (skill && !/ignored/.test(skill) && !/#\d+ use_skill/.test(text)) return reply({ type: "use_skill", skill, ...(examples.has(skill) ? { params: examples.get(skill) } : {}), intent: "replay the path that worked before" });
  if (find(req, /"ON" id="?lamp_switch/)) return reply({ type: "status", status: "complete", summary: "The lamp is on." });
  const sw = find(req, /"OFF" id="?lamp_switch/);
  if (sw) return reply({ type: "click", element: sw, intent: "switch the lamp on" });
  const controls = find(req, /id="?open_controls/);
  if (controls) return reply({ type: "click", element: controls, intent: "open the controls" });
  return reply({ type: "open_app", app: "com.example.lamp" });
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "phoneloop-validate-skills-"));
  writeFileSync(join(dir, "lamp.json"), JSON.stringify(lampScenario()));
  server = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "planner-model", replies: [planOf([{ id: "t1", title: "Turn on the light in Lamp.", app: "Lamp" }])], repeatLast: true },
      { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Done.", lessons: [] }) }], repeatLast: true },
      { match: (r) => r.model === "executor-model", replies: [executor], repeatLast: true },
    ],
  });
});
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const profile = () => ({ name: "scripted", models: { executor: { baseURL: server.baseURL, model: "executor-model" }, planner: { baseURL: server.baseURL, model: "planner-model" }, summarizer: { baseURL: server.baseURL, model: "summarizer-model" } } });

describe("npm run suite -- --validate-skills", () => {
  it("replays each candidate of the scenarios' apps: validated by use, handed back at the step whose screen differs, or not used; the core validates, the suite only reports", { timeout: 300_000 }, async () => {
    const { workspace, admin } = await seedWorkspace(t.db, "Validate skills");
    const { token } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "suite", issuedBy: admin.id });
    // A first run leaves a candidate distilled from what it did on the lamp.
    const first = await runSuite({ apiUrl: api.url, agentToken: token, profile: profile(), tasks: selectTasks("lamp_on", dir), tasksGlob: "lamp_on", scenarios: dir, seeds: 1, parallel: 1, perturb: [] });
    expect(first.attempts.map((a) => a.score)).toEqual([1]);
    const distilled = await t.db.skill.findFirstOrThrow({ where: { workspaceId: workspace.id, runId: first.attempts[0]!.runId! } });
    expect(distilled.status).toBe("candidate");
    const body = distilled.body as { steps: { before: { activity?: string } }[]; post: { activity?: string } } & Record<string, unknown>;
    const save = (name: string, b: Record<string, unknown>, app = distilled.app) => saveSkill(t.db, { workspaceId: workspace.id, app, appVersion: distilled.appVersion, name, goal: "Turn on the light in Lamp.", body: b, runId: distilled.runId });
    // One described with a parameter and its example value: its run's goal is the description with the example in it.
    const described = { ...body, description: "turn the {what} on in Lamp", params: ["what"], example: { what: "light" } };
    examples.set("lamp described", { what: "light" });
    await save("lamp described", described);
    // One whose last screen the app now shows as another activity (as after an update): it hands back at that step.
    const moved = structuredClone(body);
    moved.steps.at(-1)!.before.activity = "com.example.lamp.LightsActivity";
    moved.post.activity = "com.example.lamp.LightsActivity";
    const { description: _d, params: _p, example: _e, ...plain } = moved;
    await save("lamp lights", plain);
    // One the model leaves alone, and one of an app no scenario has (not replayed).
    await save("lamp ignored", { ...body });
    // One with a secret parameter (no value is kept for it): no goal can give it, so it is not run.
    await save("lamp with pin", { ...body, description: "turn the light on in Lamp with the pin {pin}", params: ["pin"], example: {} });
    await save("radio on", { ...body, app: "com.example.radio" }, "com.example.radio");

    const lines: string[] = [];
    // A token acts as the one agent it registered: the batch is another agent, as a new `npm run suite` is.
    const second = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "validate", issuedBy: admin.id });
    const out = await validateSkills({ apiUrl: api.url, agentToken: second.token, profile: profile(), scenarios: dir, parallel: 1, onSkill: (v) => lines.push(skillValidationLine(v)) });
    const by = new Map(out.map((v) => [v.name, v]));
    expect(out.map((v) => v.name).sort()).toEqual([distilled.name, "lamp described", "lamp ignored", "lamp lights", "lamp with pin"].sort());
    expect(by.get("lamp with pin")).toMatchObject({ outcome: "not_run", runId: null });
    expect(by.get("lamp with pin")!.reason).toMatch(/\{pin\} has no kept value .* run a goal that gives it/);
    expect(by.get("lamp described")).toMatchObject({ outcome: "validated", goal: "turn the light on in Lamp" });
    expect(by.get(distilled.name)).toMatchObject({ outcome: "validated" });
    expect(by.get("lamp lights")).toMatchObject({ outcome: "handed_back", step: body.steps.length, goal: "Turn on the light in Lamp." });
    expect(by.get("lamp lights")!.reason).toMatch(/\S/);
    expect(by.get("lamp ignored")).toMatchObject({ outcome: "not_used" });
    expect(skillValidationSummary(out)).toBe("skills=5 validated=2 handed_back=1 not_validated=0 not_used=1 not_run=1");
    expect(lines).toContain(`skill "lamp lights" (com.example.lamp) v1: handed back at step ${body.steps.length} (${by.get("lamp lights")!.reason}) — run ${by.get("lamp lights")!.runId}`);

    // What the core did: the used skills validated by their runs' use, each run offered only the skill it replays.
    const now = new Map((await t.db.skill.findMany({ where: { workspaceId: workspace.id } })).map((s) => [s.name, s]));
    expect(now.get("lamp described")!.status).toBe("validated");
    expect(now.get("radio on")!.status).toBe("candidate");
    expect(now.get("lamp ignored")!.status).toBe("candidate");
    expect(now.get("lamp with pin")!.status).toBe("candidate");
    expect(now.get("lamp lights")!.status).not.toBe("validated");
    const validation = await t.db.evidence.findFirstOrThrow({ where: { runId: by.get("lamp described")!.runId!, kind: "validation", data: { path: ["code"], equals: "skill_validated_by_use" } } });
    expect(validation.data).toMatchObject({ message: expect.stringContaining(`skill ${now.get("lamp described")!.id} version`) });
    const prompts = server.requests.filter((r) => r.model === "executor-model").map((r) => r.lastUserText);
    expect(prompts.some((p) => /- "lamp described" \(com\.example\.lamp\)/.test(p) && /- "lamp ignored"/.test(p))).toBe(false);
  });

  it("takes no task flags with --validate-skills, and needs --tasks without it", () => {
    expect(parseSuiteArgs(["--validate-skills", "--parallel", "2"], {})).toMatchObject({ validateSkills: true, tasks: "", parallel: 2 });
    expect(() => parseSuiteArgs(["--validate-skills", "--tasks", "*", "--seeds", "2"], {})).toThrow(UsageError);
    expect(() => parseSuiteArgs(["--validate-skills", "--tasks", "*", "--seeds", "2"], {})).toThrow(/leave out --tasks, --seeds/);
    expect(() => parseSuiteArgs([], {})).toThrow(/--tasks is required/);
  });

  it("main refuses a task flag beside --validate-skills before starting anything", async () => {
    let err = "";
    expect(await main(["--validate-skills", "--learning", "shared"], {}, { stdout: () => undefined, stderr: (s) => (err += s) })).toBe(2);
    expect(err).toMatch(/--validate-skills replays the workspace's candidate skills, not tasks: leave out --learning/);
  });
});
