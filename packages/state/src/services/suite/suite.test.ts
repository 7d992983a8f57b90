import { describe, expect, it } from "vitest";
import { useTestDatabase, seedAgent, seedGoal, seedWorkspace } from "../../testing/index.ts";
import type { StateError } from "../../domain/errors.ts";
import { settingDifferences, wilsonInterval, type SuiteRoleSettings, type SuiteSettings } from "../../domain/suite.ts";
import { suiteRunDetail, suiteRunList } from "../../projections/suite-runs.ts";
import { scopeToWorkspace } from "../workspace/scope.ts";
import { startRun } from "../run/start-run.ts";
import { finishSuiteRun } from "./finish-suite-run.ts";
import { recordSuiteAttempt } from "./record-suite-attempt.ts";
import { startSuiteRun } from "./start-suite-run.ts";

const t = useTestDatabase();

const role: SuiteRoleSettings = { model: "gpt-x", endpoint: "http://127.0.0.1:8000/v1", adapter: "phoneloop", adapterVersion: "1", temperature: 0, topP: null, seed: null, maxOutputTokens: 1024, structuredOutput: "auto", imageDetail: "high" };
const settings: SuiteSettings = { prompts: "0123456789abcdef", roles: { executor: role, planner: { ...role, maxOutputTokens: 4096 }, summarizer: { ...role, maxOutputTokens: 4096 } } };

const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);
const figures = { steps: 4, inputTokens: 1200, outputTokens: 80, costMicroUsd: 340, durationMs: 5000 };

async function aRun(workspaceId: string): Promise<string> {
  const goal = await seedGoal(t.db, { workspaceId });
  const agent = await seedAgent(t.db, { workspaceId });
  return (await startRun(t.db, { goalId: goal.id, agentId: agent.id })).id;
}

