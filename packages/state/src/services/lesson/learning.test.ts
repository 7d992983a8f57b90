// Skills, shortcuts and lessons in the state core: repair in place, one failed validation retires, lessons deduplicated per app.
import { describe, expect, it } from "vitest";
import { useTestDatabase, seedGoal, seedTodos, seedWorkspace } from "../../testing/index.ts";
import type { StateError } from "../../domain/errors.ts";
import { deleteSkill, listSkills, listSkillVersions, recordSkillUse, saveSkill } from "../skill/skills.ts";
import { changeSkillStatus } from "../skill/change-status.ts";
import { listShortcuts, recordShortcutValidation, saveShortcuts } from "../shortcut/shortcuts.ts";
import { addLessons, deleteLesson, listLessons, mergeLessons, updateLesson } from "./lessons.ts";

const t = useTestDatabase();
const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);

describe("skills", () => {
  it("a second save of the same skill is a repair: version + 1, the new run, a candidate again; uses are counted", async () => {
    const { workspace } = await seedWorkspace(t.db, "Skills");
    const ws = workspace.id;
    const s1 = await saveSkill(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "search", goal: "Search Loop", body: { steps: [1] }, runId: "run_a" });
    expect(s1).toMatchObject({ version: 1, status: "candidate", runId: "run_a" });
    await changeSkillStatus(t.db, { workspaceId: ws, skillId: s1.id, change: "approve" });
    const [todo] = await seedTodos(t.db, (await seedGoal(t.db, { workspaceId: ws })).id, 1);
    await recordSkillUse(t.db, { workspaceId: ws, skillId: s1.id, idempotencyKey: "run_a:3:skill-use", runId: "run_a", todoId: todo!.id, ok: true });
    await recordSkillUse(t.db, { workspaceId: ws, skillId: s1.id, idempotencyKey: "run_a:7:skill-use", runId: "run_a", todoId: todo!.id, ok: false, failedAt: 1, reason: "the element #go is not on the screen" });
    const s2 = await saveSkill(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "search", goal: "Search Loop", body: { steps: [1, 2] }, runId: "run_b" });
    expect(s2).toMatchObject({ id: s1.id, version: 2, status: "candidate", runId: "run_b", successes: 1, failures: 1, body: { steps: [1, 2] } });
    expect((await listSkills(t.db, { workspaceId: ws, status: "validated" })).items).toEqual([]);
    await changeSkillStatus(t.db, { workspaceId: ws, skillId: s1.id, change: "disable" });
    expect((await saveSkill(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "search", goal: "g", body: {}, runId: "run_c" })).status).toBe("disabled");
    const other = await seedWorkspace(t.db, "Other");
    expect((await listSkills(t.db, { workspaceId: other.workspace.id })).items).toEqual([]);
    expect((await err(deleteSkill(t.db, { workspaceId: other.workspace.id, skillId: s1.id })))?.code).toBe("NOT_FOUND");
    await deleteSkill(t.db, { workspaceId: ws, skillId: s1.id });
    expect((await listSkills(t.db, { workspaceId: ws })).items).toEqual([]);
  });

  it("two failed uses in a row of one version retire it; a use that reached its end between them, or a repair, starts the count again", async () => {
    const { workspace } = await seedWorkspace(t.db, "Retire");
    const ws = workspace.id;
    const [todo] = await seedTodos(t.db, (await seedGoal(t.db, { workspaceId: ws })).id, 1);
    let n = 0;
    const use = (ok: boolean) => recordSkillUse(t.db, { workspaceId: ws, skillId: s.id, idempotencyKey: `run_u:${n++}:skill-use`, runId: "run_u", todoId: todo!.id, ok, ...(ok ? {} : { failedAt: 0, reason: "expected the screen .Search" }) });
    const s = await saveSkill(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "search", goal: "Search Loop", body: {}, runId: "run_a" });
    expect((await use(false)).status).toBe("candidate");
    expect((await use(true)).status).toBe("candidate");
    expect((await use(false)).status).toBe("candidate");
    expect(await use(false)).toMatchObject({ status: "retired", failures: 3, successes: 1 });
    expect((await listSkills(t.db, { workspaceId: ws, status: "retired" })).items.map((x) => x.id)).toEqual([s.id]);
    // The repair is the next version, a candidate again; its first failure is its first.
    expect((await saveSkill(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "search", goal: "Search Loop", body: { v: 2 }, runId: "run_b" })).status).toBe("candidate");
    expect((await use(false)).status).toBe("candidate");
    const retire = await t.db.event.findMany({ where: { subjectId: s.id, operator: "skill.recordUse" }, orderBy: { id: "asc" } });
    expect(retire.map((e) => (e.payload as { retired?: boolean }).retired ?? false)).toEqual([false, false, false, true, false]);
    expect(retire[0]!.payload).toMatchObject({ ok: false, version: 1, runId: "run_u", todoId: todo!.id, failedAt: 0, reason: "expected the screen .Search" });
  });

  it("a use sent again with its key (a client's retry) is counted once: no second success, no second failure towards retiring", async () => {
    const { workspace } = await seedWorkspace(t.db, "Retried uses");
    const ws = workspace.id;
    const [todo] = await seedTodos(t.db, (await seedGoal(t.db, { workspaceId: ws })).id, 1);
    const s = await saveSkill(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "search", goal: "Search Loop", body: {}, runId: "run_a" });
    const use = (key: string, ok: boolean) => recordSkillUse(t.db, { workspaceId: ws, skillId: s.id, idempotencyKey: key, runId: "run_r", todoId: todo!.id, ok, ...(ok ? {} : { failedAt: 0, reason: "expected the screen .Search" }) });
    await use("run_r:1:skill-use", true);
    expect(await use("run_r:1:skill-use", true)).toMatchObject({ successes: 1, failures: 0 });
    await use("run_r:2:skill-use", false);
    // The same failure retried twice more is still one failure: the version is not retired by a retry.
    await Promise.all([use("run_r:2:skill-use", false), use("run_r:2:skill-use", false)]);
    expect((await listSkills(t.db, { workspaceId: ws })).items[0]).toMatchObject({ status: "candidate", successes: 1, failures: 1 });
    expect(await t.db.event.count({ where: { subjectId: s.id, operator: "skill.recordUse" } })).toBe(2);
    await use("run_r:3:skill-use", false);
    expect((await listSkills(t.db, { workspaceId: ws })).items[0]).toMatchObject({ status: "retired", failures: 2 });
  });
  it("a use keeps the values its parameters were given, in the skill's uses; a use of a skill without parameters has none", async () => {
    const { workspace } = await seedWorkspace(t.db, "Uses with values");
    const ws = workspace.id;
    const [todo] = await seedTodos(t.db, (await seedGoal(t.db, { workspaceId: ws })).id, 1);
    const s = await saveSkill(t.db, { workspaceId: ws, app: "com.notes", appVersion: "1.0", name: "create a note", goal: "Create a note titled 'Groceries'", body: { params: ["title", "body"] }, runId: "run_a" });
    await recordSkillUse(t.db, { workspaceId: ws, skillId: s.id, idempotencyKey: "run_b:4:skill-use", runId: "run_b", todoId: todo!.id, ok: true, params: { title: "Weekend plans", body: "hike, laundry, call mom" } });
    await recordSkillUse(t.db, { workspaceId: ws, skillId: s.id, idempotencyKey: "run_c:2:skill-use", runId: "run_c", todoId: todo!.id, ok: false, failedAt: 1, reason: "expected the screen .Edit", params: { title: "Gift ideas", body: "scarf" } });
    await recordSkillUse(t.db, { workspaceId: ws, skillId: s.id, idempotencyKey: "run_d:1:skill-use", runId: "run_d", todoId: todo!.id, ok: true });
    const uses = await t.db.event.findMany({ where: { subjectId: s.id, operator: "skill.recordUse" }, orderBy: { id: "asc" } });
    expect(uses.map((e) => (e.payload as { params?: unknown }).params ?? null)).toEqual([{ title: "Weekend plans", body: "hike, laundry, call mom" }, { title: "Gift ideas", body: "scarf" }, null]);
    expect(uses[1]!.payload).toMatchObject({ ok: false, runId: "run_c", failedAt: 1, params: { title: "Gift ideas" } });
    // A value past the cap is refused naming the field, and nothing is counted.
    const refused = await err(recordSkillUse(t.db, { workspaceId: ws, skillId: s.id, idempotencyKey: "run_e:1:skill-use", runId: "run_e", todoId: todo!.id, ok: true, params: { title: "x".repeat(2001) } }));
    expect(refused).toMatchObject({ code: "INVALID_INPUT" });
    expect(refused?.message).toMatch(/params/);
    expect((await listSkills(t.db, { workspaceId: ws })).items[0]).toMatchObject({ successes: 2, failures: 1 });
  });
});

