// The demo path as a newcomer meets it: a fresh database, no model endpoint, a demo phone (the virtual phone over
// WebSocket, as `npm start` runs it). From the home page, "Try the demo" creates a goal from the built-in task with
// a payment step, connects the demo phone and runs it in the tab with the demo model (the reference policy, not AI);
// the person approves its gates; the run finishes, the task's evaluator scores 1, and the run and its replay are
// reachable from the home page. The models page says which model runs use, and "Test connection" answers.
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { attachScreenshot, expectAccessible, freePort, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;
let phone: VirtualPhone;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  // As `npm start` runs it: the web app gets DEMO_PHONE_URL, the API holds the phone's control API and token. The
  // phone trusts no browser key: the page's new key waits for "Allow USB debugging?", which the API answers when
  // the person clicks "Try the demo".
  const [webPort, controlPort] = [await freePort(), await freePort()];
  const controlToken = randomBytes(32).toString("base64url");
  phone = await startVirtualPhone({ controlPort, controlToken, allowOrigins: [`http://127.0.0.1:${webPort}`] });
  stack = await startWebStack("web_demo", { webPort, webEnv: { DEMO_PHONE_URL: phone.wsUrl }, demoPhone: { url: phone.controlUrl, token: controlToken } });
});

test.afterAll(async () => {
  await phone?.stop();
  await stack?.close();
});

test("from a fresh database, one click on the home page runs the demo: its gates, the finished run and its replay", async ({ browser }, testInfo) => {
  test.setTimeout(900_000);
  phone.engine.startTask("shop_checkout");
  const context = await browser.newContext();
  await stack.signIn(context, "admin", "Nia Newcomer");
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));

  await page.goto(stack.webUrl);
  const demo = page.getByTestId("try-demo");
  await expect(demo.getByRole("heading", { name: "New here? Try the demo" })).toBeVisible();
  await expect(demo).toContainText("Demo model — reference policy, not AI");
  await expect(demo).toContainText("Buy one 'Coffee beans 1kg'");
  await expectAccessible(page, testInfo, "home-try-demo");
  await attachScreenshot(page, testInfo, "home-try-demo");

  await demo.getByRole("button", { name: "Try the demo" }).click();
  // Each gate the run opens (buying, the address, paying) is reviewed and approved by the person, in the same tab:
  // client-side links keep the tab's run going.
  const approved: string[] = [];
  const seen = new Set<string>();
  const review = demo.getByRole("link", { name: "Review the gate" });
  const replay = demo.getByRole("link", { name: "Open the replay" });
  // What the home page offers next, read without waiting on any one link (a gate just approved shows until the run
  // reports the decision, then its link goes): the replay once the run ended, else a gate not yet approved.
  const next = async (): Promise<string | null> => {
    if (await replay.isVisible()) return "replay";
    const hrefs = await review.evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
    return hrefs.find((h) => h && !seen.has(h)) ?? null;
  };
  for (;;) {
    let href: string | null = null;
    await expect.poll(async () => (href = await next()), { timeout: 180_000, intervals: [300] }).not.toBeNull();
    if (href === "replay") break;
    seen.add(href!);
    expect(seen.size, "the demo task has three gates; a run that keeps opening new ones is stuck").toBeLessThan(8);
    await demo.locator(`a[href="${href}"]`).click();
    // The home page lists open gates with Approve… buttons of their own: use the gate page's, once it has opened.
    const approve = page.getByTestId("gate-review").getByRole("button", { name: "Approve…" });
    await expect(approve).toBeVisible({ timeout: 60_000 });
    approved.push((await page.locator("main").innerText()).replace(/\s+/g, " "));
    if (approved.length === 1) {
      await expectAccessible(page, testInfo, "demo-gate");
      await attachScreenshot(page, testInfo, "demo-gate");
    }
    await approve.click();
    await page.getByLabel("Your rationale (recorded with your decision)").fill("The demo task asks for it");
    await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await page.getByRole("navigation").getByRole("link", { name: "Attention" }).click();
  }
  expect(approved.some((q) => /pay/i.test(q)), `gates seen:\n${approved.map((q) => q.slice(0, 400)).join("\n")}`).toBe(true);
  await expect(demo).toContainText(/The demo run ended: completed/);

  // The phone did what the task asks, as its own evaluator judges.
  const evaluation = phone.engine.evaluate("shop_checkout");
  expect(evaluation.reason).toBe(`all ${evaluation.checks.length} checks passed`);
  expect(evaluation.score).toBe(1);
  await attachScreenshot(page, testInfo, "home-demo-done");

  // The replay, from the home page.
  await demo.getByRole("link", { name: "Open the replay" }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  await expect(page.getByText(/Demo model — reference policy, not AI/).first()).toBeVisible({ timeout: 30_000 });
  await expectAccessible(page, testInfo, "demo-replay");
  await attachScreenshot(page, testInfo, "demo-replay");

  // A fresh page load: the home page no longer offers the demo (the workspace has a run), the run list has it.
  await page.goto(stack.webUrl);
  await expect(page.getByRole("heading", { name: "Who acts next" })).toBeVisible();
  await expect(page.getByTestId("try-demo")).toHaveCount(0);
  await page.getByRole("navigation").getByRole("link", { name: "Runs" }).click();
  await expect(page.getByTestId("run-list")).toContainText("Coffee beans");
  expect(errors).toEqual([]);
  await context.close();
});

