// The runner as an operator meets it: connect the phone through the browser's picker (the WebUSB stand-in bridged
// to a virtual phone), create a goal from a built-in task with a payment step, run it in the tab against the
// scripted model server through the API's model proxy; close the tab mid-run and resume it in a second tab once the
// lease expired, no step repeated; and the busy-phone and no-WebUSB errors with their fixes.
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { act, startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedReply } from "@phoneloop/agent/testing";
import { fencedRegions } from "@phoneloop/agent";
import { createApiClient, type ApiClient } from "@phoneloop/client";
import { installWebUsbStandIn, type WebUsbStandInConfig } from "@phoneloop/device/testing/webusb-stand-in";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { attachScreenshot, expectAccessible, freePort, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;
let phone: VirtualPhone;
let demo: VirtualPhone;
let models: ScriptedModelServer;
let admin: ApiClient;
/** Set once the first tab is closed: the resumed run's executor then finishes its todo. */
let firstTabClosed = false;
/** Set once the paused goal was resumed: its new run's executor then finishes the todo. */
let goalResumed = false;

test.describe.configure({ mode: "serial" });

const screenOf = (req: RecordedRequest) => fencedRegions(req.lastUserText).at(-1) ?? "";
function find(req: RecordedRequest, pattern: RegExp): string | undefined {
  for (const line of screenOf(req).split("\n")) if (pattern.test(line)) return /^\[(\d+)\]/.exec(line)?.[1];
  return undefined;
}

/** The executor for the shop's checkout: reads the screen in the request and taps what a person would. */
function shopper(address: string) {
  let typed = false;
  return (req: RecordedRequest): ScriptedReply => {
    if (/id="?order_number|Order placed|Thank you/i.test(screenOf(req))) return act({ type: "status", status: "complete", summary: "Order placed." });
    const dismiss = find(req, /"(No thanks|Not now|Later|Close)"/);
    if (dismiss) return act({ type: "click", element: dismiss, intent: "dismiss the popup" });
    const pay = find(req, /id="?place_order/);
    if (pay) return act({ type: "click", element: pay, intent: "pay for the order" });
    const addr = find(req, /id="?shipping_address/);
    if (addr && !typed) {
      typed = true;
      return act({ type: "click_then_type", element: addr, text: address, intent: "enter the shipping address" });
    }
    const buy = find(req, /id="?buy_now/);
    if (buy) return act({ type: "click", element: buy, intent: "go to checkout" });
    const item = find(req, /LinearLayout"? "Coffee beans 1kg/);
    if (item) return act({ type: "click", element: item, intent: "open the product" });
    return act({ type: "wait", ms: 300 });
  };
}

const isWifi = (req: RecordedRequest) => /Wi-Fi/.test(req.text) && !/Note the time|Pause me/.test(req.text);
const plan = (title: string) => ({ text: JSON.stringify({ plan: "one todo", todos: [{ id: "main", title, kind: "executor", inputs: [], outputs: [] }] }) });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  // The page makes its ADB key in the browser at connect time: the phone behind the WebUSB stand-in allows any key (no
  // prompt to answer). The demo phone asks "Allow USB debugging?" like a real one; the API answers it (its control API).
  const webPort = await freePort();
  const origins = [`http://127.0.0.1:${webPort}`];
  phone = await startVirtualPhone({ scenario: "shop", seed: 5, trust: "any-key", allowOrigins: origins });
  demo = await startVirtualPhone({ scenario: "home", seed: 2, allowOrigins: origins });
  stack = await startWebStack("web_runner", { webPort, webEnv: { DEMO_PHONE_URL: demo.wsUrl }, demoPhone: { url: demo.controlUrl, token: demo.controlToken } });
  const checkout = phone.engine.task("shop_checkout") as { params: Record<string, string> };
  const shop = shopper(checkout.params.address!);
  models = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "planner-model", replies: [(r) => plan(/Pause me/.test(r.text) ? "Pause me: wait" : isWifi(r) ? "Turn off Wi-Fi" : "Buy the coffee beans")], repeatLast: true },
      { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Report written." }) }], repeatLast: true },
      // The paused goal's todo: waits until the goal was resumed, then done.
      { match: (r) => r.model === "executor-model" && /Pause me/.test(r.text), replies: [() => (goalResumed ? act({ type: "status", status: "complete", summary: "done after the pause" }) : act({ type: "wait", ms: 400 }))], repeatLast: true },
      // The worker-mode goal's todo: done at once.
      { match: (r) => r.model === "executor-model" && /Note the time/.test(r.text), replies: [act({ type: "status", status: "complete", summary: "noted" })], repeatLast: true },
      // Wi-Fi (the tab-close run): waits while the first tab lives, then the resumed run completes the todo.
      { match: (r) => r.model === "executor-model" && isWifi(r), replies: [() => (firstTabClosed ? act({ type: "status", status: "complete", summary: "done after resuming" }) : act({ type: "wait", ms: 400 }))], repeatLast: true },
      { match: (r) => r.model === "executor-model", replies: [(r) => shop(r)], repeatLast: true },
    ],
  });
  admin = createApiClient({ apiUrl: stack.api.url, auth: { kind: "cookie", cookie: stack.admin.headers.cookie! } });
  // The tab's model calls go through the API's model proxy, to this workspace's endpoint (the scripted server).
  await admin.modelSettings.set.mutate({ baseUrl: models.baseURL, apiKey: "scripted", models: { planner: "planner-model", executor: "executor-model", summarizer: "summarizer-model" }, microUsdPerInputToken: 2, microUsdPerOutputToken: 8 });
});

