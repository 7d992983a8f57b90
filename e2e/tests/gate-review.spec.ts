// Gate review as the reviewer meets it: the attention queue (the home page) shows the question with its actions;
// the review page shows the screenshot the agent saw with the pending tap drawn on it, the rule that fired and the
// model's own words; the approval is recorded with who made it and the queue empties in another browser live.
import { expect, test } from "@playwright/test";
import sharp from "sharp";
import { uploadBlob } from "@phoneloop/client";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  stack = await startWebStack("gate_review");
});

test.afterAll(async () => {
  await stack?.close();
});

/** A phone screen: a white page with a green "Pay" button across its lower part (elements in 0–1000 units). */
async function screenPng(): Promise<Buffer> {
  const button = await sharp({ create: { width: 288, height: 51, channels: 3, background: "#1f7a4d" } }).png().toBuffer();
  return sharp({ create: { width: 360, height: 640, channels: 3, background: "#ffffff" } })
    .composite([{ input: button, left: 36, top: 512 }])
    .png()
    .toBuffer();
}

test("a reviewer sees the pending tap on the screenshot, the rule and the model's words, and approves from the page", async ({ browser }, testInfo) => {
  // What the executor records when a payment step needs a person: the observation (screenshot and elements), the run
  // whose checkpoint keeps the pending action with the policy decision, and the gate pointing at the observation.
  const agent = await stack.agentClient("Pixel tab token");
  await agent.agent.register.mutate({ id: "agent_e2e_gate", name: "Pixel tab", kind: "browser", capabilities: [] });
  const goal = await agent.goal.create.mutate({ title: "Hold the table", objective: "Pay the deposit if asked" });
  const [todo] = await agent.todo.add.mutate({ goalId: goal.id, todos: [{ title: "Pay the 20 EUR deposit" }] });
  const claim = await agent.todo.claim.mutate({ agentId: "agent_e2e_gate", todoId: todo!.id, ttlMs: 600_000 });
  expect(claim.claimed).toBe(true);
  const run = await agent.run.start.mutate({ goalId: goal.id, todoId: todo!.id, agentId: "agent_e2e_gate" });
  const png = await screenPng();
  const blob = await uploadBlob(agent, { bytes: png, mime: "image/png" });
  const observation = await agent.evidence.append.mutate({
    goalId: goal.id,
    todoId: todo!.id,
    runId: run.id,
    stepIndex: 0,
    kind: "observation",
    summary: "com.example.booking, 1 elements",
    data: { app: "com.example.booking", screen: { width: 360, height: 640 }, elements: [{ i: 0, text: "Pay 20 EUR", id: "pay", box: [100, 800, 900, 880] }] },
    blobSha256: blob.sha256,
    agentId: "agent_e2e_gate",
    idempotencyKey: `${run.id}:0:observation`,
  });
  const { gate } = await agent.gate.open.mutate({
    goalId: goal.id,
    todoId: todo!.id,
    runId: run.id,
    question: "Allow the agent to tap \"Pay 20 EUR\" in com.example.booking? This is a high-risk action (payment).",
    options: ["approve", "deny"],
    evidenceIds: [observation.evidence.id],
  });
  await agent.run.checkpoint.mutate({
    runId: run.id,
    agentId: "agent_e2e_gate",
    checkpoint: {
      executor: {
        pendingGate: {
          gateId: gate.id,
          stepIndex: 0,
          action: { type: "click", element: "0", intent: "pay the deposit", thought: "The deposit button is the last step before the table is held." },
          kind: "payment",
          tier: "high_risk",
          policy: { ruleId: "payment.button", evidence: ['button text "Pay 20 EUR"'], policyVersion: "rules-7" },
        },
      },
    },
  });

  const reviewerContext = await browser.newContext();
  const operatorContext = await browser.newContext();
  const reviewer = await stack.signIn(reviewerContext, "approver", "Rita Reviewer");
  await stack.signIn(operatorContext, "operator", "Otto Operator");
  const operatorPage = await operatorContext.newPage();
  await operatorPage.goto(stack.webUrl);
  const item = operatorPage.locator(`[data-gate-id="${gate.id}"]`);
  await expect(item).toContainText("Pay 20 EUR");
  // An operator may not answer: no decision buttons for them.
  await expect(item.getByRole("button", { name: "Approve…" })).toHaveCount(0);

  const page = await reviewerContext.newPage();
  await page.goto(stack.webUrl);
  const row = page.locator(`[data-gate-id="${gate.id}"]`);
  await expect(row.getByRole("button", { name: "Approve…" })).toBeVisible();
  await expectAccessible(page, testInfo, "attention");
  await attachScreenshot(page, testInfo, "attention");

  const blobResponse = page.waitForResponse((r) => r.url().includes(`/blobs/${blob.sha256}`));
  await row.getByRole("link", { name: "Review with the screenshot" }).click();
  await expect(page.getByRole("heading", { name: /Pay 20 EUR/ })).toBeVisible();
  const response = await blobResponse;
  expect(response.status()).toBe(200);
  expect(response.headers()["cache-control"]).toContain("immutable");
  const shot = page.getByTestId("gate-screenshot");
  await expect(shot.locator("img")).toHaveJSProperty("complete", true);
  expect(await shot.locator("img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(360);
  // The tap lands on the element's centre: (500, 840) of 1000.
  const tap = shot.locator('[data-mark="tap"] ellipse').first();
  await expect(tap).toHaveAttribute("cx", "500");
  await expect(tap).toHaveAttribute("cy", "840");
  await expect(page.getByRole("region", { name: "What the agent will do" })).toContainText(`Tap "Pay 20 EUR"`);
  await expect(page.locator('[data-field="rule"]')).toContainText("payment.button");
  await expect(page.locator('[data-field="rule"]')).toContainText('button text "Pay 20 EUR"');
  await expect(page.locator('[data-field="model-words"]')).toContainText("The model's words");
  await expect(page.locator('[data-field="model-words"]')).toContainText("The deposit button is the last step");
  await expectAccessible(page, testInfo, "gate-review");
  await attachScreenshot(page, testInfo, "gate-review");

  await page.getByRole("button", { name: "Approve…" }).click();
  await page.getByLabel("Your rationale (recorded with your decision)").fill("The deposit is within the goal's bounds");
  await page.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
  await expect(page.locator('[data-field="decision"]')).toContainText("approve");
  await expect(page.locator('[data-field="decision"]')).toContainText("The deposit is within the goal's bounds");

  const decided = await agent.gate.get.query({ gateId: gate.id });
  expect(decided.status).toBe("approved");
  if (decided.status === "approved") expect(decided.resolvedBy).toBe(reviewer.userId);
  // The operator's queue drops the answered gate without a reload.
  await expect(item).toHaveCount(0);
  await attachScreenshot(page, testInfo, "gate-decided");

  // The todo's card on the board carries the latest screenshot as its thumbnail (the same immutable blob URL).
  await page.goto(`${stack.webUrl}/goals/${goal.id}`);
  const thumb = page.locator(`[data-todo-id="${todo!.id}"] [data-field="thumbnail"]`);
  await expect(thumb).toHaveAttribute("src", new RegExp(`/blobs/${blob.sha256}$`));
  await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(360);

  await reviewerContext.close();
  await operatorContext.close();
});
