// Approval rules as a team meets them in the browser: an admin sets on Settings → Approval rules that money needs
// two approvers and that the run's starter may not be one; a money gate of that admin's run then stays open after
// the first approval (the Attention page and the gate page both say "1 of 2 approvals" and who), the starter's own
// approval is refused with the reason, and a second approver resolves it. A destructive gate nobody answers in time
// is escalated by the API's periodic pass: the page says so, an approver has no buttons, an admin answers it. The
// pages pass an axe scan.
import { expect, test } from "@playwright/test";
import { createApiClient } from "@phoneloop/client";
import { manualClock } from "@phoneloop/state/domain";
import { agentTokenHeaders } from "../../apps/api/src/auth/testing.ts";
import { startReaper } from "../../apps/api/src/reaper.ts";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  stack = await startWebStack("approval_rules");
});

test.afterAll(async () => {
  await stack?.close();
});

test("money needs two approvers, not the starter: one approval leaves the gate open, the starter is refused, a second approver resolves it", async ({ browser }, testInfo) => {
  test.setTimeout(180_000);
  const adminContext = await browser.newContext();
  const starter = await stack.signIn(adminContext, "admin", "Sam Starter");
  const admin = await adminContext.newPage();
  await admin.goto(`${stack.webUrl}/settings/approval-rules`);
  const money = admin.locator('[data-category="money"]');
  await expect(money.getByRole("heading", { name: "money" })).toBeVisible();
  await expect(money).toContainText("Not saved yet");
  await expectAccessible(admin, testInfo, "approval-rules");
  await money.getByLabel("Approvals needed").fill("2");
  await money.getByLabel("The run's starter may approve").uncheck();
  await money.getByRole("button", { name: "Save the money rule" }).click();
  await expect(money).toContainText(`by ${starter.userId}`);
  await attachScreenshot(admin, testInfo, "approval-rules");

  // The starter's tab runs the goal: its agent token is the starter's, so the run is theirs.
  const { token } = await agentTokenHeaders(stack.db, { workspaceId: stack.workspaceId, issuedBy: starter.userId, name: "Sam's tab" });
  const agent = createApiClient({ apiUrl: stack.api.url, auth: { kind: "token", token } });
  await agent.agent.register.mutate({ id: "agent_e2e_rules", name: "Sam's tab", kind: "browser", capabilities: [] });
  const goal = await agent.goal.create.mutate({ title: "Order printer paper", objective: "Buy two packs of A4 paper in the shop app" });
  const [todo] = await agent.todo.add.mutate({ goalId: goal.id, todos: [{ title: "Pay for the paper" }] });
  const claim = await agent.todo.claim.mutate({ agentId: "agent_e2e_rules", todoId: todo!.id, ttlMs: 600_000 });
  expect(claim.claimed).toBe(true);
  const run = await agent.run.start.mutate({ goalId: goal.id, todoId: todo!.id, agentId: "agent_e2e_rules" });
  const { gate } = await agent.gate.open.mutate({
    goalId: goal.id,
    todoId: todo!.id,
    runId: run.id,
    question: "Tap Pay 21.00 USD in the shop app?",
    options: ["approve", "deny"],
    kind: "approval",
    tier: "high_risk",
    action: { type: "click", element: "7" },
    policy: { ruleId: "pane.amount", evidence: ['"Pay" confirms a screen showing 21.00 USD'], policyVersion: "builtin-e2e", kind: "money", approvalKey: "money|com.shop|pay_button" },
  });
  expect(gate).toMatchObject({ category: "money", approvalsNeeded: 2, starterMayApprove: false });

  // The first approver, on the Attention page.
  const beaContext = await browser.newContext();
  const bea = await stack.signIn(beaContext, "approver", "Bea Approver");
  const attention = await beaContext.newPage();
  await attention.goto(stack.webUrl);
  const row = attention.locator(`[data-gate-id="${gate.id}"]`);
  await expect(row).toContainText("Tap Pay 21.00 USD");
  await expect(row.locator('[data-field="approval-count"]')).toContainText("0 of 2 approvals");
  await row.getByRole("button", { name: "Approve…" }).click();
  await attention.getByLabel("Your rationale (recorded with your decision)").fill("Paper is on this month's budget");
  await attention.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
  await expect(row.locator('[data-field="approval-count"]')).toContainText("1 of 2 approvals: you");
  await expect(row).toContainText("1 more needed from a different person");
  expect((await agent.gate.get.query({ gateId: gate.id })).status).toBe("open");
  await expectAccessible(attention, testInfo, "attention-one-of-two");
  await attachScreenshot(attention, testInfo, "attention-one-of-two");

  // The starter may not be the second approver: the page says why, and the gate stays open.
  await admin.goto(`${stack.webUrl}/gates/${gate.id}`);
  await expect(admin.locator('[data-field="approval-count"]')).toContainText(`1 of 2 approvals: ${bea.userId}`);
  await expect(admin.locator('[data-field="approvals"]')).toContainText("The person who started this run cannot approve it");
  await admin.getByRole("button", { name: "Approve…" }).click();
  await admin.getByLabel("Your rationale (recorded with your decision)").fill("It is my order");
  await admin.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
  await expect(admin.getByText("someone else's approval")).toBeVisible();
  await admin.keyboard.press("Escape");
  expect((await agent.gate.get.query({ gateId: gate.id })).status).toBe("open");

  // A second approver resolves it on the gate page; the decision names both.
  const cyContext = await browser.newContext();
  const cy = await stack.signIn(cyContext, "approver", "Cy Approver");
  const page = await cyContext.newPage();
  await page.goto(`${stack.webUrl}/gates/${gate.id}`);
  await expect(page.locator('[data-field="approval-count"]')).toContainText("1 of 2 approvals");
  await expectAccessible(page, testInfo, "gate-one-of-two");
  await page.getByRole("button", { name: "Approve…" }).click();
  await page.getByLabel("Your rationale (recorded with your decision)").fill("Agreed, the usual order");
  await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
  await expect(page.locator('[data-field="decision"]')).toContainText(`by ${cy.userId}`);
  await expect(page.locator('[data-field="decisions"]')).toContainText(`approve by ${bea.userId}`);
  await expect(page.locator('[data-field="decisions"]')).toContainText(`approve by ${cy.userId}`);
  const decided = await agent.gate.get.query({ gateId: gate.id });
  expect(decided).toMatchObject({ status: "approved", approvals: { approvedBy: [bea.userId, cy.userId] } });
  // The Attention page drops it without a reload.
  await expect(row).toHaveCount(0);
  await attachScreenshot(page, testInfo, "gate-approved");

  await Promise.all([adminContext.close(), beaContext.close(), cyContext.close()]);
});

