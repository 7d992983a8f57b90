// Suites measure, they do not learn by accident: two attempts of one task (seeds 1 and 2, one at a time) where the
// first leaves a skill and a lesson the second would use. By default the second starts from the workspace's
// learning as it was when the suite started — it is offered neither — while what the first taught is still
// recorded; with learning shared the second is offered both, and the order the attempts started in is recorded
// with the results (the attempts' Events) and printed. Each attempt is a real run: its own virtual phone process,
// the runtime, the real API on a throwaway database, a scripted model.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { elementOn as find, lampScenario, offeredLampSkill, planOf, replyAction as reply, startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedReply } from "@phoneloop/agent/testing";
import { useApiServer } from "@phoneloop/api/testing";
import { issueAgentToken } from "@phoneloop/state";
import { seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { formatTable, learningLine } from "./report.ts";
import { runSuite, type SuiteOutcome } from "./runner.ts";
import type { SuiteLearning } from "./learning.ts";
import { selectTasks } from "./tasks.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let dir: string;
let server: ScriptedModelServer;

const LESSON = "The light switch is under Controls.";
const lamp = lampScenario();

/** Reads only its prompt (attempts share the server): takes an offered skill once, else Controls, then the switch. */
const executor = (req: RecordedRequest): ScriptedReply => {
  const text = req.lastUserText;
  if (/The skill "[^"]+" ran its/.test(text)) return reply({ type: "status", status: "complete", summary: "The skill turned the lamp on." });
  const skill = offeredLampSkill(req);
  if (skill && !/#\d+ use_skill/.test(text)) return reply({ type: "use_skill", skill, intent: "replay the path that worked before" });
  if (find(req, /"ON" id="?lamp_switch/)) return reply({ type: "status", status: "complete", summary: "The lamp is on." });
  const sw = find(req, /"OFF" id="?lamp_switch/);
  if (sw) return reply({ type: "click", element: sw, intent: "switch the lamp on" });
  const controls = find(req, /id="?open_controls/);
  if (controls) return reply({ type: "click", element: controls, intent: "open the controls" });
  return reply({ type: "open_app", app: "com.example.lamp" });
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "phoneloop-suite-learning-"));
  writeFileSync(join(dir, "lamp.json"), JSON.stringify(lamp));
  server = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "planner-model", replies: [planOf([{ id: "t1", title: "Turn on the light in Lamp.", app: "Lamp" }])], repeatLast: true },
      { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Done.", lessons: [{ kind: "worked", text: LESSON }] }) }], repeatLast: true },
      { match: (r) => r.model === "executor-model", replies: [executor], repeatLast: true },
    ],
  });
});
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The suite in a fresh workspace; each attempt's requests to the models, in order. */
async function suite(learning?: SuiteLearning): Promise<{ out: SuiteOutcome; asked: RecordedRequest[][] }> {
  const { workspace, admin } = await seedWorkspace(t.db, `Suite ${learning ?? "default"}`);
  const { token } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "suite", issuedBy: admin.id });
  const role = (model: string) => ({ baseURL: server.baseURL, model });
  const from = server.requests.length;
  const ends: number[] = [];
  const out = await runSuite({
    apiUrl: api.url,
    agentToken: token,
    profile: { name: "scripted", models: { executor: role("executor-model"), planner: role("planner-model"), summarizer: role("summarizer-model") } },
    tasks: selectTasks("lamp_on", dir),
    tasksGlob: "lamp_on",
    scenarios: dir,
    seeds: 2,
    parallel: 1,
    perturb: [],
    ...(learning ? { learning } : {}),
    onAttempt: () => ends.push(server.requests.length),
  });
  expect(out.attempts.map((a) => [a.seed, a.score])).toEqual([
    [1, 1],
    [2, 1],
  ]);
  return { out, asked: [server.requests.slice(from, ends[0]), server.requests.slice(ends[0], ends[1])] };
}
const of = (reqs: RecordedRequest[], model: string) => reqs.filter((r) => r.model === model).map((r) => r.lastUserText);
const eventsOf = (suiteRunId: string, operator: string) => t.db.event.findMany({ where: { operator, payload: { path: ["suiteRunId"], equals: suiteRunId } }, orderBy: { id: "asc" } });