describe("suite runs", () => {
  it("records attempts linking their runs, once per task and seed, and sums them up with a Wilson interval", async () => {
    const { workspace } = await seedWorkspace(t.db, "Suite");
    const suite = await startSuiteRun(t.db, { workspaceId: workspace.id, modelProfile: "reference-policy", tasks: "settings_*", scenarios: "pack", seeds: 2, perturbations: ["popup"] }, { actor: "agent_x" });
    expect(suite).toMatchObject({ status: "running", seeds: 2, perturbations: ["popup"], createdBy: "agent_x", endedAt: null });
    const run1 = await aRun(workspace.id);
    const a1 = await recordSuiteAttempt(t.db, { suiteRunId: suite.id, taskId: "settings_wifi_off", seed: 1, runId: run1, score: 1, reason: "all 2 checks passed", ...figures });
    const again = await recordSuiteAttempt(t.db, { suiteRunId: suite.id, taskId: "settings_wifi_off", seed: 1, runId: run1, score: 0, reason: "a retry", ...figures, steps: 99 });
    expect(again).toEqual(a1);
    await recordSuiteAttempt(t.db, { suiteRunId: suite.id, taskId: "settings_wifi_off", seed: 2, runId: await aRun(workspace.id), score: 0.5, reason: "1/2 checks passed", ...figures, steps: 8, durationMs: 9000 });
    await recordSuiteAttempt(t.db, { suiteRunId: suite.id, taskId: "settings_bluetooth_on", seed: 1, runId: null, score: 0, reason: "the phone did not start", ...figures, steps: 0, inputTokens: 0, costMicroUsd: 0, durationMs: 1000 });
    const done = await finishSuiteRun(t.db, { suiteRunId: suite.id, status: "completed" });
    expect(done.status).toBe("completed");
    expect(done.endedAt).toBeInstanceOf(Date);
    expect(await finishSuiteRun(t.db, { suiteRunId: suite.id, status: "completed" })).toMatchObject({ status: "completed" });
    expect((await err(finishSuiteRun(t.db, { suiteRunId: suite.id, status: "failed" })))?.code).toBe("ILLEGAL_TRANSITION");
    expect((await err(recordSuiteAttempt(t.db, { suiteRunId: suite.id, taskId: "late", seed: 1, score: 1, reason: "", ...figures })))?.code).toBe("ILLEGAL_TRANSITION");

    const detail = await suiteRunDetail(t.db, { suiteRunId: suite.id });
    expect(detail.attempts.map((a) => [a.taskId, a.seed, a.score, a.runId !== null])).toEqual([
      ["settings_bluetooth_on", 1, 0, false],
      ["settings_wifi_off", 1, 1, true],
      ["settings_wifi_off", 2, 0.5, true],
    ]);
    expect(detail.attempts[1]!.runId).toBe(run1);
    expect(detail.figures).toMatchObject({ attempts: 3, successes: 1, meanSteps: 4, costMicroUsd: 680, p50DurationMs: 5000 });
    expect(detail.figures.successRate).toEqual(wilsonInterval(1, 3));
    const list = await suiteRunList(t.db, { workspaceId: workspace.id });
    expect(list.items.map((s) => [s.id, s.figures.attempts])).toEqual([[suite.id, 3]]);
    const events = await t.db.event.findMany({ where: { workspaceId: workspace.id, operator: { startsWith: "suite." } }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.operator)).toEqual(["suite.start", "suite.recordAttempt", "suite.recordAttempt", "suite.recordAttempt", "suite.finish"]);
  });

  it("a suite run or a run of another workspace is not found", async () => {
    const a = await seedWorkspace(t.db, "A");
    const b = await seedWorkspace(t.db, "B");
    const suite = await startSuiteRun(t.db, { workspaceId: a.workspace.id, modelProfile: "p", tasks: "*", scenarios: "pack", seeds: 1 });
    expect((await err(scopeToWorkspace(t.db, b.workspace.id, { suiteRunId: suite.id })))?.code).toBe("NOT_FOUND");
    await scopeToWorkspace(t.db, a.workspace.id, { suiteRunId: suite.id });
    const foreignRun = await aRun(b.workspace.id);
    expect((await err(recordSuiteAttempt(t.db, { suiteRunId: suite.id, taskId: "x", seed: 1, runId: foreignRun, score: 1, reason: "", ...figures })))?.code).toBe("NOT_FOUND");
    expect((await suiteRunList(t.db, { workspaceId: b.workspace.id })).items).toEqual([]);
    expect((await err(startSuiteRun(t.db, { workspaceId: a.workspace.id, modelProfile: "p", tasks: "*", scenarios: "pack", seeds: 0 })))?.code).toBe("INVALID_INPUT");
  });

  it("records the settings its figures depend on and the trials; each trial of a task and seed is its own attempt", async () => {
    const { workspace } = await seedWorkspace(t.db, "Reproducible");
    const suite = await startSuiteRun(t.db, { workspaceId: workspace.id, modelProfile: "ui-tars", tasks: "*", scenarios: "pack", seeds: 1, trials: 3, settings });
    expect(suite).toMatchObject({ trials: 3, settings });
    for (const trial of [1, 2, 3]) await recordSuiteAttempt(t.db, { suiteRunId: suite.id, taskId: "notes_add", seed: 1, trial, runId: null, score: trial === 2 ? 0 : 1, reason: "", ...figures });
    const again = await recordSuiteAttempt(t.db, { suiteRunId: suite.id, taskId: "notes_add", seed: 1, trial: 2, runId: null, score: 1, reason: "a retry", ...figures });
    expect(again.score).toBe(0);
    const detail = await suiteRunDetail(t.db, { suiteRunId: suite.id });
    expect(detail.attempts.map((a) => [a.trial, a.score])).toEqual([[1, 1], [2, 0], [3, 1]]);
    expect(detail.settings).toEqual(settings);
    const start = await t.db.event.findFirstOrThrow({ where: { subjectId: suite.id, operator: "suite.start" } });
    expect(start.payload).toMatchObject({ trials: 3, settings });

    const older = await startSuiteRun(t.db, { workspaceId: workspace.id, modelProfile: "p", tasks: "*", scenarios: "pack", seeds: 1 });
    expect(older).toMatchObject({ trials: 1, settings: null });
    const bad = await err(startSuiteRun(t.db, { workspaceId: workspace.id, modelProfile: "p", tasks: "*", scenarios: "pack", seeds: 1, settings: { ...settings, roles: { ...settings.roles, executor: { ...role, temperature: "hot" } } } as never }));
    expect(bad?.code).toBe("INVALID_INPUT");
    expect(bad?.message).toMatch(/settings\.roles\.executor\.temperature/);
  });

  it("two runs' settings: every difference named with both values, and runs without recorded settings flagged", () => {
    const same = { settings, trials: 1, perturbations: ["popup"] };
    expect(settingDifferences(same, { ...same, perturbations: ["popup"] })).toEqual([]);
    const other: SuiteSettings = { prompts: "ffff000011112222", roles: { ...settings.roles, executor: { ...role, adapter: "ui-tars", adapterVersion: "1.5", temperature: 0.3 } } };
    expect(settingDifferences(same, { settings: other, trials: 5, perturbations: [] })).toEqual([
      { setting: "trials", a: "1", b: "5" },
      { setting: "perturbations", a: "popup", b: "none" },
      { setting: "prompts", a: "0123456789abcdef", b: "ffff000011112222" },
      { setting: "executor.adapter", a: "phoneloop", b: "ui-tars" },
      { setting: "executor.adapterVersion", a: "1", b: "1.5" },
      { setting: "executor.temperature", a: "0", b: "0.3" },
    ]);
    expect(settingDifferences(same, { ...same, settings: null })).toEqual([{ setting: "settings", a: "recorded", b: "not recorded" }]);
  });

  it("Wilson's interval stays inside [0, 1] and narrows with more attempts", () => {
    expect(wilsonInterval(0, 0)).toEqual({ rate: 0, low: 0, high: 0 });
    const all3 = wilsonInterval(3, 3);
    expect(all3.rate).toBe(1);
    expect(all3.high).toBe(1);
    expect(all3.low).toBeCloseTo(0.4385, 3);
    const all90 = wilsonInterval(90, 90);
    expect(all90.low).toBeGreaterThan(all3.low);
    const half = wilsonInterval(10, 20);
    expect(half.low).toBeCloseTo(0.2993, 3);
    expect(half.high).toBeCloseTo(0.7007, 3);
  });
});
