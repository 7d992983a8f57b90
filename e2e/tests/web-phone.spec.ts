// The web app on a phone (390×844, touch) and the board at 1,440 px: every nav item is reached through the menu, a
// gate opened by its link is approved with taps and its run's replay opens, no control is clipped or smaller than a
// thumb, gate questions lead with the question in plain words (rule, policy version and the model's words folded
// below), cards carry no internal ids, and lanes keep a readable width with Done and Failed collapsed to a count.
import { expect, test, type Locator, type Page, type TestInfo } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import { writeFileSync } from "node:fs";
import { gateQuestion } from "../../packages/agent/src/prompts/gate.ts";
import { attachScreenshot, startWebStack, type WebStack } from "../support/web-stack.ts";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };
/** The smallest touch target (WCAG 2.5.5's 44 CSS px). */
const THUMB = 44;
/** What the board's lanes keep at the least, scrolling sideways rather than squeezing a card. */
const LANE_MIN = 260;
/** The seeded gate's question as a person reads it: its first sentence, the quotes typographic. */
const PLAIN = "Allow the agent to click on “Pay 20 EUR” in com.example.booking?";
const NAV = [
  { name: "Attention", url: /\/$/ },
  { name: "Board", url: /\/board$/ },
  { name: "New goal", url: /\/goals\/new$/ },
  { name: "Devices", url: /\/devices$/ },
  { name: "Runs", url: /\/runs$/ },
  { name: "Suites", url: /\/suites$/ },
  { name: "Learning", url: /\/learning$/ },
  { name: "Team", url: /\/team$/ },
  { name: "Models", url: /\/settings\/models$/ },
];

test.use({ viewport: PHONE, hasTouch: true, isMobile: true });

let stack: WebStack;
let seeded: Awaited<ReturnType<typeof seed>>;

test.beforeAll(async () => {
  test.setTimeout(600_000);
  stack = await startWebStack("web_phone");
  seeded = await seed();
});

test.afterAll(async () => {
  await stack?.close();
});

/**
 * A goal whose payment todo waits on a gate the executor opened (its real question, with the observation and the
 * run's checkpoint keeping the pending tap and the rule), beside three done todos and a failed one.
 */
async function seed() {
  const agent = await stack.agentClient("Pixel tab token");
  await agent.agent.register.mutate({ id: "agent_e2e_phone", name: "Pixel tab", kind: "browser", capabilities: [] });
  const goal = await agent.goal.create.mutate({ title: "Hold the table", objective: "Pay the deposit if asked" });
  const todos = await agent.todo.add.mutate({
    goalId: goal.id,
    todos: [
      { title: "Pay the 20 EUR deposit" },
      { title: "Note the booking number" },
      { title: "Open the booking app" },
      { title: "Search Italian places" },
      { title: "Pick a table at 19:00" },
      { title: "Book through the phone line" },
    ],
  });
  const [pay, held, ...rest] = todos;
  // One todo the agent holds, three done, one failed.
  await agent.todo.claim.mutate({ agentId: "agent_e2e_phone", todoId: held!.id, ttlMs: 600_000 });
  for (const [i, t] of rest.entries()) {
    const leaseKey = `lease-phone-${i}`;
    await agent.todo.claim.mutate({ agentId: "agent_e2e_phone", todoId: t.id, ttlMs: 600_000, idempotencyKey: leaseKey });
    if (i < 3) await agent.todo.complete.mutate({ todoId: t.id, agentId: "agent_e2e_phone", leaseKey });
    else await agent.todo.fail.mutate({ todoId: t.id, agentId: "agent_e2e_phone", leaseKey, reason: "The restaurant takes no bookings by phone" });
  }
  const claim = await agent.todo.claim.mutate({ agentId: "agent_e2e_phone", todoId: pay!.id, ttlMs: 600_000 });
  expect(claim.claimed).toBe(true);
  const run = await agent.run.start.mutate({ goalId: goal.id, todoId: pay!.id, agentId: "agent_e2e_phone" });
  const observation = await agent.evidence.append.mutate({
    goalId: goal.id,
    todoId: pay!.id,
    runId: run.id,
    stepIndex: 0,
    kind: "observation",
    summary: "com.example.booking, 1 elements",
    data: { app: "com.example.booking", screen: { width: 360, height: 640 }, elements: [{ i: 0, text: "Pay 20 EUR", id: "pay", box: [100, 800, 900, 880] }] },
    agentId: "agent_e2e_phone",
    idempotencyKey: `${run.id}:0:observation`,
  });
  const action = { type: "click" as const, element: "0", intent: "pay the deposit", thought: "The deposit button is the last step before the table is held." };
  const policy = { ruleId: "payment.button", evidence: ['button text "Pay 20 EUR"'], policyVersion: "rules-7" };
  const decision = { tier: "high_risk" as const, kind: "money", ...policy, reasons: policy.evidence, targetLabel: "Pay 20 EUR", approvalKey: "money:pay", unsure: false, commitShaped: false };
  const question = gateQuestion(action, decision, "com.example.booking", pay!.title);
  const { gate } = await agent.gate.open.mutate({ goalId: goal.id, todoId: pay!.id, runId: run.id, question, options: ["approve", "deny"], evidenceIds: [observation.evidence.id] });
  await agent.run.checkpoint.mutate({
    runId: run.id,
    agentId: "agent_e2e_phone",
    checkpoint: { executor: { pendingGate: { gateId: gate.id, stepIndex: 0, action, kind: "money", tier: "high_risk", policy } } },
  });
  return { goal, pay: pay!, held: held!, done: rest.slice(0, 3), failed: rest[3]!, run, gate, question };
}