describe("skill steps and versions", () => {
  const screen = (activity: string, ...ids: string[]) => ({ app: "com.loop", activity, required: ids.map((id) => ({ resourceId: `com.loop:id/${id}`, at: { x: 500, y: 100 } })) });
  const body = (steps: { action: Record<string, unknown>; target?: string; before: ReturnType<typeof screen>; shot?: string }[]) => ({
    format: 1,
    app: "com.loop",
    pre: steps[0]!.before,
    steps: steps.map((s) => ({ action: s.action, ...(s.target ? { target: { resourceId: `com.loop:id/${s.target}`, at: { x: 500, y: 100 } } } : {}), before: s.before, ...(s.shot ? { shot: s.shot } : {}) })),
    post: screen(".Results", "result_list"),
  });
  it("a skill's steps come in words with the screen each expects; each repair is a version with its step-level diff", async () => {
    const { workspace } = await seedWorkspace(t.db, "Skill versions");
    const ws = workspace.id;
    const v1 = body([
      { action: { type: "click" }, target: "search_box", before: screen(".Feed", "search_box") },
      { action: { type: "input_text", text: "{query}" }, before: screen(".Search", "search_input") },
      { action: { type: "keyboard_enter" }, before: screen(".Search", "search_input") },
    ]);
    const s1 = await saveSkill(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "search", goal: "Search Loop for a phrase", body: v1, runId: "run_v1" });
    expect(s1.steps).toEqual({
      description: null,
      parameters: ["query"],
      example: {},
      steps: [
        { number: 1, does: "tap #search_box", target: "#search_box", expects: { app: "com.loop", activity: ".Feed", required: ["#search_box"] }, shot: null },
        { number: 2, does: 'type "{query}"', target: null, expects: { app: "com.loop", activity: ".Search", required: ["#search_input"] }, shot: null },
        { number: 3, does: "press Enter", target: null, expects: { app: "com.loop", activity: ".Search", required: ["#search_input"] }, shot: null },
      ],
      endsOn: { app: "com.loop", activity: ".Results", required: ["#result_list"] },
    });
    // The app moved its search box: the repair taps the new one and waits on a dialog first.
    const v2 = body([
      { action: { type: "click" }, target: "search_icon", before: screen(".Feed", "search_icon") },
      { action: { type: "input_text", text: "{query}" }, before: screen(".Search", "search_input") },
      { action: { type: "keyboard_enter" }, before: screen(".Search", "search_input") },
      { action: { type: "click" }, target: "first_result", before: screen(".Results", "result_list") },
    ]);
    await saveSkill(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "search", goal: "Search Loop for a phrase", body: v2, runId: "run_v2" });
    const versions = await listSkillVersions(t.db, { workspaceId: ws, skillId: s1.id });
    expect(versions.map((v) => [v.version, v.runId])).toEqual([[2, "run_v2"], [1, "run_v1"]]);
    expect(versions[1]!.changes).toBeNull();
    expect(versions[0]!.changes!.map((c) => [c.kind, c.number])).toEqual([["changed", 1], ["same", 2], ["same", 3], ["added", 4]]);
    expect(versions[0]!.changes![0]).toMatchObject({ before: { does: "tap #search_box" }, after: { does: "tap #search_icon" } });
    // A distilled body's description, parameters with the run's values, and each step's screenshot come with its steps;
    // a screenshot that is no sha256 or an example value that is no text is left out, the steps still shown.
    const shot = "ab".repeat(32);
    const described = {
      ...body([
        { action: { type: "click" }, target: "search_box", before: screen(".Feed", "search_box"), shot },
        { action: { type: "input_text", text: "{query}" }, before: screen(".Search", "search_input"), shot: "../../etc/passwd" },
      ]),
      description: "search Loop for {query}",
      params: ["query", "page"],
      example: { query: "red shoes", page: 2, unlisted: "x" },
    };
    const s3 = await saveSkill(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "described", goal: "Search Loop", body: described, runId: "run_d" });
    expect(s3.steps).toMatchObject({ description: "search Loop for {query}", parameters: ["query", "page"], example: { query: "red shoes" } });
    expect(s3.steps!.steps.map((st) => [st.number, st.shot])).toEqual([[1, shot], [2, null]]);
    expect((await listSkills(t.db, { workspaceId: ws })).items.find((s) => s.id === s3.id)?.steps).toEqual(s3.steps);
    // A body the page cannot read is said to be so, not decoded by the reader.
    expect((await saveSkill(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "odd", goal: "g", body: { steps: [1] }, runId: "run_x" })).steps).toBeNull();
    const other = await seedWorkspace(t.db, "Other versions");
    expect((await err(listSkillVersions(t.db, { workspaceId: other.workspace.id, skillId: s1.id })))?.code).toBe("NOT_FOUND");
  });
});

