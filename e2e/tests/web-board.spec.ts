// The board as a team uses it: an operator moves cards only through the core's operators (reorder, block, retry,
// cancel, add) while a reviewer's browser, another context, sees every change arrive without a reload; an agent's
// claim shows its owner and lease countdown; a reviewer (approver) is offered none of the operator's buttons.
import { expect, test, type Page } from "@playwright/test";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  stack = await startWebStack("web_board");
});

test.afterAll(async () => {
  await stack?.close();
});

const pendingIds = (page: Page) => page.locator('[data-lane="pending"] [data-todo-id]').evaluateAll((els) => els.map((e) => e.getAttribute("data-todo-id")));

test("an operator's board operators show live in a reviewer's browser; cards never move otherwise", async ({ browser }, testInfo) => {
  const agent = await stack.agentClient("Pixel tab token");
  const goal = await agent.goal.create.mutate({ title: "Book a table for two", objective: "Friday 19:00, under 80 EUR" });
  const [open, search, pick] = await agent.todo.add.mutate({
    goalId: goal.id,
    todos: [{ title: "Open the booking app" }, { title: "Search Italian places" }, { title: "Pick a table at 19:00" }],
  });

  const operatorContext = await browser.newContext();
  const reviewerContext = await browser.newContext();
  await stack.signIn(operatorContext, "operator", "Otto Operator");
  await stack.signIn(reviewerContext, "approver", "Rita Reviewer");
  const operator = await operatorContext.newPage();
  const reviewer = await reviewerContext.newPage();
  for (const page of [operator, reviewer]) {
    await page.goto(`${stack.webUrl}/goals/${goal.id}`);
    await expect(page.getByRole("heading", { name: /Book a table for two/ })).toBeVisible();
    await expect(page.locator('[data-stream="live"]')).toBeVisible();
  }
  await expect.poll(() => pendingIds(reviewer)).toEqual([open!.id, search!.id, pick!.id]);

  // The approver may not run todos: no operator buttons on their board.
  await expect(reviewer.getByRole("button", { name: /Move .* down/ })).toHaveCount(0);
  await expect(reviewer.getByRole("button", { name: "Add a todo" })).toHaveCount(0);

  // Reorder: the first todo moves down, in both browsers.
  await operator.getByRole("button", { name: 'Move "Open the booking app" down' }).click();
  await expect.poll(() => pendingIds(reviewer)).toEqual([search!.id, open!.id, pick!.id]);

  // Block with a reason, through the menu and its dialog (keyboard-reachable Radix parts).
  await operator.getByRole("button", { name: 'More actions for "Pick a table at 19:00"' }).click();
  await operator.getByRole("menuitem", { name: "Block…" }).click();
  await operator.getByLabel("Why it is blocked").fill("The restaurant list needs a person to pick");
  await operator.getByRole("dialog").getByRole("button", { name: "Block" }).click();
  const blocked = reviewer.locator(`[data-lane="blocked"] [data-todo-id="${pick!.id}"]`);
  await expect(blocked).toBeVisible();
  await expect(blocked).toContainText("The restaurant list needs a person to pick");

  // Retry gives it back to the pool.
  await operator.locator(`[data-todo-id="${pick!.id}"]`).getByRole("button", { name: "Retry" }).click();
  await expect(reviewer.locator(`[data-lane="pending"] [data-todo-id="${pick!.id}"]`)).toBeVisible();

  // Cancel supersedes it, with the reason kept.
  await operator.getByRole("button", { name: 'More actions for "Search Italian places"' }).click();
  await operator.getByRole("menuitem", { name: "Cancel…" }).click();
  await operator.getByLabel("Why it is cancelled").fill("We already know the place");
  await operator.getByRole("dialog").getByRole("button", { name: "Cancel the todo" }).click();
  await expect(reviewer.locator(`[data-lane="superseded"] [data-todo-id="${search!.id}"]`)).toBeVisible();

  // Add a todo: it lands at the end of Pending.
  await operator.getByRole("button", { name: "Add a todo" }).click();
  await operator.getByLabel("What to do").fill("Confirm the booking by e-mail");
  await operator.getByRole("dialog").getByRole("button", { name: "Add" }).click();
  await expect(reviewer.locator('[data-lane="pending"] [data-todo-id]').last()).toContainText("Confirm the booking by e-mail");

  // An agent claims a todo: owner and lease countdown on the card.
  await agent.agent.register.mutate({ id: "agent_e2e_pixel", name: "Pixel tab", kind: "browser", capabilities: [] });
  expect((await agent.todo.claim.mutate({ agentId: "agent_e2e_pixel", todoId: open!.id, ttlMs: 600_000 })).claimed).toBe(true);
  const claimed = reviewer.locator(`[data-lane="claimed"] [data-todo-id="${open!.id}"]`);
  await expect(claimed.locator('[data-field="owner"]')).toContainText("Pixel tab");
  await expect(claimed.locator('[data-field="lease"]')).toContainText(/\dm \d+s left/);

  await expectAccessible(operator, testInfo, "board-operator");
  await expectAccessible(reviewer, testInfo, "board-reviewer");
  await attachScreenshot(operator, testInfo, "board-operator");
  await attachScreenshot(reviewer, testInfo, "board-reviewer");

  // The board across goals shows the same cards with their goal named.
  await reviewer.goto(`${stack.webUrl}/board`);
  await expect(reviewer.locator(`[data-lane="claimed"] [data-todo-id="${open!.id}"] [data-field="goal"]`)).toContainText("Book a table for two");
  await expectAccessible(reviewer, testInfo, "board-all-goals");
  await attachScreenshot(reviewer, testInfo, "board-all-goals");

  await operatorContext.close();
  await reviewerContext.close();
});

