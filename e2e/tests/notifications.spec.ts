// Settings → Notifications in the browser: an admin adds a webhook endpoint (a receiver on loopback, which the API
// allows here with allowPrivateTargets), sees its signing secret once, sends a test and reads in the delivery log
// that it was delivered (attempts 1, response 200); the receiver got it signed with that secret. An approver sees
// only "This device" (the push toggle, with what this server supports) and no webhook endpoints. Both pages pass an
// axe scan. (Subscribing this browser for push needs a real push service, which the test machine has not: the push
// path is tested in the API's notifications test, to a loopback push endpoint that decrypts it.)
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { attachScreenshot, expectAccessible, startWebStack, type WebStack } from "../support/web-stack.ts";

let stack: WebStack;
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
const hook = createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString("utf8")));
  req.on("end", () => {
    received.push({ headers: req.headers, body });
    res.writeHead(200).end();
  });
});

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
  stack = await startWebStack("notifications", { notifications: { allowPrivateTargets: true, pollMs: 250, retryBaseMs: 100, timeoutMs: 5_000 } });
});

test.afterAll(async () => {
  await stack?.close();
  await new Promise<void>((r) => hook.close(() => r()));
});

test("an admin adds a webhook endpoint, sees its secret once, sends a test and reads it delivered in the log", async ({ browser }, testInfo) => {
  test.setTimeout(180_000);
  const context = await browser.newContext();
  await stack.signIn(context, "admin", "Nia Notifier");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/settings/notifications`);
  await expect(page.getByRole("heading", { name: "Notifications", level: 1 })).toBeVisible();
  await expect(page.getByText("No endpoint yet.")).toBeVisible();
  await expectAccessible(page, testInfo, "notifications-empty");

  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/phoneloop`;
  await page.getByLabel("Endpoint URL").fill(url);
  await page.getByLabel("Format").selectOption("generic");
  await page.getByLabel("A run ended").check();
  await page.getByRole("button", { name: "Add the endpoint" }).click();
  const secretBox = page.getByRole("status").filter({ hasText: "shown only now" });
  await expect(secretBox).toBeVisible();
  const secret = (await secretBox.locator("code").textContent())!;
  expect(secret).toMatch(/^whsec_/);
  await expect(page.getByRole("list", { name: "Webhook endpoints" })).toContainText(url);

  await page.getByRole("button", { name: /^Send test to 127\.0\.0\.1/ }).click();
  const row = page.getByRole("table", { name: "Last deliveries" }).getByRole("row").filter({ hasText: "A test notification" });
  await expect(row).toContainText("delivered", { timeout: 20_000 });
  await expect(row).toContainText("200");
  await expectAccessible(page, testInfo, "notifications-delivered");
  await attachScreenshot(page, testInfo, "notifications");

  expect(received).toHaveLength(1);
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(received[0]!.headers["x-phoneloop-signature"]))!;
  expect(createHmac("sha256", secret).update(`${t}.${received[0]!.body}`).digest("hex")).toBe(v1);
  expect(JSON.parse(received[0]!.body)).toMatchObject({ test: true, url: `${stack.webUrl}/settings/notifications` });

  // Gone after a reload: the secret is never shown again.
  await page.reload();
  await expect(page.getByRole("list", { name: "Webhook endpoints" })).toContainText(url);
  await expect(page.getByText(secret)).toHaveCount(0);
});

test("an approver sees this device's notifications and no webhook endpoints", async ({ browser }, testInfo) => {
  const context = await browser.newContext();
  await stack.signIn(context, "approver", "Abe Approver");
  const page = await context.newPage();
  await page.goto(`${stack.webUrl}/settings/notifications`);
  await expect(page.getByRole("heading", { name: "This device" })).toBeVisible();
  await expect(page.getByText("Web Push is not set up on this server")).toBeVisible();
  await expect(page.getByText("Only an admin of this workspace adds webhook endpoints")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Webhook endpoints" })).toHaveCount(0);
  await expectAccessible(page, testInfo, "notifications-approver");
});