test.afterAll(async () => {
  await models?.stop();
  await phone?.stop();
  await demo?.stop();
  await stack?.close();
});

async function operatorPage(context: BrowserContext, config: Omit<WebUsbStandInConfig, "wsUrl">): Promise<{ page: Page; errors: string[] }> {
  await installWebUsbStandIn(context, { wsUrl: phone.wsUrl, ...config });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  return { page, errors };
}

/** Approves every gate of the goal as it opens (an approver's decisions, through the API), until stopped. */
function approveGates(goalId: () => string | null): { stop(): void; approved: string[] } {
  let stopped = false;
  const approved: string[] = [];
  void (async () => {
    while (!stopped) {
      const id = goalId();
      if (id) {
        const queue = await admin.board.attention.query({ goalId: id }).catch(() => null);
        for (const item of queue?.items ?? []) {
          if (item.kind !== "gate_waiting" || approved.includes(item.gateId)) continue;
          approved.push(item.gateId);
          await admin.gate.resolve.mutate({ gateId: item.gateId, decision: "approve", rationale: "as the task asks" }).catch(() => undefined);
        }
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return { stop: () => (stopped = true), approved };
}

test("the operator connects the phone through the picker, creates a goal from a built-in task with a payment step and runs it in the tab", async ({ browser }, testInfo) => {
  test.setTimeout(300_000);
  phone.engine.startTask("shop_checkout");
  const context = await browser.newContext();
  await stack.signIn(context, "operator", "Otto Operator");
  const { page, errors } = await operatorPage(context, { granted: false });

  await page.goto(`${stack.webUrl}/devices`);
  await expect(page.getByRole("heading", { name: "Devices" })).toBeVisible();
  await page.getByRole("button", { name: "Connect phone" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Connected to PhoneLoop Virtual/ })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __webUsbStandIn: { stats: { prompts: number } } }).__webUsbStandIn.stats.prompts)).toBe(1);
  const card = page.getByTestId("phone-card");
  await expect(card).toContainText("PhoneLoop Virtual");
  await expect(card).toContainText("1080 × 2400 px");
  await expect(card).toContainText("USB (WebUSB)");
  await expect(card).toContainText(/Battery\s*\d+%/);
  await expect(card).toContainText(/Android\s*\d+/);
  // The mirror shows frames and their rate; video is said to be unavailable.
  await expect(page.getByTestId("mirror-frame")).toBeVisible();
  await expect(page.getByTestId("mirror-fps")).toHaveText(/\d+(\.\d)? frames\/s/);
  await expect(page.getByText("Video (scrcpy) is unavailable")).toBeVisible();
  await page.getByRole("button", { name: "Pause mirror" }).click();
  await expectAccessible(page, testInfo, "devices-connected");
  await attachScreenshot(page, testInfo, "devices-connected");

  // A goal from the pack's checkout task (a client-side link: the phone stays connected).
  await page.getByRole("navigation").getByRole("link", { name: "New goal" }).click();
  await expect(page.getByRole("heading", { name: "New goal" })).toBeVisible();
  await page.getByLabel(/A built-in task/).selectOption("shop_checkout");
  await expect(page.getByLabel(/Objective/)).toHaveValue(/Buy one 'Coffee beans 1kg'/);
  await expect(page.getByText(/This task pays for something/)).toBeVisible();
  await expect(page.getByLabel("Steps")).not.toHaveValue("");
  await expectAccessible(page, testInfo, "goal-new");
  await attachScreenshot(page, testInfo, "goal-new");

  let goalId: string | null = null;
  const gates = approveGates(() => goalId);
  try {
    await page.getByRole("button", { name: /Create and run on PhoneLoop Virtual/ }).click();
    await page.waitForURL((u) => /^\/goals\/[^/]+$/.test(u.pathname) && u.pathname !== "/goals/new");
    goalId = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
    const goal = await admin.goal.get.query({ goalId });
    expect(goal.objective).toMatch(/Coffee beans 1kg/);
    expect(goal.acceptance.length).toBeGreaterThan(0);

    const progress = page.getByTestId("run-progress");
    await expect(progress).toBeVisible();
    // Progress while it runs: the current todo from the plan, step n of the budget, money spent.
    await expect(page.getByTestId("run-todo")).toHaveText("Buy the coffee beans", { timeout: 60_000 });
    await expect(page.getByTestId("run-step")).toContainText(/[1-9]\d* of 200/);
    await expect(page.getByTestId("run-outcome")).toHaveAttribute("data-status", "completed", { timeout: 180_000 });
    await expect(page.getByTestId("run-spent")).toContainText(/\$0\.\d+ · [1-9][\d,]* tokens/);
  } finally {
    gates.stop();
  }
  expect(gates.approved.length).toBeGreaterThan(0);
  await expectAccessible(page, testInfo, "goal-run-done");
  await attachScreenshot(page, testInfo, "goal-run-done");

  // The state core agrees: the run completed, by a browser agent, the todo done; the task's evaluator scores 1.
  const runId = (await page.getByTestId("run-progress").getAttribute("data-run-id"))!;
  const run = await admin.run.get.query({ runId });
  expect(run.status).toBe("completed");
  expect(run.steps.length).toBeGreaterThan(2);
  const board = await admin.board.get.query({ goalId: goalId! });
  expect(board.lanes.find((l) => l.state === "done")!.cards.map((c) => c.title)).toEqual(["Buy the coffee beans"]);
  expect(phone.engine.evaluate("shop_checkout", {}).score).toBe(1);
  expect(errors).toEqual([]);
  await context.close();
});