describe("what a suite's attempts learn from", () => {
  it("by default every attempt starts from the learning of the suite's start: the second is offered neither the first's skill nor its lesson, which are still recorded", { timeout: 180_000 }, async () => {
    const { out, asked } = await suite();
    expect(out.learning).toBe("isolated");
    expect(of(asked[0]!, "executor-model").some((x) => /SKILLS \(/.test(x))).toBe(false);
    expect(of(asked[1]!, "executor-model").some((x) => /SKILLS \(/.test(x))).toBe(false);
    expect(of(asked[1]!, "planner-model").join("\n")).not.toContain(LESSON);
    // The second found its way as the first did: no skill ran.
    expect(of(asked[1]!, "executor-model").some((x) => /use_skill/.test(x))).toBe(false);
    // What the attempts taught is the workspace's all the same: the next suite starts from it.
    const runIds = out.attempts.map((a) => a.runId!);
    const skills = await t.db.skill.findMany({ where: { runId: { in: runIds } } });
    expect(skills.map((s) => s.status)).toEqual(["candidate"]);
    expect(await t.db.lesson.count({ where: { runId: { in: runIds } } })).toBe(1);
    expect(learningLine(out)).toBe("learning isolated: every attempt started from the workspace's learning at the suite's start (0 skills, 0 shortcuts, 0 lessons)");
    expect(out.attempts.map((a) => a.order)).toEqual([undefined, undefined]);
    expect((await eventsOf(out.suiteRunId, "suite.recordAttempt")).map((e) => (e.payload as { order?: number }).order ?? null)).toEqual([null, null]);
    expect(formatTable(out.attempts).split("\n")[0]).not.toMatch(/order/);
  });

  it("with learning shared the second attempt is offered the first's skill (unverified) and lesson and uses the skill; the order is recorded and printed", { timeout: 180_000 }, async () => {
    const { out, asked } = await suite("shared");
    expect(out.learning).toBe("shared");
    const second = of(asked[1]!, "executor-model");
    expect(second[0]).toMatch(/- "[^"]+" \(com\.example\.lamp\): (?:[^;\n]*; )?unverified/);
    expect(of(asked[1]!, "planner-model").join("\n")).toContain(LESSON);
    const used = await t.db.step.findMany({ where: { runId: out.attempts[1]!.runId! } });
    expect(used.some((s) => /use_skill/.test(JSON.stringify(s.action)))).toBe(true);
    // Its use validated the first attempt's skill.
    expect((await t.db.skill.findFirstOrThrow({ where: { runId: out.attempts[0]!.runId! } })).status).toBe("validated");

    expect(out.attempts.map((a) => a.order)).toEqual([1, 2]);
    expect((await eventsOf(out.suiteRunId, "suite.recordAttempt")).map((e) => (e.payload as { order?: number }).order)).toEqual([1, 2]);
    const start = await t.db.event.findFirstOrThrow({ where: { operator: "suite.start", subjectId: out.suiteRunId } });
    expect(start.payload).toMatchObject({ learning: "shared" });
    const table = formatTable(out.attempts).split("\n");
    expect(table[0]).toMatch(/^task\s+seed\s+score\s+steps\s+tokens\s+cost_usd\s+seconds\s+order$/);
    expect(table.slice(1).map((l) => l.split(/\s+/).at(-1))).toEqual(["1", "2"]);
    expect(learningLine(out)).toBe("learning shared: each attempt read what the attempts that ended before it left; started in this order: 1. lamp_on seed 1, 2. lamp_on seed 2");
  });
});
