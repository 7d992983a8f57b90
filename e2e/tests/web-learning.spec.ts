// The Learning page with more than one page of lessons: a viewer sees the newest 100, and "Show more lessons" reads
// the rest through the list's cursor — each lesson once, none lost; skills and shortcuts of one page show no button.
// A skill shows its description, its parameters with the values of its run, its steps with the screen each expects
// and its versions with what changed; a skill distilled from a real run (the headless agent logging in on the
// virtual phone) shows each step's screenshot from that run, loaded. A shortcut's failed try reads in words with
// what to do, never the phone's raw `am start` text.
import { expect, test } from "@playwright/test";
import { addLessons, recordShortcutValidation, saveShortcuts, saveSkill } from "@phoneloop/state";
import { agentTokenHeaders } from "../../apps/api/src/auth/testing.ts";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";
import { recordRun } from "./web-replay-recording.ts";

let stack: WebStack;
const LESSONS = 103;
/** The skills the login run left (id and name), with how many of their steps kept a screenshot. */
let distilled: { id: string; name: string; shots: number }[] = [];

test.beforeAll(async () => {
  test.setTimeout(600_000);
  stack = await startWebStack("web_learning");
  const ws = stack.workspaceId;
  // At most three lessons per run: 35 runs' worth.
  for (let run = 0; run * 3 < LESSONS; run++) {
    const texts = [0, 1, 2].map((k) => run * 3 + k).filter((n) => n < LESSONS);
    await addLessons(stack.db, { workspaceId: ws, app: "com.loop", goal: "Search Loop", runId: `run_learn_${run}`, lessons: texts.map((n) => ({ kind: "worked" as const, text: `Lesson number ${n}` })) });
  }
  const screen = (activity: string, id: string) => ({ app: "com.loop", activity, required: [{ resourceId: `com.loop:id/${id}`, at: { x: 500, y: 100 } }] });
  const body = (tapped: string) => ({
    format: 1,
    app: "com.loop",
    description: "search Loop for {query}",
    params: ["query"],
    example: { query: "red shoes" },
    pre: screen(".Feed", tapped),
    steps: [
      { action: { type: "click" }, target: { resourceId: `com.loop:id/${tapped}`, at: { x: 500, y: 100 } }, before: screen(".Feed", tapped) },
      { action: { type: "input_text", text: "{query}" }, before: screen(".Search", "search_input") },
    ],
    post: screen(".Results", "result_list"),
  });
  await saveSkill(stack.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "search", goal: "Search Loop for a phrase", body: body("search_box"), runId: "run_learn_0" });
  await saveSkill(stack.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "search", goal: "Search Loop for a phrase", body: body("search_icon"), runId: "run_learn_1" });
  const [broken] = await saveShortcuts(stack.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", shortcuts: [{ uri: "loop://inbox", activity: "com.loop/.Inbox" }, { uri: "loop://search", activity: "com.loop/.Search" }] });
  await recordShortcutValidation(stack.db, { workspaceId: ws, shortcutId: broken!.id, ok: false, reason: "the phone could not open loop://inbox: Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW dat=loop://inbox flg=0x10000000 }" });
  // A real run: its finished todo is distilled into a skill whose steps name the screenshots the run uploaded.
  const { token } = await agentTokenHeaders(stack.db, { workspaceId: ws, issuedBy: stack.admin.userId, name: "Pixel worker" });
  const outcome = await recordRun({ apiUrl: stack.api.url, agentToken: token, db: stack.db, approverUserId: stack.admin.userId, script: { kind: "login" } });
  expect(outcome.status).toBe("completed");
  const skills = await stack.db.skill.findMany({ where: { workspaceId: ws, runId: outcome.runId }, select: { id: true, name: true, body: true } });
  distilled = skills.map((s) => ({ id: s.id, name: s.name, shots: ((s.body as { steps?: { shot?: string }[] }).steps ?? []).filter((st) => st.shot).length }));
  expect(distilled.filter((s) => s.shots > 0).length, "the login run left a skill with screenshots").toBeGreaterThan(0);
});

test.afterAll(async () => {
  await stack?.close();
});

