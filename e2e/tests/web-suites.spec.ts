// Suite results as people meet them: two real suite runs (the suite runner with the reference policy, each attempt
// on its own virtual phone process through the runtime and this stack's API), listed on /suites with their success
// rate and its interval, compared side by side per task, and an attempt opened as its replay.
import { expect, test } from "@playwright/test";
import { REFERENCE_POLICY_MODEL, startReferencePolicyServer, type ReferencePolicyServer } from "@phoneloop/reference-policy";
import { runSuite, selectTasks, type SuiteOutcome } from "@phoneloop/suite";
import { agentTokenHeaders } from "../../apps/api/src/auth/testing.ts";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;
let policy: ReferencePolicyServer;
let plain: SuiteOutcome;
let perturbed: SuiteOutcome;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  stack = await startWebStack("web_suites");
  policy = await startReferencePolicyServer();
});

/** Two suite runs through this stack's API: the settings tasks as they are, then with the phone in Chinese and the executor's temperature pinned. */
async function runTwoSuites(): Promise<void> {
  const role = { baseURL: policy.baseURL, model: REFERENCE_POLICY_MODEL };
  const profile = (executor: typeof role & { sampling?: { temperature: number } }) => ({ name: "reference-policy", models: { executor, planner: role, summarizer: role } });
  const { token } = await agentTokenHeaders(stack.db, { workspaceId: stack.workspaceId, issuedBy: stack.admin.userId, name: "suite runner" });
  const run = (perturb: ("popup" | "zh")[], executor: typeof role & { sampling?: { temperature: number } } = role) =>
    runSuite({ apiUrl: stack.api.url, agentToken: token, profile: profile(executor), tasks: selectTasks("settings_wifi_off,settings_bluetooth_on"), tasksGlob: "settings_wifi_off,settings_bluetooth_on", scenarios: "pack", seeds: 1, parallel: 2, perturb });
  plain = await run([]);
  perturbed = await run(["zh"], { ...role, sampling: { temperature: 0.2 } });
  expect(plain.status).toBe("completed");
  expect(perturbed.status).toBe("completed");
}

test.afterAll(async () => {
  await policy?.stop();
  await stack?.close();
});

test("suite runs are listed with their success rate and its interval; two compare side by side; an attempt opens its replay", async ({ browser }, testInfo) => {
  test.setTimeout(900_000);
  await runTwoSuites();
  const context = await browser.newContext();
  await stack.signIn(context, "viewer", "Vera Viewer");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/suites`);
  const list = page.getByTestId("suite-list");
  await expect(list.locator("tbody tr")).toHaveCount(2);
  // the newest first: the perturbed run
  await expect(list.locator("tbody tr").first()).toContainText("zh");
  const rate = (o: SuiteOutcome) => `${Math.round(o.summary.successRate * 1000) / 10}% (95% CI`;
  await expect(list.locator("tbody tr").first()).toContainText(rate(perturbed));
  await expect(list.locator("tbody tr").nth(1)).toContainText(rate(plain));
  await expectAccessible(page, testInfo, "suites");
  await attachScreenshot(page, testInfo, "suites");

  // pick both with the keyboard-reachable checkboxes, then compare
  await page.getByRole("checkbox").first().check();
  await page.getByRole("checkbox").nth(1).check();
  await page.getByRole("link", { name: "Compare the two picked suite runs" }).click();
  await expect(page).toHaveURL(/\/suites\/compare\?a=.+&b=.+/);
  const table = page.getByTestId("suite-compare");
  await expect(table.locator("tbody tr")).toHaveCount(2);
  for (const task of ["settings_bluetooth_on", "settings_wifi_off"]) await expect(table).toContainText(task);
  await expect(page.getByTestId("suite-side-a")).toContainText("95% CI");
  await expect(page.getByTestId("suite-side-b")).toContainText("95% CI");
  // the settings each ran under, side by side, the differences flagged before the figures are read
  const settings = page.getByTestId("suite-settings");
  await expect(settings.getByTestId("settings-differ")).toContainText("differ in 2 settings (perturbations, executor.temperature)");
  const temperature = settings.getByRole("row", { name: /executor: temperature/ });
  await expect(temperature).toHaveAttribute("data-differs", "true");
  await expect(temperature.getByRole("cell")).toHaveText(["0.2", "0"]);
  await expect(settings.getByRole("row", { name: /prompts' fingerprint/ })).not.toHaveAttribute("data-differs", "true");
  await expectAccessible(page, testInfo, "suites-compare");
  await attachScreenshot(page, testInfo, "suites-compare");

  // each attempt links to its run's replay
  const attempt = plain.attempts.find((a) => a.taskId === "settings_wifi_off")!;
  await page.getByRole("link", { name: `Replay of settings_wifi_off, seed 1, score ${attempt.score.toFixed(2)}` }).last().click();
  await expect(page).toHaveURL(/\/runs\/run_/);
  const runId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  expect([plain, perturbed].flatMap((o) => o.attempts.map((a) => a.runId))).toContain(runId);

  // one suite run's own page lists its attempts with the evaluator's reason
  await page.goto(`${stack.webUrl}/suites/${encodeURIComponent(plain.suiteRunId)}`);
  const attempts = page.getByTestId("suite-attempts");
  await expect(attempts.locator("tbody tr")).toHaveCount(2);
  await expect(attempts).toContainText(attempt.reason);
  await expectAccessible(page, testInfo, "suite-run");
  await context.close();
});

test("an unknown suite run is not found, and the compare page without two runs says what to do", async ({ browser }) => {
  const context = await browser.newContext();
  await stack.signIn(context, "operator", "Otto Operator");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/suites/compare`);
  await expect(page.getByRole("heading", { name: "Pick two suite runs to compare" })).toBeVisible();
  await page.goto(`${stack.webUrl}/suites/suite_does_not_exist`);
  await expect(page.getByRole("alert").filter({ hasText: "Nothing here" })).toContainText("Suite run suite_does_not_exist does not exist.");
  await context.close();
});
