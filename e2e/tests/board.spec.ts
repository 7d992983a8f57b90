// The web board, live: a real Postgres, the API in this process, the built Next app served by `next start`, and
// Chromium with a signed-in person. A todo claimed through the API moves lanes on an open page without a reload.
import { expect, test } from "@playwright/test";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(300_000);
  stack = await startWebStack("board");
});

test.afterAll(async () => {
  await stack?.close();
});

test("a signed-out visitor is sent to sign in; signing in with e-mail and password lands on the board with their role", async ({ page }, testInfo) => {
  await page.goto(`${stack.webUrl}/`);
  await expect(page).toHaveURL(/\/sign-in/);
  await expectAccessible(page, testInfo, "sign-in");
  await attachScreenshot(page, testInfo, "sign-in");
  await page.getByLabel("E-mail").fill(stack.admin.email);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "do not match an account" })).toBeVisible();
  await page.getByLabel("Password").fill(stack.admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  const badge = page.getByLabel("Signed in");
  await expect(badge).toContainText("Ada Admin");
  await expect(badge).toContainText("admin");
  const csp = (await page.request.get(`${stack.webUrl}/`)).headers()["content-security-policy"];
  expect(csp).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
  expect(csp).toContain("frame-ancestors 'none'");
});

test("the board renders a lane per todo state and moves a card live when the todo is claimed through the API", async ({ page, context }) => {
  await stack.signIn(context, "viewer", "Vera Viewer");
  const client = await stack.agentClient("Pixel tab");
  await client.agent.register.mutate({ id: "agent_e2e_pixel", name: "Pixel tab", kind: "browser", capabilities: [] });
  const goal = await client.goal.create.mutate({ title: "Book a table for two", objective: "Friday 19:00, under 80 EUR" });
  const todos = await client.todo.add.mutate({
    goalId: goal.id,
    todos: [{ title: "Open the booking app" }, { title: "Search Italian places" }, { title: "Pick a table at 19:00" }],
  });

  await page.goto(`${stack.webUrl}/goals/${goal.id}`);
  await expect(page.getByRole("heading", { name: /Book a table for two/ })).toBeVisible();
  await expect(page.getByLabel("Signed in")).toContainText("viewer");
  for (const lane of ["pending", "claimed", "running", "validating", "blocked", "failed", "done"]) {
    await expect(page.locator(`[data-lane="${lane}"]`)).toBeVisible();
  }
  await expect(page.locator('[data-lane="pending"] [data-todo-id]')).toHaveCount(3);
  await expect(page.locator('[data-lane="claimed"] [data-todo-id]')).toHaveCount(0);
  // Subscribed before the claim, so the card moves because of the event, not a reload.
  await expect(page.locator('[data-stream="live"]')).toBeVisible();

  const first = todos[0]!;
  const claim = await client.todo.claim.mutate({ agentId: "agent_e2e_pixel", todoId: first.id, ttlMs: 600_000 });
  expect(claim.claimed).toBe(true);

  const card = page.locator(`[data-lane="claimed"] [data-todo-id="${first.id}"]`);
  await expect(card).toBeVisible();
  await expect(card.locator('[data-field="owner"]')).toContainText("Pixel tab");
  await expect(page.locator('[data-lane="pending"] [data-todo-id]')).toHaveCount(2);
});

test("an admin makes an invite link on the team page; the invited person joins with the invite's role", async ({ page, context, browser }, testInfo) => {
  await stack.signIn(context, "admin", "Alma Admin");
  await page.goto(`${stack.webUrl}/team`);
  await page.getByLabel("Name (which worker it is for)").fill("lab worker 1");
  await page.getByRole("button", { name: "Issue a token" }).click();
  await expect(page.getByLabel("The token (shown once)")).toHaveValue(/^plt_[\w-]{20,}$/);
  const row = page.getByRole("list", { name: "Agent tokens" }).getByRole("listitem").filter({ hasText: "lab worker 1" });
  await expect(row).toContainText("last used never");
  await row.getByRole("button", { name: "Revoke" }).click();
  await expect(row).toContainText("revoked");
  await expectAccessible(page, testInfo, "team");
  await attachScreenshot(page, testInfo, "team");
  await page.getByLabel("Role").selectOption("approver");
  await page.getByRole("button", { name: "Make an invite link" }).click();
  const link = await page.getByLabel("Invite link").inputValue();
  expect(link).toMatch(/\/invite\?token=[\w-]{40,}$/);

  const newcomer = await browser.newPage();
  await newcomer.goto(link);
  await newcomer.getByLabel("Your name").fill("Ines Invited");
  await newcomer.getByLabel("E-mail").fill("ines@example.test");
  await newcomer.getByLabel(/Password/).fill("a long enough password");
  await newcomer.getByRole("button", { name: "Join" }).click();
  const badge = newcomer.getByLabel("Signed in");
  // A new browser's first page after joining loads every script cold while the other worker runs a phone: more
  // than the default 15 s on a busy 2-core machine (seen once in CI).
  await expect(badge).toContainText("Ines Invited", { timeout: 45_000 });
  await expect(badge).toContainText("approver");
  await newcomer.close();
});
