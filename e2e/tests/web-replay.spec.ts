// A run's replay as people meet it: a real run (the headless agent logging in on the virtual phone, a person
// approving the credential gate) replayed step by step with the keyboard; shared after the secret scan, opened in a
// fresh browser without an account (every step with its screenshot, the password masked), graded by a reviewer,
// exported to a file and opened from it, and revoked — then the link answers 404.
import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { agentTokenHeaders } from "../../apps/api/src/auth/testing.ts";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";
import { LOGIN, recordRun } from "./web-replay-recording.ts";

let stack: WebStack;
let runId: string;
let stepCount: number;

// A loaded machine (a shared CI box) serves the app slowly: each test gets four minutes.
test.describe.configure({ mode: "serial", timeout: 240_000 });

test.beforeAll(async () => {
  test.setTimeout(900_000);
  stack = await startWebStack("web_replay");
  const { token } = await agentTokenHeaders(stack.db, { workspaceId: stack.workspaceId, issuedBy: stack.admin.userId, name: "Pixel worker" });
  const outcome = await recordRun({ apiUrl: stack.api.url, agentToken: token, db: stack.db, approverUserId: stack.admin.userId, script: { kind: "login" } });
  expect(outcome.status).toBe("completed");
  runId = outcome.runId;
  stepCount = await stack.db.step.count({ where: { runId } });
  expect(stepCount).toBeGreaterThanOrEqual(4);
});

test.afterAll(async () => {
  await stack?.close();
});

const position = (page: Page) => page.getByTestId("replay-position");

/** A key pressed on the page itself (nothing focused), as a person does after clicking into the replay. */
async function key(page: Page, name: string): Promise<void> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press(name);
}

/** The step on screen shows its screenshot, loaded from the given kind of URL. */
async function expectScreenshotShown(page: Page, share: string | null): Promise<string> {
  const img = page.getByTestId("replay-screenshot").locator("img");
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
  const src = (await img.getAttribute("src"))!;
  expect(src).toMatch(/\/blobs\/[0-9a-f]{64}/);
  if (share) expect(src).toContain(`share=${encodeURIComponent(share)}`);
  return src;
}

let shareLink: string;