test("the models page names the demo model while no endpoint is set, and Test connection answers for each role", async ({ browser }, testInfo) => {
  const context = await browser.newContext();
  await stack.signIn(context, "admin", "Ada Admin");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/settings/models`);
  await expect(page.getByRole("heading", { name: "Models", level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: /Runs use the Demo model — reference policy, not AI/ })).toBeVisible();
  await page.getByRole("button", { name: "Test connection" }).click();
  const results = page.getByRole("table", { name: "Connection test" });
  for (const role of ["planner", "executor", "summarizer"]) await expect(results.getByRole("row", { name: new RegExp(`^${role} Connected`) })).toBeVisible();
  await expectAccessible(page, testInfo, "models-admin");
  await attachScreenshot(page, testInfo, "models-admin");

  // A bad endpoint is saved and its test says what to check; the key never appears on the page.
  await page.getByLabel("Base URL").fill("http://127.0.0.1:9/v1");
  await page.getByLabel(/API key/).fill("sk-demo-never-shown-9f3a");
  await page.getByLabel("Executor model").fill("vision-model");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("heading", { name: /Runs use the Demo model/ })).toHaveCount(0);
  await page.getByRole("button", { name: "Test connection" }).click();
  await expect(results.getByRole("row", { name: /^executor Failed/ })).toContainText(/could not be reached|No answer/);
  await expect(results.getByRole("row", { name: /^planner Failed/ })).toContainText("No model is set for the planner role");
  expect(await page.content()).not.toContain("sk-demo-never-shown-9f3a");

  // The planner gets an endpoint, key and prices of its own; the table names them, the key only as set.
  await page.getByLabel("The planner calls an endpoint of its own").check();
  await page.getByLabel("Planner endpoint URL").fill("http://127.0.0.1:7/v1");
  await page.getByLabel(/^Planner key/).fill("sk-planner-never-shown-51c8");
  await page.getByLabel("Planner input price (USD per million tokens)").fill("0.4");
  await page.getByLabel("Planner model").fill("text-model");
  await page.getByRole("button", { name: "Save" }).click();
  const roleTable = page.getByRole("table").first();
  await expect(roleTable.getByRole("row", { name: /^planner text-model/ })).toContainText("http://127.0.0.1:7/v1");
  await expect(roleTable.getByRole("row", { name: /^planner/ })).toContainText("its own, set");
  await expect(roleTable.getByRole("row", { name: /^executor/ })).toContainText("the shared endpoint");
  await page.getByRole("button", { name: "Test connection" }).click();
  await expect(results.getByRole("row", { name: /^planner Failed/ })).toContainText("its own");
  expect(await page.content()).not.toContain("sk-planner-never-shown-51c8");

  // The planner's key alone is removed; the shared key stays.
  await expect(page.getByLabel(/^Planner key/)).toHaveValue("");
  await page.getByLabel("Remove the planner's stored key").check();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(roleTable.getByRole("row", { name: /^planner/ })).not.toContainText("its own, set");
  await expect(roleTable.getByRole("row", { name: /^planner/ })).toContainText("http://127.0.0.1:7/v1");
  await expect(roleTable.getByRole("row", { name: /^executor/ })).toContainText("the shared key");
  await context.close();

  // A viewer reads the settings, without the form.
  const viewerContext = await browser.newContext();
  await stack.signIn(viewerContext, "viewer", "Vic Viewer");
  const viewer = await viewerContext.newPage();
  await viewer.goto(`${stack.webUrl}/settings/models`);
  await expect(viewer.getByRole("table").first()).toContainText("vision-model");
  await expect(viewer.getByText("Only an admin changes the model settings.")).toBeVisible();
  await expect(viewer.getByRole("button", { name: "Save" })).toHaveCount(0);
  await expectAccessible(viewer, testInfo, "models-viewer");
  await attachScreenshot(viewer, testInfo, "models-viewer");
  await viewerContext.close();
});