test("a destructive gate nobody answers in time is escalated to the admins: the page says so and only an admin answers it", async ({ browser }, testInfo) => {
  test.setTimeout(180_000);
  const adminContext = await browser.newContext();
  await stack.signIn(adminContext, "admin", "Ada Admin");
  const admin = await adminContext.newPage();
  await admin.goto(`${stack.webUrl}/settings/approval-rules`);
  const destructive = admin.locator('[data-category="destructive"]');
  await destructive.getByLabel("Time to answer (minutes, empty: no limit)").fill("1");
  await destructive.getByLabel("When nobody answers in time").selectOption("escalate");
  await destructive.getByRole("button", { name: "Save the destructive rule" }).click();
  await expect(destructive).toContainText("Saved");

  const agent = await stack.agentClient("Notes tab token");
  const goal = await agent.goal.create.mutate({ title: "Tidy the notes", objective: "Delete the empty notes in the notes app" });
  const { gate } = await agent.gate.open.mutate({
    goalId: goal.id,
    question: "Tap Delete note in the notes app?",
    options: ["approve", "deny"],
    kind: "approval",
    tier: "high_risk",
    action: { type: "click", element: "3" },
    policy: { ruleId: "pane.inherit", evidence: ['"Delete" confirms "Delete this note?"'], policyVersion: "builtin-e2e", kind: "destructive", approvalKey: "destructive|com.notes|delete" },
  });
  expect(gate).toMatchObject({ category: "destructive", afterExpiry: "escalate" });

  // The API's periodic pass, an hour on: the gate's minute is over.
  const reaper = startReaper(stack.db, { intervalMs: 3_600_000, agentStaleMs: 3_600_000, ctx: { clock: manualClock(Date.now() + 3_600_000) } });
  try {
    await reaper.tick();
  } finally {
    await reaper.close();
  }

  const approverContext = await browser.newContext();
  await stack.signIn(approverContext, "approver", "Abe Approver");
  const page = await approverContext.newPage();
  await page.goto(`${stack.webUrl}/gates/${gate.id}`);
  await expect(page.locator('[data-field="escalated"]')).toContainText("only an admin may answer it now");
  await expect(page.getByRole("button", { name: "Approve…" })).toHaveCount(0);
  await expect(page.getByText("An admin answers this gate")).toBeVisible();
  await expectAccessible(page, testInfo, "gate-escalated");
  await attachScreenshot(page, testInfo, "gate-escalated");

  await admin.goto(`${stack.webUrl}/gates/${gate.id}`);
  await expect(admin.locator('[data-field="escalated"]')).toBeVisible();
  await admin.getByRole("button", { name: "Deny…" }).click();
  await admin.getByLabel("Your rationale (recorded with your decision)").fill("Keep the notes until the owner is back");
  await admin.getByRole("dialog").getByRole("button", { name: "Deny" }).click();
  await expect(admin.locator('[data-field="decision"]')).toContainText("deny");
  expect((await agent.gate.get.query({ gateId: gate.id })).status).toBe("denied");
  await Promise.all([adminContext.close(), approverContext.close()]);
});
