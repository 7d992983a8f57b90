// A suite run's settings and trials over the real API and client: what the runner records on suite.start comes back
// typed from suite.get and suite.list; each trial of a task and seed is its own attempt; a malformed setting is
// refused naming the field; a run recorded without settings says so (null).
import { describe, expect, it } from "vitest";
import { createApiClient } from "@phoneloop/client";
import { settingDifferences, type SuiteSettings } from "@phoneloop/state/domain";
import { seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { agentTokenHeaders } from "./auth/testing.ts";
import { useApiServer } from "./use-api-server.ts";

const t = useTestDatabase();
const api = useApiServer(t);

const role = { model: "vision-1", endpoint: "http://127.0.0.1:8000/v1", adapter: "phoneloop", adapterVersion: "1", temperature: 0, topP: null, seed: null, maxOutputTokens: 1024, structuredOutput: "auto", imageDetail: "high" };
const settings: SuiteSettings = { prompts: "0123456789abcdef", roles: { executor: role, planner: { ...role, maxOutputTokens: 4096 }, summarizer: { ...role, maxOutputTokens: 4096 } } };
const figures = { runId: null, reason: "", steps: 2, inputTokens: 10, outputTokens: 1, costMicroUsd: 0, durationMs: 100 };

describe("suite settings over the API", () => {
  it("round-trip typed, trials are attempts of their own, a malformed setting names its field", async () => {
    const { workspace, admin } = await seedWorkspace(t.db, "Suites");
    const { token } = await agentTokenHeaders(t.db, { workspaceId: workspace.id, issuedBy: admin.id, name: "suite runner" });
    const client = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
    const a = await client.suite.start.mutate({ modelProfile: "local", tasks: "*", scenarios: "pack", seeds: 1, trials: 2, settings });
    for (const trial of [1, 2]) await client.suite.recordAttempt.mutate({ suiteRunId: a.id, taskId: "notes_add", seed: 1, trial, score: trial === 1 ? 1 : 0, ...figures });
    const detail = await client.suite.get.query({ suiteRunId: a.id });
    expect(detail.settings).toEqual(settings);
    expect(detail.trials).toBe(2);
    expect(detail.attempts.map((x) => [x.trial, x.score])).toEqual([[1, 1], [2, 0]]);
    const b = await client.suite.start.mutate({ modelProfile: "older runner", tasks: "*", scenarios: "pack", seeds: 1 });
    const list = await client.suite.list.query({});
    expect(list.items.map((s) => [s.id, s.trials, s.settings === null])).toEqual([[b.id, 1, true], [a.id, 2, false]]);
    expect(settingDifferences(detail, list.items[0]!)).toContainEqual({ setting: "settings", a: "recorded", b: "not recorded" });
    const bad = await client.suite.start.mutate({ modelProfile: "x", tasks: "*", scenarios: "pack", seeds: 1, settings: { ...settings, prompts: "" } }).then(() => null, (e: Error) => e);
    expect(bad?.message).toMatch(/settings\.prompts/);
  });
});
