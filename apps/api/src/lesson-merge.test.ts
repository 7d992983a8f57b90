// Lessons merged in the background, over the real API: an agent's runs add lessons (paraphrases, one in Chinese, and
// a later contradiction) through the client; the API's lesson merger folds them per app and drops the contradicted
// one; a member reads each lesson with the runs it came from, and the runtime's planner selection takes at most a
// handful per app.
import { describe, expect, it } from "vitest";
import { createApiClient, createControlPlane } from "@phoneloop/client";
import { lessonsFor } from "@phoneloop/agent";
import { MAX_LESSONS_PER_APP_IN_PROMPT } from "@phoneloop/state";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { agentTokenHeaders, signUpMember } from "./auth/testing.ts";

const t = useTestDatabase();
// A long interval: the test drives the passes with tick(), never a racing timer.
const api = useApiServer(t, { lessonMerge: { intervalMs: 3_600_000 } });

describe("lesson merge", () => {
  it("folds an app's duplicates into lessons naming their runs, the later evidence wins a contradiction, at most a handful reach the planner", async () => {
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const { token } = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId });
    const cp = createControlPlane(createApiClient({ apiUrl: api.url, auth: { kind: "token", token } }), { apiUrl: api.url });
    const member = createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: admin.headers.cookie! } });
    const goal = "Search Loop for agents";
    await cp.addLessons({ app: "com.loop", goal, runId: "run_a", lessons: [{ kind: "failed", text: "The update dialog hides the search field." }, { kind: "worked", text: "Tapping Search opens the results page." }] });
    await cp.addLessons({ app: "com.loop", goal, runId: "run_b", lessons: [{ kind: "failed", text: "The search field is hidden by the update dialog" }, { kind: "failed", text: "更新对话框挡住了搜索框" }] });
    await cp.addLessons({ app: "com.loop", goal, runId: "run_c", lessons: [{ kind: "failed", text: "搜索框被更新对话框挡住了。" }, { kind: "worked", text: "Tapping Search does not open the results page." }] });
    for (const [run, tab] of [["run_d", "inbox"], ["run_e", "profile"], ["run_f", "settings"]] as const) {
      await cp.addLessons({ app: "com.loop", goal, runId: run, lessons: [{ kind: "worked", text: `Open the ${tab} tab first` }] });
    }
    expect((await member.lesson.list.query({ app: "com.loop" })).items).toHaveLength(9);

    expect(await api.lessonMerger!.tick()).toEqual({ apps: 1, folded: 2, contradicted: 1 });
    const merged = (await member.lesson.list.query({ app: "com.loop" })).items;
    expect(merged.map((l) => [l.text, l.runIds]).sort()).toEqual([
      ["Open the inbox tab first", ["run_d"]],
      ["Open the profile tab first", ["run_e"]],
      ["Open the settings tab first", ["run_f"]],
      ["Tapping Search does not open the results page.", ["run_c"]],
      ["The update dialog hides the search field.", ["run_a", "run_b"]],
      ["更新对话框挡住了搜索框", ["run_b", "run_c"]],
    ]);
    expect(await api.lessonMerger!.tick()).toEqual({ apps: 0, folded: 0, contradicted: 0 });
    // The planner's lessons, read by the runtime as a run does: all six are for a similar goal, a handful go in.
    const forPlanner = lessonsFor(goal, ["com.loop"], await cp.listLessons({ app: "com.loop" }));
    expect(forPlanner).toHaveLength(MAX_LESSONS_PER_APP_IN_PROMPT);
  });
});