test("a tab closed mid-run: a second tab resumes the run after the lease expires, no step repeated", async ({ browser }, testInfo) => {
  test.setTimeout(300_000);
  phone.engine.startTask("settings_wifi_off");
  const context = await browser.newContext();
  await stack.signIn(context, "operator", "Tess Tabs");
  const operator = admin;
  await operator.goal.create.mutate({ title: "Wi-Fi off", objective: "Turn off Wi-Fi.", acceptance: ["Wi-Fi is off"] });

  const first = await operatorPage(context, { granted: false });
  await first.page.goto(`${stack.webUrl}/devices`);
  await first.page.getByRole("button", { name: "Connect phone" }).click();
  await expect(first.page.getByRole("status").filter({ hasText: /Connected to/ })).toBeVisible();
  await first.page.getByRole("link", { name: "Wi-Fi off" }).click();
  await first.page.getByRole("button", { name: "Start run" }).click();
  await expect(first.page.getByTestId("run-step")).toContainText(/^[3-9] of 200|^\d{2,} of 200/, { timeout: 60_000 });
  const runId = (await first.page.getByTestId("run-progress").getAttribute("data-run-id"))!;
  expect(runId).not.toBe("");
  const firstAgent = (await operator.run.get.query({ runId })).agentId;
  await first.page.close();
  firstTabClosed = true;
  const stepsBefore = (await operator.run.get.query({ runId })).steps.map((s) => s.index);

  // The second tab of the same browser connects the phone again; the goal lists the run the closed tab left behind.
  const second = await context.newPage();
  await second.goto(`${stack.webUrl}/devices`);
  await second.getByRole("button", { name: "Connect phone" }).click();
  await expect(second.getByRole("status").filter({ hasText: /Connected to/ })).toBeVisible();
  await second.getByRole("link", { name: "Wi-Fi off" }).click();
  const left = second.getByRole("region", { name: "Run on a phone" }).getByRole("listitem").filter({ hasText: runId });
  await expect(left).toContainText("running");
  await left.getByRole("button", { name: "Resume run here" }).click();
  // It waits for the closed tab's lease, then resumes from the checkpoint and finishes.
  await expect(second.getByTestId("run-outcome")).toHaveAttribute("data-status", "completed", { timeout: 120_000 });
  await expectAccessible(second, testInfo, "goal-run-resumed");
  await attachScreenshot(second, testInfo, "goal-run-resumed");

  const run = await operator.run.get.query({ runId });
  expect(run.status).toBe("completed");
  expect(run.agentId).not.toBe(firstAgent);
  const indices = run.steps.map((s) => s.index);
  // Every step once, in order: what the first tab recorded is kept, and the resumed run goes on after it.
  expect(indices).toEqual(Array.from({ length: indices.length }, (_, i) => i));
  expect(indices.slice(0, stepsBefore.length)).toEqual(stepsBefore);
  expect(indices.length).toBeGreaterThan(stepsBefore.length);
  await context.close();
});