describe("shortcuts", () => {
  it("discovered once per app version; a validation validates, one failure retires for good", async () => {
    const { workspace } = await seedWorkspace(t.db, "Shortcuts");
    const ws = workspace.id;
    const found = await saveShortcuts(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", shortcuts: [{ uri: "loop://home", activity: "com.loop/.Feed" }, { uri: "loop://search", activity: "com.loop/.Results" }] });
    expect(found.map((s) => [s.uri, s.status])).toEqual([["loop://home", "discovered"], ["loop://search", "discovered"]]);
    const home = found[0]!;
    await recordShortcutValidation(t.db, { workspaceId: ws, shortcutId: home.id, ok: true });
    const again = await saveShortcuts(t.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", shortcuts: [{ uri: "loop://home", activity: "com.loop/.Feed" }] });
    expect(again.find((s) => s.uri === "loop://home")?.status).toBe("validated");
    const retired = await recordShortcutValidation(t.db, { workspaceId: ws, shortcutId: home.id, ok: false, reason: "the feed did not appear" });
    expect(retired).toMatchObject({ status: "retired", reason: "the feed did not appear" });
    expect((await recordShortcutValidation(t.db, { workspaceId: ws, shortcutId: home.id, ok: true })).status).toBe("retired");
    expect((await listShortcuts(t.db, { workspaceId: ws, status: "validated" })).items).toEqual([]);
    expect((await listShortcuts(t.db, { workspaceId: ws, app: "com.loop", appVersion: "2.0" })).items).toEqual([]);
    expect((await err(saveShortcuts(t.db, { workspaceId: ws, app: "a", appVersion: "1", shortcuts: [{ uri: "no scheme", activity: "x" }] })))?.code).toBe("INVALID_INPUT");
  });
});

describe("lessons", () => {
  it("at most three per run, the same text per app is one lesson, edit and delete", async () => {
    const { workspace } = await seedWorkspace(t.db, "Lessons");
    const ws = workspace.id;
    const a = await addLessons(t.db, { workspaceId: ws, app: "com.loop", goal: "Search Loop", runId: "run_1", lessons: [{ kind: "failed", text: "The update dialog  hides the search field." }, { kind: "worked", text: "Search from the results page." }] });
    expect(a).toHaveLength(2);
    const b = await addLessons(t.db, { workspaceId: ws, app: "com.loop", goal: "Search Loop again", runId: "run_2", lessons: [{ kind: "failed", text: "the update dialog hides the search field." }] });
    expect(b[0]).toMatchObject({ id: a[0]!.id, runId: "run_2" });
    await addLessons(t.db, { workspaceId: ws, app: "com.shop", goal: "Buy", runId: "run_3", lessons: [{ kind: "worked", text: "Search from the results page." }] });
    expect((await listLessons(t.db, { workspaceId: ws, app: "com.loop" })).items.map((l) => l.text).sort()).toEqual(["Search from the results page.", "The update dialog hides the search field."]);
    expect((await err(addLessons(t.db, { workspaceId: ws, app: "x", goal: "g", runId: "r", lessons: [1, 2, 3, 4].map((n) => ({ kind: "worked" as const, text: `lesson ${n}` })) })))?.code).toBe("INVALID_INPUT");
    expect((await err(updateLesson(t.db, { workspaceId: ws, lessonId: a[1]!.id, text: "THE UPDATE DIALOG HIDES THE SEARCH FIELD." })))?.code).toBe("CONFLICT");
    expect((await updateLesson(t.db, { workspaceId: ws, lessonId: a[1]!.id, text: "Open search from the feed's search bar." })).text).toBe("Open search from the feed's search bar.");
    await deleteLesson(t.db, { workspaceId: ws, lessonId: a[0]!.id });
    expect((await listLessons(t.db, { workspaceId: ws, app: "com.loop" })).items).toHaveLength(1);
  });

  it("the background merge folds paraphrases per app into one naming every run, and the later evidence resolves a contradiction", async () => {
    const { workspace } = await seedWorkspace(t.db, "Merged lessons");
    const ws = workspace.id;
    const add = (app: string, runId: string, lessons: { kind: "failed" | "worked"; text: string }[]) => addLessons(t.db, { workspaceId: ws, app, goal: "Search Loop", runId, lessons });
    const [dialog] = await add("com.loop", "run_1", [{ kind: "failed", text: "The update dialog hides the search field." }, { kind: "worked", text: "Tapping Search opens the results page." }]);
    await add("com.loop", "run_2", [{ kind: "failed", text: "the search field is hidden by the Update dialog" }, { kind: "failed", text: "更新对话框挡住了搜索框。" }]);
    await add("com.loop", "run_3", [{ kind: "failed", text: "搜索框被更新对话框挡住了" }, { kind: "worked", text: "Tapping Search does not open the results page." }]);
    // Another app's same lesson is its own.
    await add("com.shop", "run_4", [{ kind: "failed", text: "The update dialog hides the search field." }]);
    expect((await listLessons(t.db, { workspaceId: ws, app: "com.loop" })).items).toHaveLength(6);

    const pass = await mergeLessons(t.db, {}, { actor: "lesson-merge" });
    expect(pass).toMatchObject({ folded: 2, contradicted: 1 });
    const after = (await listLessons(t.db, { workspaceId: ws, app: "com.loop" })).items;
    expect(after.map((l) => [l.text, l.runIds]).sort()).toEqual([
      ["Tapping Search does not open the results page.", ["run_3"]],
      ["The update dialog hides the search field.", ["run_1", "run_2"]],
      ["更新对话框挡住了搜索框。", ["run_2", "run_3"]],
    ]);
    expect(after.find((l) => l.id === dialog!.id)).toMatchObject({ runId: "run_2" });
    expect((await listLessons(t.db, { workspaceId: ws, app: "com.shop" })).items.map((l) => l.runIds)).toEqual([["run_4"]]);
    const [ev] = await t.db.event.findMany({ where: { workspaceId: ws, operator: "lesson.merge" } });
    expect(ev).toMatchObject({ actor: "lesson-merge", payload: { app: "com.loop", folded: [expect.objectContaining({ into: dialog!.id }), expect.anything()], contradicted: [expect.anything()] } });

    // Nothing new: the next pass has no app to merge. A run stating a lesson again joins its runs and is merged again.
    expect(await mergeLessons(t.db)).toEqual({ apps: 0, folded: 0, contradicted: 0 });
    await add("com.loop", "run_5", [{ kind: "failed", text: "THE UPDATE DIALOG HIDES THE SEARCH FIELD." }]);
    expect(await mergeLessons(t.db)).toEqual({ apps: 1, folded: 0, contradicted: 0 });
    expect((await listLessons(t.db, { workspaceId: ws, app: "com.loop" })).items.find((l) => l.id === dialog!.id)?.runIds).toEqual(["run_1", "run_2", "run_5"]);
  });
});