test("lessons past the first page come with Show more; every lesson is listed once", async ({ browser }, testInfo) => {
  test.setTimeout(600_000);
  const context = await browser.newContext();
  await stack.signIn(context, "viewer", "Vera Viewer");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/learning`);
  const lessons = page.getByRole("table", { name: "Lessons" }).locator("tbody tr");
  await expect(lessons).toHaveCount(100);
  await expect(page.getByRole("table", { name: "Skills" }).locator("tbody tr")).toHaveCount(1 + distilled.length);
  const shortcuts = page.getByRole("table", { name: "Shortcuts" });
  // The seeded app's two (the login run found the social app's own).
  await expect(shortcuts.locator("tbody tr").filter({ has: page.getByRole("cell", { name: "com.loop 1.0", exact: true }) })).toHaveCount(2);
  await expect(shortcuts).toContainText("No app on the phone opens this link. Runs are no longer offered it.");
  await expect(shortcuts).toContainText("Check that the app version that declares it is installed");
  await expect(shortcuts).not.toContainText("unable to resolve Intent");
  await expect(shortcuts).toContainText("Not tried yet");
  const skills = page.getByRole("table", { name: "Skills" });
  await expect(skills).toContainText("search Loop for {query}");
  await expect(skills).toContainText("Parameters: {query} (in its run: red shoes)");
  await skills.getByText("Steps and versions of search", { exact: true }).click();
  const steps = page.getByRole("list", { name: "Steps of search" }).locator("li");
  await expect(steps).toHaveText([
    "tap #search_icon expects app com.loop, screen .Feed, with #search_icon",
    'type "{query}" expects app com.loop, screen .Search, with #search_input',
    "ends on app com.loop, screen .Results, with #result_list",
  ]);
  // A step without a screenshot shows none (the seeded skill's run kept none).
  await expect(page.getByRole("list", { name: "Steps of search" }).locator("img")).toHaveCount(0);
  const versions = page.getByRole("list", { name: "Versions of search" });
  await expect(versions).toContainText("Version 2 from run run_learn_1");
  await expect(versions).toContainText("step 1 changed: tap #search_box on .Feed with #search_box → tap #search_icon on .Feed with #search_icon");
  await expect(versions).toContainText("Version 1 from run run_learn_0 (first version)");
  await expect(page.getByRole("button", { name: "Show more skills" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Show more shortcuts" })).toHaveCount(0);

  // The distilled skill: each step with a screenshot shows it as a small lazy thumbnail that loads from the blob path.
  const withShots = distilled.find((d) => d.shots > 0)!;
  const row = page.locator(`tr[data-skill-id="${withShots.id}"]`);
  await row.getByText(`Steps and versions of ${withShots.name}`, { exact: true }).click();
  const thumbs = row.getByRole("list", { name: `Steps of ${withShots.name}` }).locator("img");
  await expect(thumbs).toHaveCount(withShots.shots);
  const first = thumbs.first();
  await first.scrollIntoViewIfNeeded();
  await expect(first).toHaveAttribute("loading", "lazy");
  await expect(first).toHaveAttribute("alt", /^Step 1, .+: the screen it expects, .+/);
  expect(await first.getAttribute("src")).toMatch(/\/blobs\/[0-9a-f]{64}$/);
  await expect.poll(() => first.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
  expect(await first.evaluate((i: HTMLImageElement) => [i.getBoundingClientRect().width, i.getBoundingClientRect().height])).toEqual([54, 96]);
  await attachScreenshot(page, testInfo, "learning-skill-steps");
  await expectAccessible(page, testInfo, "learning");

  await page.getByRole("button", { name: "Show more lessons" }).click();
  await expect(lessons).toHaveCount(LESSONS);
  await expect(page.getByRole("button", { name: "Show more lessons" })).toHaveCount(0);
  const texts = await lessons.locator("td:first-child").allTextContents();
  const numbers = texts.map((t) => Number(/Lesson number (\d+)/.exec(t)?.[1]));
  expect(new Set(numbers).size).toBe(LESSONS);
  expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: LESSONS }, (_, n) => n));
  await attachScreenshot(page, testInfo, "learning-all-lessons");
});