test("a busy phone and a browser without WebUSB: each error says what happened and how to fix it", async ({ browser }, testInfo) => {
  const busyContext = await browser.newContext();
  await stack.signIn(busyContext, "operator", "Bea Busy");
  const busy = await operatorPage(busyContext, { variant: "busy" });
  await busy.page.goto(`${stack.webUrl}/devices`);
  await busy.page.getByRole("button", { name: "Connect phone" }).click();
  const alert = busy.page.locator("[data-code]");
  await expect(alert).toHaveAttribute("data-code", "DEVICE_BUSY");
  await expect(alert).toHaveAttribute("role", "alert");
  await expect(alert).toContainText("Another program is using this phone");
  await expect(alert).toContainText("adb kill-server");
  await expect(busy.page.getByRole("button", { name: "Retry" })).toBeVisible();
  await expectAccessible(busy.page, testInfo, "devices-busy");
  await attachScreenshot(busy.page, testInfo, "devices-busy");
  await busyContext.close();

  const bareContext = await browser.newContext();
  await stack.signIn(bareContext, "operator", "Nora No-USB");
  await bareContext.addInitScript(() => Object.defineProperty(Navigator.prototype, "usb", { configurable: true, get: () => undefined }));
  const bare = await bareContext.newPage();
  await bare.goto(`${stack.webUrl}/devices`);
  await expect(bare.getByText(/This browser has no WebUSB/)).toBeVisible();
  await bare.getByRole("button", { name: "Connect phone" }).click();
  const noUsb = bare.locator("[data-code]");
  await expect(noUsb).toHaveAttribute("data-code", "NO_WEBUSB");
  await expect(noUsb).toContainText("Chrome");
  await expectAccessible(bare, testInfo, "devices-no-webusb");
  await attachScreenshot(bare, testInfo, "devices-no-webusb");
  await bareContext.close();
});