/** Every accessibility rule axe knows, at any impact: none may be violated. The report is attached. */
async function expectNoViolations(page: Page, testInfo: TestInfo, label: string): Promise<void> {
  await expect(page.locator("[data-sonner-toast]")).toHaveCount(0, { timeout: 15_000 });
  const result = await new AxeBuilder({ page }).analyze();
  const report = testInfo.outputPath(`axe-${label}.json`);
  writeFileSync(report, JSON.stringify(result.violations, null, 2));
  await testInfo.attach(`axe-${label}`, { path: report, contentType: "application/json" });
  expect(result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`), label).toEqual([]);
}

/** The control lies wholly inside the viewport, is at least a thumb high, and shows all of its text. */
async function expectWhole(control: Locator, viewport: { width: number; height: number }, text?: string): Promise<void> {
  await control.scrollIntoViewIfNeeded();
  const box = (await control.boundingBox())!;
  expect(box, `${await control.innerText()} has a box`).not.toBeNull();
  expect(box.x, "left edge in the viewport").toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, "right edge in the viewport").toBeLessThanOrEqual(viewport.width + 0.5);
  expect(box.height, "a thumb high").toBeGreaterThanOrEqual(THUMB - 0.5);
  expect(box.width, "a thumb wide").toBeGreaterThanOrEqual(THUMB - 0.5);
  const cut = await control.evaluate((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
  expect(cut, "its text is not cut off").toBe(false);
  if (text !== undefined) await expect(control).toHaveText(text);
}

/** Nothing on the page is wider than the screen: whatever is wider (lanes, tables) scrolls inside itself. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width, "the page scrolls no wider than the screen").toBeLessThanOrEqual(page.viewportSize()!.width);
}

async function openMenu(page: Page): Promise<Locator> {
  const button = page.getByRole("button", { name: "Menu" });
  await expect(button).toHaveAttribute("aria-expanded", "false");
  await button.tap();
  await expect(button).toHaveAttribute("aria-expanded", "true");
  return page.getByRole("navigation", { name: "Main" });
}

test("on a phone every nav item and sign-out is reached through the menu, by touch and by keyboard", async ({ page, context }, testInfo) => {
  await stack.signIn(context, "approver", "Rita Reviewer");
  await page.goto(stack.webUrl);
  await expect(page.getByRole("heading", { name: "Who acts next" })).toBeVisible();
  // Closed, the menu shows no link; the header fits the screen.
  await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
  await expectWhole(page.getByRole("button", { name: "Menu" }), PHONE, "Menu");
  await expectNoSidewaysScroll(page);

  for (const item of NAV) {
    const nav = await openMenu(page);
    const link = nav.getByRole("link", { name: item.name, exact: true });
    await expectWhole(link, PHONE, item.name);
    await link.tap();
    await expect(page).toHaveURL(item.url);
    // Following a link closes the menu.
    await expect(page.getByRole("button", { name: "Menu" })).toHaveAttribute("aria-expanded", "false");
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    await expectNoSidewaysScroll(page);
  }

  // Sign-out and who is signed in are in the menu too.
  await openMenu(page);
  await expectWhole(page.getByRole("button", { name: "Sign out" }), PHONE, "Sign out");
  await expect(page.getByLabel("Signed in")).toContainText("Rita Reviewer");
  await attachScreenshot(page, testInfo, "phone-menu-open");
  await expectNoViolations(page, testInfo, "phone-menu-open");

  // By keyboard: Escape closes it and gives the focus back to the button; Enter opens it on its first link.
  await page.keyboard.press("Escape");
  const button = page.getByRole("button", { name: "Menu" });
  await expect(button).toHaveAttribute("aria-expanded", "false");
  await expect(button).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(button).toHaveAttribute("aria-expanded", "true");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Attention" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(button).toBeFocused();
});

test("on a phone the board's cards read like the work and its lanes scroll inside the board", async ({ page, context }, testInfo) => {
  await stack.signIn(context, "approver", "Otto Approver");
  await page.goto(`${stack.webUrl}/goals/${seeded.goal.id}`);
  await expect(page.getByRole("heading", { name: /Hold the table/ })).toBeVisible();
  await expect(page.locator('[data-stream="live"]')).toBeVisible();
  await expectBoardCards(page);
  await expectNoSidewaysScroll(page);
  await expectNoViolations(page, testInfo, "phone-board");
  await attachScreenshot(page, testInfo, "phone-board");
});

/** Cards show their title, state, holder and the gate's question in plain words, and no internal id as text. */
async function expectBoardCards(page: Page): Promise<void> {
  const held = page.locator(`[data-todo-id="${seeded.held.id}"]`);
  await expect(held.getByRole("heading", { name: "Note the booking number" })).toBeVisible();
  await expect(held.locator('[data-field="owner"]')).toContainText("Pixel tab");
  // The gate blocks its todo: the card waits in Blocked with the question a person answers.
  const pay = page.locator(`[data-lane="blocked"] [data-todo-id="${seeded.pay.id}"]`);
  await expect(pay.getByRole("heading", { name: "Pay the 20 EUR deposit" })).toBeVisible();
  await expect(pay.locator('[data-field="gate"]')).toContainText(PLAIN);
  await expect(pay.getByRole("link", { name: 'Open the gate of "Pay the 20 EUR deposit"' })).toBeVisible();
  for (const [card, todo] of [[held, seeded.held], [pay, seeded.pay]] as const) {
    const text = await card.innerText();
    expect(text).not.toContain(todo.id);
    expect(text).not.toContain("agent_e2e_phone");
    expect(text).not.toContain("rules-7");
    expect(text).not.toContain('\\"');
    // Ids stay at hand: the copy button names the todo, its title attribute shows the id on hover or focus.
    await expect(card.getByRole("button", { name: `Copy the id of “${todo.title}”` })).toHaveAttribute("title", new RegExp(todo.id));
  }
}

test.describe("at 1,440 px", () => {
  test.use({ viewport: DESKTOP, hasTouch: false, isMobile: false });

  test("lanes keep their width and scroll sideways; Done and Failed collapse to a count that opens on demand", async ({ page, context }, testInfo) => {
    await stack.signIn(context, "approver", "Olga Approver");
    await page.goto(`${stack.webUrl}/goals/${seeded.goal.id}`);
    await expect(page.locator('[data-stream="live"]')).toBeVisible();
    await expect(page.getByRole("button", { name: "Menu" })).toBeHidden();
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Models" })).toBeVisible();

    for (const state of ["pending", "claimed", "running", "validating", "blocked"]) {
      const box = (await page.locator(`[data-lane="${state}"]`).boundingBox())!;
      expect(box.width, `${state} lane width`).toBeGreaterThanOrEqual(LANE_MIN);
    }
    for (const [state, n, todo] of [["done", 3, seeded.done[0]!], ["failed", 1, seeded.failed]] as const) {
      const lane = page.locator(`[data-lane="${state}"]`);
      await expect(lane).toHaveAttribute("data-collapsed", "true");
      await expect(lane.getByRole("heading", { level: 2 })).toContainText(String(n));
      await expect(lane.locator("[data-todo-id]")).toHaveCount(0);
      const toggle = lane.getByRole("button", { name: new RegExp(`^Show the ${n} `) });
      await expect(toggle).toHaveAttribute("aria-expanded", "false");
      await toggle.click();
      await expect(lane).toHaveAttribute("data-collapsed", "false");
      await expect(lane.locator(`[data-todo-id="${todo.id}"]`)).toBeVisible();
      expect((await lane.boundingBox())!.width, `${state} lane opened`).toBeGreaterThanOrEqual(LANE_MIN);
      await lane.getByRole("button", { name: new RegExp(`^Hide the ${state}`, "i") }).click();
      await expect(lane).toHaveAttribute("data-collapsed", "true");
    }
    // The lanes scroll inside the board, never the page.
    await expectNoSidewaysScroll(page);
    await expectBoardCards(page);
    await expectNoViolations(page, testInfo, "desktop-board");
    await attachScreenshot(page, testInfo, "desktop-board");

    await page.goto(`${stack.webUrl}/board`);
    await expect(page.locator('[data-lane="done"]')).toHaveAttribute("data-collapsed", "true");
    await expectNoViolations(page, testInfo, "desktop-board-all");
  });

  test("the attention queue and a gate lead with the question in plain words; they and a replay pass every axe rule", async ({ page, context }, testInfo) => {
    await stack.signIn(context, "approver", "Ravi Reviewer");
    await page.goto(stack.webUrl);
    await expect(page.getByRole("heading", { name: "Who acts next" })).toBeVisible();
    const row = page.locator(`[data-gate-id="${seeded.gate.id}"]`);
    await expect(row.getByRole("heading", { level: 2 })).toHaveText(PLAIN);
    await expect(row.getByRole("button", { name: "Approve…" })).toBeVisible();
    await expectNoViolations(page, testInfo, "desktop-attention");
    await page.goto(`${stack.webUrl}/gates/${seeded.gate.id}`);
    await expect(page.getByTestId("gate-review").getByRole("heading", { level: 1 })).toHaveText(PLAIN);
    await expect(page.getByTestId("gate-review").locator("details")).toContainText("rules-7");
    await expectNoViolations(page, testInfo, "desktop-gate");
    await page.goto(`${stack.webUrl}/runs/${seeded.run.id}`);
    await expect(page.getByTestId("replay")).toBeVisible();
    await expectNoViolations(page, testInfo, "desktop-replay");
  });
});

// Last: the approval changes the board the tests above read (the gate closes, its todo leaves Blocked).
test("on a phone a gate opened by its link reads as a question, is approved with taps, and its run's replay opens", async ({ page, context }, testInfo) => {
  await stack.signIn(context, "approver", "Rachel Reviewer");

  // The attention queue: the gate's question in plain words and whole answer buttons.
  await page.goto(stack.webUrl);
  const row = page.locator(`[data-gate-id="${seeded.gate.id}"]`);
  await expect(row).toBeVisible();
  await expectWhole(row.getByRole("button", { name: "Approve…" }), PHONE, "Approve…");
  await expectWhole(row.getByRole("button", { name: "Deny…" }), PHONE, "Deny…");
  await expectWhole(row.getByRole("link", { name: "Review with the screenshot" }), PHONE, "Review with the screenshot");
  await expect(row.getByRole("heading", { name: PLAIN })).toBeVisible();
  expect(await row.innerText()).not.toContain("rules-7");
  // The todo the gate blocks says so in a few words rather than repeating the agent's whole question.
  const blocked = page.locator(`[data-kind="todo_blocked"][data-todo-id="${seeded.pay.id}"]`);
  await expect(blocked).toContainText("waits for its gate's answer");
  expect(await blocked.innerText()).not.toContain("rules-7");
  await expectNoSidewaysScroll(page);
  await attachScreenshot(page, testInfo, "phone-attention");
  await expectNoViolations(page, testInfo, "phone-attention");

  // The gate's own page, as a notification's link opens it.
  await page.goto(`${stack.webUrl}/gates/${seeded.gate.id}`);
  const review = page.getByTestId("gate-review");
  const heading = review.getByRole("heading", { level: 1 });
  await expect(heading).toHaveText(PLAIN);
  // The rule, the policy version and the model's words are there, folded under the question.
  const why = review.locator("details");
  await expect(why).toHaveCount(1);
  await expect(why).not.toHaveAttribute("open");
  for (const hidden of [review.locator('[data-field="rule"]'), review.locator('[data-field="model-words"]')]) await expect(hidden).toBeHidden();
  await why.locator("summary").tap();
  await expect(review.locator('[data-field="rule"]')).toContainText("payment.button");
  await expect(review.locator('[data-field="rule"]')).toContainText("rules-7");
  await expect(review.locator('[data-field="model-words"]')).toContainText("The deposit button is the last step");
  await expectNoSidewaysScroll(page);
  await expectNoViolations(page, testInfo, "phone-gate");
  await attachScreenshot(page, testInfo, "phone-gate");

  const approve = review.getByRole("button", { name: "Approve…" });
  await expectWhole(approve, PHONE, "Approve…");
  await expectWhole(review.getByRole("button", { name: "Deny…" }), PHONE, "Deny…");
  await approve.tap();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Your rationale (recorded with your decision)").fill("The deposit is within the goal's bounds");
  const confirm = dialog.getByRole("button", { name: "Approve" });
  await expectWhole(confirm, PHONE, "Approve");
  await expectWhole(dialog.getByRole("button", { name: "Keep as is" }), PHONE, "Keep as is");
  await confirm.tap();
  await expect(review.locator('[data-field="decision"]')).toContainText("approve");
  expect((await (await stack.agentClient("checker")).gate.get.query({ gateId: seeded.gate.id })).status).toBe("approved");

  // The run the gate belongs to, from the gate's page.
  const replayLink = review.getByRole("link", { name: "Open the run's replay" });
  await expectWhole(replayLink, PHONE, "Open the run's replay");
  await replayLink.tap();
  await expect(page).toHaveURL(new RegExp(`/runs/${seeded.run.id}$`));
  await expect(page.getByTestId("replay")).toBeVisible();
  await expectNoSidewaysScroll(page);
  await expectNoViolations(page, testInfo, "phone-replay");
  await attachScreenshot(page, testInfo, "phone-replay");
});
