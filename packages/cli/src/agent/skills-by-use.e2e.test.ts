// Skills validated by use, end to end: the headless composition (packages/client's ControlPlane over the real API
// on a throwaway database), the virtual phone over real ADB, a scripted model behind the product's OpenAI client.
// A run leaves a candidate; the next run is offered it marked unverified and uses it: when every step's screen was
// as expected and the todo was accepted, the core validates it at the run's end (a validation evidence row naming
// the run). When a step's screen is not as expected the skill hands back at that step, the model finishes the work,
// the failure is counted and the skill is not validated. Everything is read back from the state core.
import { describe, expect, it } from "vitest";
import type { AdbDevice } from "@phoneloop/device";
import { lampExecutor, lampScenario, planOf, type LampVariant } from "@phoneloop/agent/testing";
import { useHeadlessE2e } from "../testing/headless-e2e.ts";
import { runHeadless } from "./compose.ts";

const { t, api, ...e2e } = useHeadlessE2e("skills-e2e");

async function phone(variant: LampVariant, seed: number) {
  const p = await e2e.phone({ scenario: lampScenario(variant), seed, task: "lamp_on" });
  return { device: p.device, goal: p.goal, score: () => p.score() };
}

/** One run of the headless agent with its own scripted models; what the executor was shown is kept. */
async function run(worker: { token: string; agentId: string }, p: { device: AdbDevice; goal: string }) {
  const executor = lampExecutor();
  const server = await e2e.modelServer({
    rules: [
      { match: (r) => r.model === "planner-model", replies: [planOf([{ id: "t1", title: p.goal, app: "Lamp" }])], repeatLast: true },
      { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Done." }) }], repeatLast: true },
      { match: (r) => r.model === "executor-model", replies: [executor], repeatLast: true },
    ],
  });
  const models = { executor: { baseURL: server.baseURL, model: "executor-model" }, planner: { baseURL: server.baseURL, model: "planner-model" }, summarizer: { baseURL: server.baseURL, model: "summarizer-model" } };
  const out = await runHeadless({ apiUrl: api.url, agentToken: worker.token, agentId: worker.agentId, device: p.device, models, goal: p.goal, agentName: "learner", ocr: null, config: { maxStepsPerTodo: 30, maxStepsPerRun: 40 } });
  return { ...out, executorAsked: server.requests.filter((r) => r.model === "executor-model").map((r) => r.lastUserText) };
}

// A token acts as the one agent it first registers: each run of the workspace's worker keeps its id.
const workspaceToken = (name: string) => e2e.worker(name, "learner");
const skillsOf = (runId: string) => t.db.skill.findMany({ where: { runId } });
const validationsOf = (runId: string) => t.db.evidence.findMany({ where: { runId, kind: "validation", idempotencyKey: { startsWith: "skill:" } } });
const usesOf = (skillId: string) => t.db.event.findMany({ where: { subjectId: skillId, operator: "skill.recordUse" }, orderBy: { id: "asc" } });

describe("skills validated by use", () => {
  it("a candidate used by a run whose todo is accepted becomes validated, with evidence naming the run", { timeout: 120_000 }, async () => {
    const worker = await workspaceToken("Validated by use");
    const a = await phone("plain", 1);
    const first = await run(worker, a);
    expect(first.status).toBe("completed");
    expect(a.score()).toBe(1);
    const [candidate] = await skillsOf(first.runId);
    expect(candidate).toMatchObject({ app: "com.example.lamp", status: "candidate", version: 1, runId: first.runId });

    const b = await phone("plain", 2);
    const second = await run(worker, b);
    expect(second.status).toBe("completed");
    expect(b.score()).toBe(1);
    // Offered marked unverified, and used: the skill's two steps are the run's action evidence.
    expect(second.executorAsked[0]).toMatch(/- "[^"]+" \(com\.example\.lamp\): (?:[^;\n]*; )?unverified \(no run has confirmed it yet\), 2 step\(s\)/);
    const skillSteps = await t.db.evidence.findMany({ where: { runId: second.runId, kind: "action", idempotencyKey: { contains: ":skill:" } } });
    expect(skillSteps).toHaveLength(2);

    expect(await t.db.skill.findUniqueOrThrow({ where: { id: candidate!.id } })).toMatchObject({ status: "validated", version: 1, successes: 1, failures: 0 });
    const [evidence] = await validationsOf(second.runId);
    expect(evidence).toMatchObject({ runId: second.runId, kind: "validation", data: { code: "skill_validated_by_use", message: `skill ${candidate!.id} version 1` } });
    expect(evidence!.summary).toMatch(/version 1 validated by use: every step's screen was as expected and its todo was accepted/);
    const validated = await t.db.event.findFirstOrThrow({ where: { subjectId: candidate!.id, operator: "skill.validate" } });
    expect(validated.payload).toMatchObject({ by: "use", version: 1, runId: second.runId, evidenceId: evidence!.id });
    expect((await usesOf(candidate!.id)).map((e) => e.payload)).toEqual([expect.objectContaining({ ok: true, version: 1, runId: second.runId })]);
  });

  it("a candidate whose step 2 finds another screen hands back at step 2, the model finishes, the failure is counted and it is not validated", { timeout: 120_000 }, async () => {
    const worker = await workspaceToken("Handed back");
    const a = await phone("plain", 3);
    const first = await run(worker, a);
    expect(first.status).toBe("completed");
    const [candidate] = await skillsOf(first.runId);
    expect(candidate).toMatchObject({ status: "candidate", version: 1 });

    const b = await phone("renamed", 4);
    const second = await run(worker, b);
    expect(second.status).toBe("completed");
    expect(b.score()).toBe(1);
    const steps = await t.db.step.findMany({ where: { runId: second.runId }, orderBy: { index: "asc" } });
    const used = steps.find((s) => /use_skill/.test(JSON.stringify(s.action)));
    expect(String((used?.outcome as { outcome?: unknown } | null)?.outcome)).toMatch(/^skill stopped before step 2\/2: expected the screen com\.example\.lamp\.ControlsActivity, found com\.example\.lamp\.LightsActivity/);
    // Only the first step ran as the skill; the model tapped the switch itself.
    expect(await t.db.evidence.count({ where: { runId: second.runId, kind: "action", idempotencyKey: { contains: ":skill:" } } })).toBe(1);

    const [use] = await usesOf(candidate!.id);
    expect(use!.payload).toMatchObject({ ok: false, version: 1, runId: second.runId, failedAt: 1, reason: expect.stringMatching(/LightsActivity/) });
    expect(await validationsOf(second.runId)).toEqual([]);
    expect(await t.db.event.count({ where: { subjectId: candidate!.id, operator: "skill.validate" } })).toBe(0);
    // The run that finished the work repaired it: the next version, a candidate still.
    expect(await t.db.skill.findUniqueOrThrow({ where: { id: candidate!.id } })).toMatchObject({ status: "candidate", version: 2, runId: second.runId, successes: 0, failures: 1 });
  });
});
