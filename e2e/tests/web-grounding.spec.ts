// The Models page's grounding check as an admin meets it: with a (scripted) vision model saved as the executor, "Check
// grounding" shows the model the demo phone's Settings screenshot, and the model's tap is drawn on it with the row it
// was asked to tap outlined and the distance between them — inside the row for a model that points right, outside
// for one whose frame is wrong.
import { expect, test } from "@playwright/test";
import { startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { knownTarget } from "@phoneloop/virtual-phone";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;
let models: ScriptedModelServer;
/** The point the scripted model names next, in the product's 0–1000 frame. */
let point = { x: 500, y: 500 };

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  stack = await startWebStack("web_grounding");
  models = await startScriptedModelServer({ rules: [{ match: (r) => r.model === "vision", replies: [() => ({ text: JSON.stringify({ type: "click", ...point }) })], repeatLast: true }] });
});

test.afterAll(async () => {
  await models?.stop();
  await stack?.close();
});

test("Check grounding draws the model's tap on the demo phone's screenshot, with its distance from the target", async ({ browser }, testInfo) => {
  const target = await knownTarget("settings", "Display");
  const cx = (target.box.left + target.box.right) / 2;
  const cy = (target.box.top + target.box.bottom) / 2;
  const context = await browser.newContext();
  await stack.signIn(context, "admin", "Ada Admin");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/settings/models`);
  await page.getByLabel("Base URL").fill(models.baseURL);
  await page.getByLabel("Executor model").fill("vision");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("heading", { name: /Runs use the Demo model/ })).toHaveCount(0);

  // A model that points at the row's centre.
  point = { x: (cx / (target.width - 1)) * 1000, y: (cy / (target.height - 1)) * 1000 };
  await page.getByRole("button", { name: "Check grounding" }).click();
  const result = page.getByTestId("grounding-result");
  await expect(result).toContainText(/vision tapped [01] px from the centre of the "Display" row, inside the target/);
  await expect(result.locator('[data-field="grounding-target"]')).toHaveAttribute("y", String(target.box.top));
  const tap = result.locator('[data-field="grounding-tap"]');
  await expect(tap).toHaveAttribute("data-x", String(Math.round(cx)));
  await expect(result.getByRole("img", { name: /the model's tap at/ })).toBeVisible();
  await expectAccessible(page, testInfo, "models-grounding");
  await attachScreenshot(page, testInfo, "models-grounding");

  // A model whose taps land near the top: outside, with the distance said.
  point = { x: 500, y: 20 };
  await page.getByRole("button", { name: "Check grounding" }).click();
  await expect(result).toContainText(/outside the target/);
  const y = Math.round((20 / 1000) * (target.height - 1));
  await expect(tap).toHaveAttribute("data-y", String(y));
  await expect(result).toContainText(`${Math.round(Math.hypot(Math.round((500 / 1000) * (target.width - 1)) - cx, y - cy))} px from the centre`);
  await context.close();
});