test("a lane of 1,000 todos keeps only what is in view in the page and still updates live", async ({ browser }, testInfo) => {
  const agent = await stack.agentClient("bulk planner");
  const goal = await agent.goal.create.mutate({ title: "Triage a thousand messages", objective: "One todo per message" });
  const todos = await agent.todo.add.mutate({ goalId: goal.id, todos: Array.from({ length: 1000 }, (_, i) => ({ title: `Message ${i + 1}` })) });
  const context = await browser.newContext();
  await stack.signIn(context, "operator", "Olga Operator");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/goals/${goal.id}`);
  await expect(page.locator('[data-lane="pending"] h2')).toContainText("1000");
  await expect(page.locator('[data-stream="live"]')).toBeVisible();
  const rendered = await page.locator('[data-lane="pending"] [data-todo-id]').count();
  expect(rendered).toBeGreaterThan(0);
  expect(rendered).toBeLessThan(60);

  await agent.agent.register.mutate({ id: "agent_e2e_bulk", name: "Bulk tab", kind: "browser", capabilities: [] });
  await agent.todo.claim.mutate({ agentId: "agent_e2e_bulk", todoId: todos[0]!.id, ttlMs: 600_000 });
  await expect(page.locator(`[data-lane="claimed"] [data-todo-id="${todos[0]!.id}"]`)).toBeVisible();
  await expect(page.locator('[data-lane="pending"] h2')).toContainText("999");
  await attachScreenshot(page, testInfo, "board-1000");
  await context.close();
});

test("WIP limits on the board: an admin sets them, each held lane shows its count and limit and each phone its count; a lowered limit reads over and moves no card", async ({ browser }, testInfo) => {
  const agent = await stack.agentClient("wip planner");
  const goal = await agent.goal.create.mutate({ title: "Restock the fridge", objective: "Order milk and eggs" });
  const [milk, butter, eggs] = await agent.todo.add.mutate({ goalId: goal.id, todos: [{ title: "Order milk" }, { title: "Order butter" }, { title: "Order eggs" }] });
  await agent.agent.register.mutate({ id: "agent_e2e_wip", name: "Fold 5", kind: "browser", capabilities: [] });
  for (const todo of [milk!, butter!]) expect((await agent.todo.claim.mutate({ agentId: "agent_e2e_wip", todoId: todo.id, ttlMs: 600_000 })).claimed).toBe(true);

  const operatorContext = await browser.newContext();
  await stack.signIn(operatorContext, "operator", "Olivia Operator");
  const operator = await operatorContext.newPage();
  await operator.goto(`${stack.webUrl}/goals/${goal.id}`);
  await expect(operator.locator(`[data-lane="claimed"] [data-todo-id="${milk!.id}"]`)).toBeVisible();
  // No limit yet: no "n / limit" on the lanes, the phones' counts shown; only an admin may set limits.
  await expect(operator.getByTestId("wip-claimed")).toHaveCount(0);
  await expect(operator.getByTestId("wip-phone").filter({ hasText: "Fold 5" })).toHaveText("Fold 5: 2 held");
  await expect(operator.getByRole("button", { name: "WIP limits" })).toHaveCount(0);

  const adminContext = await browser.newContext();
  await stack.signIn(adminContext, "admin", "Ari Admin");
  const admin = await adminContext.newPage();
  await admin.goto(`${stack.webUrl}/goals/${goal.id}`);
  // The claimed lane counts the whole workspace (the earlier tests' claims too): the limit is set at that count.
  const claimedNow = await stack.db.todo.count({ where: { state: "claimed", goal: { workspaceId: stack.workspaceId } } });
  await admin.getByRole("button", { name: "WIP limits" }).click();
  const dialog = admin.getByRole("dialog", { name: "WIP limits of the workspace" });
  await dialog.getByLabel("Claimed").fill(String(claimedNow));
  await dialog.getByLabel("Per phone").fill("2");
  await expectAccessible(admin, testInfo, "board-wip-dialog");
  await dialog.getByRole("button", { name: "Save limits" }).click();
  await expect(dialog).toHaveCount(0);

  // At the limit, in both browsers.
  for (const page of [admin, operator]) {
    const badge = page.getByTestId("wip-claimed");
    await expect(badge).toHaveText(`${claimedNow} / ${claimedNow} full`);
    await expect(badge).toHaveAttribute("title", `${claimedNow} claimed across the workspace, WIP limit ${claimedNow} — at its limit; claims wait`);
    await expect(page.getByTestId("wip-phone").filter({ hasText: "Fold 5" })).toHaveText("Fold 5: 2 / 2 held");
  }
  // The core refuses a claim into the full lane, saying which limit and who to ask.
  const tab2 = await stack.agentClient("wip tab 2");
  await tab2.agent.register.mutate({ id: "agent_e2e_wip_2", name: "Tab 2", kind: "browser", capabilities: [] });
  await expect(tab2.todo.claim.mutate({ agentId: "agent_e2e_wip_2", todoId: eggs!.id, ttlMs: 600_000 })).rejects.toThrow(new RegExp(`WIP limit reached: ${claimedNow} todos? (is|are) claimed in the workspace and its limit is ${claimedNow}.*admin can raise it`));

  // Lowered below the count: the lane reads over its limit and no card moves.
  await admin.getByRole("button", { name: "WIP limits" }).click();
  await dialog.getByLabel("Claimed").fill("1");
  await dialog.getByRole("button", { name: "Save limits" }).click();
  await expect(operator.getByTestId("wip-claimed")).toHaveText(`${claimedNow} / 1 over`);
  await expect(operator.getByTestId("wip-claimed")).toHaveAttribute("title", /over its limit/);
  await expect(operator.locator(`[data-lane="claimed"] [data-todo-id="${milk!.id}"]`)).toBeVisible();
  await expect(operator.locator(`[data-lane="pending"] [data-todo-id="${eggs!.id}"]`)).toBeVisible();
  await expectAccessible(operator, testInfo, "board-wip-over");
  await attachScreenshot(operator, testInfo, "board-wip-over");

  // Cleared again (empty fields): no limits, the lane shows no "n / limit".
  await admin.getByRole("button", { name: "WIP limits" }).click();
  await dialog.getByLabel("Claimed").fill("");
  await dialog.getByLabel("Per phone").fill("");
  await dialog.getByRole("button", { name: "Save limits" }).click();
  await expect(operator.getByTestId("wip-claimed")).toHaveCount(0);
  await adminContext.close();
  await operatorContext.close();
});
