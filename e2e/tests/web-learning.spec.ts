// The Learning page with more than one page of lessons: a viewer sees the newest 100, and "Show more lessons" reads
// the rest through the list's cursor — each lesson once, none lost; skills and shortcuts of one page show no button.
import { expect, test } from "@playwright/test";
import { addLessons, saveShortcuts, saveSkill } from "@phoneloop/state";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;
const LESSONS = 103;

test.beforeAll(async () => {
  test.setTimeout(600_000);
  stack = await startWebStack("web_learning");
  const ws = stack.workspaceId;
  // At most three lessons per run: 35 runs' worth.
  for (let run = 0; run * 3 < LESSONS; run++) {
    const texts = [0, 1, 2].map((k) => run * 3 + k).filter((n) => n < LESSONS);
    await addLessons(stack.db, { workspaceId: ws, app: "com.loop", goal: "Search Loop", runId: `run_learn_${run}`, lessons: texts.map((n) => ({ kind: "worked" as const, text: `Lesson number ${n}` })) });
  }
  await saveSkill(stack.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", name: "search", goal: "Search Loop", body: { steps: [] }, runId: "run_learn_0" });
  await saveShortcuts(stack.db, { workspaceId: ws, app: "com.loop", appVersion: "1.0", shortcuts: [{ uri: "loop://search", activity: "com.loop/.Search" }] });
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
  await expect(page.getByRole("table", { name: "Skills" }).locator("tbody tr")).toHaveCount(1);
  await expect(page.getByRole("table", { name: "Shortcuts" }).locator("tbody tr")).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Show more skills" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Show more shortcuts" })).toHaveCount(0);
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