test("the run's replay: timeline, screenshot with the action, the model's words, keyboard steps and play", async ({ browser }, testInfo) => {
  const context = await browser.newContext();
  await stack.signIn(context, "operator", "Otto Operator");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/runs`);
  await expect(page.getByTestId("run-list")).toContainText("Log in to Loop");
  await expectAccessible(page, testInfo, "runs");
  await attachScreenshot(page, testInfo, "runs");

  await page.getByRole("link", { name: /Log in to Loop/ }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
  await expect(position(page)).toHaveText(`Step 1 of ${stepCount}`);
  await expectScreenshotShown(page, null);
  // The timeline lists every step; the detail shows the model's words labelled as such, and timings.
  await expect(page.getByRole("navigation", { name: "Timeline" }).getByRole("button")).toHaveCount(stepCount);
  await expect(page.getByTestId("step-detail")).toContainText("The model’s words");
  await expect(page.getByTestId("step-timings")).toContainText("model");
  await expect(page.getByTestId("replay-charts")).toBeVisible();
  await expect(page.getByTestId("replay-report")).toContainText("The run did what the goal asked.");

  // ←/→ step; the step that typed the password shows the typed text on its screenshot (a member sees it).
  await key(page, "ArrowRight");
  await expect(position(page)).toHaveText(`Step 2 of ${stepCount}`);
  await key(page, "ArrowLeft");
  await expect(position(page)).toHaveText(`Step 1 of ${stepCount}`);
  const typed = page.getByRole("navigation", { name: "Timeline" }).getByRole("button", { name: new RegExp(`type "${LOGIN.password}"`) });
  await typed.click();
  await expect(page.getByTestId("replay-screenshot")).toContainText(`Types: ${LOGIN.password}`);
  await expect(page.getByTestId("step-detail")).toContainText("Gate decisions");

  // Space plays (4×) to the end and stops there.
  await page.getByRole("button", { name: "4×" }).click();
  await page.getByRole("navigation", { name: "Timeline" }).getByRole("button").first().click();
  await key(page, "Space");
  await expect(page.getByRole("button", { name: "Pause (space)" })).toBeVisible();
  await expect(position(page)).toHaveText(`Step ${stepCount} of ${stepCount}`, { timeout: 30_000 });
  await expect(page.getByRole("button", { name: "Play (space)" })).toBeVisible();
  await expectAccessible(page, testInfo, "run-replay");
  await attachScreenshot(page, testInfo, "run-replay");

  // Sharing: the scan is shown before the link is made; the password is reported as masked.
  await page.getByRole("button", { name: "Share" }).click();
  const dialog = page.getByTestId("share-dialog");
  await expect(dialog.getByTestId("scan-findings").locator('[data-kind="password"]')).toContainText("masked");
  await expect(dialog.getByTestId("scan-masked")).toContainText("password fields");
  await expect(dialog).not.toContainText(LOGIN.password);
  await expectAccessible(page, testInfo, "share-dialog");
  await attachScreenshot(page, testInfo, "share-dialog");
  await dialog.getByRole("button", { name: /Create the link/ }).click();
  shareLink = await dialog.getByLabel("Share link").inputValue();
  expect(shareLink).toMatch(/\/share\/pls_/);
  await context.close();
});

test("a share link opens in a fresh browser: every step with its screenshot, the password masked", async ({ browser }, testInfo) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const response = await page.goto(shareLink);
  expect(response?.status()).toBe(200);
  const token = decodeURIComponent(shareLink.split("/share/")[1]!);
  await expect(position(page)).toHaveText(`Step 1 of ${stepCount}`);
  const seen = new Set<string>();
  for (let i = 1; i <= stepCount; i++) {
    await expect(position(page)).toHaveText(`Step ${i} of ${stepCount}`);
    seen.add(await expectScreenshotShown(page, token));
    if (i < stepCount) await key(page, "ArrowRight");
  }
  expect(seen.size).toBeGreaterThan(1);
  // What was typed into the password field is nowhere on the page: not the goal, the action, the model's words.
  await expect(page.locator("body")).not.toContainText(LOGIN.password);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("••••••");
  await expectAccessible(page, testInfo, "shared-replay");
  await attachScreenshot(page, testInfo, "shared-replay");
  await context.close();
});

test("after revoking, the share link answers 404", async ({ browser }, testInfo) => {
  const context = await browser.newContext();
  await stack.signIn(context, "operator", "Otto Operator");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/runs/${runId}`);
  await page.getByRole("button", { name: "Share" }).click();
  const list = page.getByTestId("share-list");
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await list.getByRole("button", { name: "Revoke" }).click();
  await expect(list).toHaveCount(0);
  await context.close();

  const fresh = await browser.newContext();
  const visitor = await fresh.newPage();
  const response = await visitor.goto(shareLink);
  expect(response?.status()).toBe(404);
  await expect(visitor.getByTestId("share-gone")).toContainText("does not open a replay");
  await expectAccessible(visitor, testInfo, "share-revoked");
  await attachScreenshot(visitor, testInfo, "share-revoked");
  await fresh.close();
});

test("a reviewer grades the run; the run exports to a file that opens read-only elsewhere", async ({ browser }, testInfo) => {
  const reviewerContext = await browser.newContext();
  await stack.signIn(reviewerContext, "approver", "Rita Reviewer");
  const page = await reviewerContext.newPage();
  await page.goto(`${stack.webUrl}/runs/${runId}`);
  await expect(position(page)).toBeVisible();
  await page.getByRole("radio", { name: /^B/ }).check();
  await page.getByLabel("Note (what the reviewer saw)").fill("Logged in; asked once for the password.");
  await page.getByRole("button", { name: "Save the grade" }).click();
  await expect(page.getByTestId("grade-shown")).toContainText("graded by Rita Reviewer");
  await expect(page.getByTestId("run-grade")).toHaveText("Grade B");

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export" }).click();
  const file = testInfo.outputPath(`run-${runId}.zip`);
  await (await download).saveAs(file);
  expect(readFileSync(file).subarray(0, 2).toString()).toBe("PK");

  // Another browser (no account needed): the file opens as a read-only replay.
  const elsewhere = await browser.newContext();
  const other = await elsewhere.newPage();
  await other.goto(`${stack.webUrl}/runs/import`);
  await expect(other.getByTestId("import-file")).toBeEnabled();
  await other.getByTestId("import-file").setInputFiles(file);
  await expect(other.getByText(/Imported from run-/)).toBeVisible();
  await expect(position(other)).toHaveText(`Step 1 of ${stepCount}`);
  const img = other.getByTestId("replay-screenshot").locator("img");
  await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBeGreaterThan(0);
  await expect(img).toHaveAttribute("src", /^blob:/);
  await expect(other.getByTestId("grade-shown")).toContainText("Rita Reviewer");
  await expectAccessible(other, testInfo, "imported-replay");
  await attachScreenshot(other, testInfo, "imported-replay");
  await elsewhere.close();
  await reviewerContext.close();
});
