// The Models page's grounding check as an admin meets it: with a (scripted) vision model saved as the executor, "Check
// grounding" shows the model the demo phone's Settings screenshot, and the model's tap is drawn on it with the row it
// was asked to tap outlined and the distance between them — inside the row for a model that points right, outside
// for one whose frame is wrong. Then a preset: the executor picks UI-TARS-1.5-7B, which fills its model name and
// prices and shows its adapter's image rule and frame; saved and reloaded it is still picked, and the check asks and
// reads in UI-TARS's own format (pixels of the image after its smart resize) and the tap lands on the row.
import { expect, test } from "@playwright/test";
import { startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { knownTarget } from "@phoneloop/virtual-phone";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;
let models: ScriptedModelServer;
/** The point the scripted model names next, in the product's 0–1000 frame. */
let point = { x: 500, y: 500 };
/** The UI-TARS 1.5 model's next point, in pixels of the image after its smart resize. */
let uiTarsPoint = { x: 0, y: 0 };
const UI_TARS = "ByteDance-Seed/UI-TARS-1.5-7B";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  stack = await startWebStack("web_grounding");
  models = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "vision", replies: [() => ({ text: JSON.stringify({ type: "click", ...point }) })], repeatLast: true },
      // Answers only when asked in UI-TARS's format (its system prompt's Thought/Action grammar).
      { match: (r) => r.model === UI_TARS && r.system.includes("Action:"), replies: [() => ({ text: `Thought: 点击 Display。\nAction: click(point='<point>${uiTarsPoint.x} ${uiTarsPoint.y}</point>')` })], repeatLast: true },
    ],
  });
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

test("a preset picked for the executor is saved, shown after a reload, and the grounding check asks and reads in its adapter's format", async ({ browser }, testInfo) => {
  const target = await knownTarget("settings", "Display");
  const cx = (target.box.left + target.box.right) / 2;
  const cy = (target.box.top + target.box.bottom) / 2;
  const context = await browser.newContext();
  await stack.signIn(context, "admin", "Ada Admin");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/settings/models`);
  const preset = page.getByLabel("Executor preset");
  await preset.selectOption({ label: "UI-TARS-1.5-7B" });
  await expect(page.getByLabel("Executor model")).toHaveValue(UI_TARS);
  await expect(page.getByLabel("Executor input price (USD per million tokens)")).toHaveValue("0");
  const about = page.locator("#executor-preset-about");
  await expect(about).toContainText("Adapter ui-tars 1.5");
  await expect(about).toContainText("Points: absolute pixels of the resized image");
  await expect(about).toContainText("smart resize to multiples of 28 px");
  // The planner speaks the product's language: its presets are only those.
  await expect(page.getByLabel("Planner preset").locator("option")).toHaveText(["PhoneLoop JSON (any OpenAI-compatible vision model)"]);
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("row", { name: /executor/ })).toContainText("ui-tars 1.5");

  await page.reload();
  await expect(page.getByLabel("Executor preset")).toHaveValue("ui-tars-1.5-7b");
  await expect(page.getByLabel("Executor model")).toHaveValue(UI_TARS);
  await expect(page.locator("#executor-preset-about")).toContainText("Adapter ui-tars 1.5");

  // UI-TARS 1.5 sees the 1080 × 2400 screenshot resized to 1092 × 2408 and points in its pixels.
  uiTarsPoint = { x: Math.round((cx * 1091) / (target.width - 1)), y: Math.round((cy * 2407) / (target.height - 1)) };
  await page.getByRole("button", { name: "Check grounding" }).click();
  const result = page.getByTestId("grounding-result");
  await expect(result).toContainText(new RegExp(`${UI_TARS.replace(/[.]/g, "\\.")} tapped [01] px from the centre of the "Display" row, inside the target`));
  await expect(result.locator('[data-field="grounding-adapter"]')).toContainText("ui-tars 1.5");
  const tap = result.locator('[data-field="grounding-tap"]');
  expect(Math.abs(Number(await tap.getAttribute("data-x")) - cx)).toBeLessThanOrEqual(1);
  expect(Math.abs(Number(await tap.getAttribute("data-y")) - cy)).toBeLessThanOrEqual(1);
  await expectAccessible(page, testInfo, "models-preset-grounding");
  await attachScreenshot(page, testInfo, "models-preset-grounding");
  await context.close();
});
