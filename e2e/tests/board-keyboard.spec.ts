// The board by keyboard alone: Tab reaches a lane's current card, the arrow keys move between cards (down a lane,
// across lanes passing empty ones), Enter opens a card's gate, a gate card is approved from the board with its own
// buttons and a rationale typed in the dialog, and an operator (moving a pending todo down) runs from its button —
// no mouse anywhere.
import { expect, test, type Page } from "@playwright/test";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;
let seeded: Awaited<ReturnType<typeof seed>>;

test.beforeAll(async () => {
  test.setTimeout(600_000);
  stack = await startWebStack("board_keyboard");
  seeded = await seed();
});

test.afterAll(async () => {
  await stack?.close();
});

/** A goal with three pending todos after one that waits, blocked, on an approval gate the agent opened. */
async function seed() {
  const agent = await stack.agentClient("Keyboard tab token");
  await agent.agent.register.mutate({ id: "agent_e2e_keys", name: "Keys tab", kind: "browser", capabilities: [] });
  const goal = await agent.goal.create.mutate({ title: "Order supplies", objective: "Buy paper and pens" });
  const [pay, ...pending] = await agent.todo.add.mutate({ goalId: goal.id, todos: [{ title: "Pay for the paper" }, { title: "Buy pens" }, { title: "Buy staples" }, { title: "File the receipt" }] });
  const claim = await agent.todo.claim.mutate({ agentId: "agent_e2e_keys", todoId: pay!.id, ttlMs: 600_000 });
  expect(claim.claimed).toBe(true);
  const run = await agent.run.start.mutate({ goalId: goal.id, todoId: pay!.id, agentId: "agent_e2e_keys" });
  const { gate } = await agent.gate.open.mutate({ goalId: goal.id, todoId: pay!.id, runId: run.id, kind: "approval", question: "Pay 12 EUR at Paper Shop?", options: ["approve", "deny"] });
  return { goal, pay: pay!, pending, gate };
}

const focused = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent?.trim() ?? "");

test("the board works by keyboard alone: move between cards, open a gate, approve it from its card, run an operator", async ({ browser }, testInfo) => {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await stack.signIn(context, "admin", "Ada Admin");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/goals/${encodeURIComponent(seeded.goal.id)}`);
  const blocked = page.locator(`[data-lane="blocked"] [data-todo-id="${seeded.pay.id}"]`);
  await expect(blocked).toBeVisible();

  // Tab until a card has the focus: the first lane's current card, "Buy pens".
  for (let i = 0; i < 60 && !(await page.evaluate(() => document.activeElement?.matches("article[data-todo-id]"))); i++) await page.keyboard.press("Tab");
  expect(await focused(page)).toBe("Buy pens");
  await page.keyboard.press("ArrowDown");
  expect(await focused(page)).toBe("Buy staples");
  await page.keyboard.press("End");
  expect(await focused(page)).toBe("File the receipt");
  await page.keyboard.press("Home");
  expect(await focused(page)).toBe("Buy pens");
  // Right: past the empty Claimed, Running and Validating lanes, to the gate's card in Blocked.
  await page.keyboard.press("ArrowRight");
  expect(await focused(page)).toBe("Pay for the paper");
  await expectAccessible(page, testInfo, "board-keyboard");
  await attachScreenshot(page, testInfo, "board-keyboard");

  // Enter opens the card's gate; back on the board the card keeps the focus it had.
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/gates/${seeded.gate.id}$`));
  await page.goBack();
  await expect(blocked).toBeVisible();

  // Approve from the card: Tab to its Approve button, type the rationale in the dialog, confirm with the keyboard.
  await blocked.focus();
  for (let i = 0; i < 20 && !/^Approve/.test(await focused(page)); i++) await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("Pay 12 EUR at Paper Shop?");
  await page.keyboard.type("Within the supplies budget");
  for (let i = 0; i < 10 && (await focused(page)) !== "Approve"; i++) await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(page.getByText("Approve: recorded; the run continues by itself")).toBeVisible();
  // The gate resolved in the core: the todo left Blocked.
  await expect(page.locator(`[data-lane="blocked"] [data-todo-id="${seeded.pay.id}"]`)).toHaveCount(0);

  // An operator by keyboard: move "Buy pens" down, below "Buy staples".
  const pens = page.locator(`[data-lane="pending"] [data-todo-id="${seeded.pending[0]!.id}"]`);
  await pens.focus();
  for (let i = 0; i < 20 && (await focused(page)) !== 'Move "Buy pens" down'; i++) await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(page.getByText('Moved "Buy pens" down')).toBeVisible();
  const order = page.locator('[data-lane="pending"] article[data-todo-id] h3');
  await expect(order).toContainText(["Buy staples", "Buy pens"]);
  await context.close();
});