test("the demo phone is one click, and a tab in worker mode takes a teammate's new todo, its heartbeat on the board", async ({ browser }, testInfo) => {
  test.setTimeout(240_000);
  const context = await browser.newContext();
  await stack.signIn(context, "operator", "Wes Worker");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/devices`);
  await page.getByRole("button", { name: "Use the demo phone" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Connected to PhoneLoop Virtual/ })).toBeVisible();
  await expect(page.getByTestId("phone-card")).toContainText("Demo phone (WebSocket)");
  await page.getByLabel(/Worker mode/).check();
  await expect(page.getByTestId("worker-heartbeat")).toContainText(/Standing by as agent_\w+ · heartbeat/);
  const agentId = /Standing by as (agent_\w+)/.exec((await page.getByTestId("worker-heartbeat").textContent())!)![1]!;

  // A teammate's board shows the tab among the workers, with its phone and heartbeat, without a reload.
  const teammate = await browser.newContext();
  await stack.signIn(teammate, "viewer", "Vic Viewer");
  const board = await teammate.newPage();
  await board.goto(`${stack.webUrl}/board`);
  const worker = board.getByTestId("workers").locator(`[data-agent-id="${agentId}"]`);
  await expect(worker).toContainText("PhoneLoop Virtual");
  await expect(worker).toContainText(/heartbeat/);
  await expectAccessible(board, testInfo, "board-workers");
  await attachScreenshot(board, testInfo, "board-workers");

  // A teammate creates a goal with a todo; the standing-by tab takes it and finishes it.
  const goal = await admin.goal.create.mutate({ title: "Note the time", objective: "Note the time shown on the phone." });
  await admin.todo.add.mutate({ goalId: goal.id, todos: [{ title: "Note the time", requiredCapabilities: ["phone"] }] });
  await expect(page.getByTestId("run-outcome")).toHaveAttribute("data-status", "completed", { timeout: 90_000 });
  await expect(page.getByTestId("run-progress")).toContainText("taken in worker mode");
  const done = await admin.board.get.query({ goalId: goal.id });
  expect(done.lanes.find((l) => l.state === "done")!.cards.map((c) => c.title)).toEqual(["Note the time"]);
  const runs = (await admin.goal.runs.query({ goalId: goal.id })).items;
  expect(runs.map((r) => ({ status: r.status, agentId: r.agentId }))).toEqual([{ status: "completed", agentId }]);
  await attachScreenshot(page, testInfo, "devices-worker");
  await teammate.close();
  await context.close();
});

test("pause stops the run before its next step; resume goes on from the board as the same run", async ({ browser }, testInfo) => {
  test.setTimeout(240_000);
  const goal = await admin.goal.create.mutate({ title: "Pause me", objective: "Pause me: wait on the phone until told." });
  const context = await browser.newContext();
  await stack.signIn(context, "operator", "Pat Pause");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/devices`);
  await page.getByRole("button", { name: "Use the demo phone" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Connected to/ })).toBeVisible();
  await page.getByRole("link", { name: "Pause me" }).click();
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page.getByTestId("run-step")).toContainText(/^[2-9] of 200|^\d{2,} of 200/, { timeout: 60_000 });

  await page.getByRole("button", { name: "Pause goal" }).click();
  await expect(page.getByTestId("run-outcome")).toHaveAttribute("data-status", "blocked", { timeout: 60_000 });
  await expect(page.getByTestId("run-outcome")).toContainText(/paused/);
  expect((await admin.goal.get.query({ goalId: goal.id })).status).toBe("paused");
  await expect(page.getByRole("button", { name: "Resume goal" })).toBeVisible();
  await expectAccessible(page, testInfo, "goal-paused");
  await attachScreenshot(page, testInfo, "goal-paused");

  goalResumed = true;
  await page.getByRole("button", { name: "Resume goal" }).click();
  await expect(page.getByTestId("run-outcome")).toHaveAttribute("data-status", "completed", { timeout: 60_000 });
  const runs = (await admin.goal.runs.query({ goalId: goal.id })).items;
  expect(runs.map((r) => r.status)).toEqual(["completed"]);
  // One run: its replay shows the stop and the resume. Paused between steps the runtime ends with goal_paused;
  // paused while a model call is in flight, the model proxy refuses the call for the paused goal and the run ends
  // as model_failed (its reason names the pause, as above).
  const resumed = (await admin.run.replay.query({ runId: runs[0]!.id })).timeline.find((n) => (n.data as { fault?: string }).fault === "resumed");
  expect(resumed?.summary).toMatch(/^Resumed: the run had stopped blocked \((goal_paused|model_failed)\)/);
  const board = await admin.board.get.query({ goalId: goal.id });
  expect(board.lanes.find((l) => l.state === "done")!.cards.map((c) => c.title)).toEqual(["Pause me: wait"]);
  await context.close();
});
