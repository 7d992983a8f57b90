// Take over and hand back, as a person meets it: the demo phone (the virtual phone over WebSocket, as `npm start`
// runs it) runs the pack's login task in the tab, the models a scripted OpenAI-compatible server: the executor opens
// Loop's login form, types the username, and — not given the password — asks a person to take over. From the
// Attention page the person opens the run's live view and takes over: the mirror is the phone — a click on the
// mirror's password field lands on the phone's (the pointer mapped to device pixels at the page's zoom), the password
// is typed as a secret (the field is a password field), Back hides the keyboard, and Log in is tapped from the
// element list with the keyboard. Handed back, the agent sees the signed-in screen and finishes; the task's
// evaluator scores 1. The replay shows the person's steps in their colour with their name, the password masked
// there and in the share link's replay (opened at 390×844 with touch). Axe scans are clean.
import { randomBytes } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { fencedRegions } from "@phoneloop/agent";
import { act, planOf, startScriptedModelServer, type RecordedRequest, type ScriptedModelServer, type ScriptedReply } from "@phoneloop/agent/testing";
import { createApiClient } from "@phoneloop/client";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { attachScreenshot, expectAccessible, freePort, startWebStack, type WebStack } from "../support/web-stack.ts";

/** The pack's login task (its evaluator: logged in, with the task's username). */
const TASK = "social_login";
const USER = "agent_tester";
/** Only the person knows it: the goal does not say it, the model is never shown it. */
const PASSWORD = "hunter22-only-a-person";

interface Drawn {
  resId: string;
  text: string;
  bounds: [number, number, number, number];
  children: Drawn[];
}
const findDrawn = (n: Drawn, match: (d: Drawn) => boolean): Drawn | undefined => (match(n) ? n : n.children.map((c) => findDrawn(c, match)).find(Boolean));
const drawn = (id: string) => findDrawn(phone.engine.runtime.layout().dumpRoot as Drawn, (d) => d.resId.endsWith(`:id/${id}`) || d.resId === id);

let stack: WebStack;
let phone: VirtualPhone;
let models: ScriptedModelServer;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(600_000);
  const [webPort, controlPort] = [await freePort(), await freePort()];
  const controlToken = randomBytes(32).toString("base64url");
  phone = await startVirtualPhone({ controlPort, controlToken, allowOrigins: [`http://127.0.0.1:${webPort}`] });
  stack = await startWebStack("web_takeover", { webPort, webEnv: { DEMO_PHONE_URL: phone.wsUrl }, demoPhone: { url: phone.controlUrl, token: controlToken } });
});

test.afterAll(async () => {
  await models?.stop();
  await phone?.stop();
  await stack?.close();
});

/** The element index the screen listing gives the line with `id=<id>` (the id quoted or not). */
function indexOfId(req: RecordedRequest, id: string): string | undefined {
  const screen = fencedRegions(req.lastUserText).at(-1) ?? "";
  for (const line of screen.split("\n")) if (new RegExp(`id="?(?:[\\w.]+:id/)?${id}"?(\\s|$)`).test(line)) return /^\[(\d+)\]/.exec(line)?.[1];
  return undefined;
}

/** Loop → Profile → Log in → the username; then a takeover for the password; done once the phone is signed in. */
function executor() {
  let typedUser = false;
  return (req: RecordedRequest): ScriptedReply => {
    if (phone.engine.evaluate(TASK).score === 1) return act({ type: "status", status: "complete", summary: `Logged in as ${USER}.` });
    for (const id of ["update_later", "login_wall_not_now", "follow_not_now"]) {
      const i = indexOfId(req, id);
      if (i) return act({ type: "click", element: i, intent: "dismiss the popup" });
    }
    const user = indexOfId(req, "username");
    if (user && !typedUser) {
      typedUser = true;
      return act({ type: "click_then_type", element: user, text: USER, intent: "enter the username" });
    }
    if (user) return act({ type: "ask_takeover", reason: "login", question: "Please type the password and log in; I was not given it.", intent: "hand the sign-in to a person" });
    const profileLogin = indexOfId(req, "profile_login");
    if (profileLogin) return act({ type: "click", element: profileLogin, intent: "open the login form" });
    const profile = indexOfId(req, "nav_profile");
    if (profile) return act({ type: "click", element: profile, intent: "open the profile" });
    return act({ type: "open_app", app: "com.phoneloop.social", intent: "open Loop" });
  };
}

/** Clicks the mirror where the phone's element `id` is: its bounds in device pixels scaled to the mirror's box. */
async function clickOnMirror(page: Page, id: string): Promise<void> {
  const el = drawn(id);
  expect(el, `the phone shows ${id}`).toBeTruthy();
  const [l, t, r, b] = el!.bounds;
  const mirror = page.getByTestId("takeover").getByTestId("mirror-frame");
  // A frame still loading has no size yet (a click there would be at NaN): wait for one that is drawn.
  await expect.poll(() => mirror.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0 && img.naturalHeight > 0)).toBe(true);
  const box = (await mirror.boundingBox())!;
  const size = await mirror.evaluate((img: HTMLImageElement) => ({ w: img.naturalWidth, h: img.naturalHeight }));
  await page.mouse.click(box.x + (((l + r) / 2) * box.width) / size.w, box.y + (((t + b) / 2) * box.height) / size.h);
}

test("the agent asks for a takeover at the login; a person signs in on the mirror, hands back, and the run completes", async ({ browser }, testInfo) => {
  test.setTimeout(900_000);
  phone.engine.startTask(TASK);
  models = await startScriptedModelServer({
    rules: [
      { match: (q) => q.model === "planner-model", replies: [planOf([{ id: "login", title: "Log in to Loop" }])], repeatLast: true },
      { match: (q) => q.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Logged in, with a person's help for the password." }) }], repeatLast: true },
      { match: (q) => q.model === "executor-model", replies: [executor()], repeatLast: true },
    ],
  });
  const admin = createApiClient({ apiUrl: stack.api.url, auth: { kind: "cookie", cookie: stack.admin.headers.cookie! } });
  await admin.modelSettings.set.mutate({ baseUrl: models.baseURL, apiKey: "scripted", models: { planner: "planner-model", executor: "executor-model", summarizer: "summarizer-model" }, microUsdPerInputToken: 2, microUsdPerOutputToken: 8 });
  await admin.goal.create.mutate({ title: "Sign in to Loop", objective: `Log in to Loop as ${USER}; a person types the password.` });

  const context = await browser.newContext();
  const person = { name: "Tess Taker" };
  await stack.signIn(context, "operator", person.name);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));

  await page.goto(`${stack.webUrl}/devices`);
  await page.getByRole("button", { name: "Use the demo phone" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Connected to/ })).toBeVisible({ timeout: 120_000 });
  await page.getByRole("link", { name: "Sign in to Loop" }).click();
  await page.getByRole("button", { name: "Start run" }).click();

  // The agent's ask shows on the Attention page, in words, with a Take over that opens the run's live view
  // (client-side links keep the tab's run going).
  // Opening the login form is a credentials step the policy gates: an admin approves it (as from their own phone),
  // until the agent's takeover ask waits.
  await expect
    .poll(
      async () => {
        const queue = (await admin.board.attention.query({})).items;
        for (const g of queue) {
          if (g.kind === "gate_waiting" && g.gateKind === "approval") await admin.gate.resolve.mutate({ gateId: g.gateId, decision: "approve", rationale: "The goal asks to log in." });
        }
        return queue.some((g) => g.kind === "gate_waiting" && g.gateKind === "takeover");
      },
      { timeout: 180_000, intervals: [500] },
    )
    .toBe(true);
  await page.getByRole("navigation").getByRole("link", { name: "Attention" }).click();
  const ask = page.locator('[data-kind="takeover"]');
  await expect(ask).toContainText("The agent asks you to take over:");
  await expect(ask).toContainText("a sign-in only you can do");
  await expectAccessible(page, testInfo, "attention-takeover-ask");
  await ask.getByRole("link", { name: "Take over" }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);

  const panel = page.getByTestId("takeover");
  await panel.getByRole("button", { name: "Take over" }).click();
  await expect(panel.getByTestId("mirror-frame")).toBeVisible({ timeout: 60_000 });
  const steps = panel.getByTestId("takeover-steps").getByRole("listitem");

  // A click on the mirror's password field focuses the phone's; the text box then types a secret.
  await clickOnMirror(page, "password");
  await expect(steps).toHaveCount(1, { timeout: 30_000 });
  const text = panel.getByLabel("Type into the password field (kept secret)");
  await expect(text).toHaveAttribute("type", "password", { timeout: 30_000 });
  await text.fill(PASSWORD);
  await panel.getByRole("button", { name: "Type it" }).click();
  await expect(steps).toHaveCount(2, { timeout: 30_000 });
  await expect(steps.nth(1)).toContainText("(secret)");
  // What the person typed reached the phone's field, through the tab's own connection.
  expect(phone.engine.runtime.state.apps["social"]!.vars["password"]).toBe(PASSWORD);
  // The keyboard covers Log in: Back hides it; then Log in is tapped from the element list, by keyboard.
  await panel.getByRole("button", { name: "Back", exact: true }).click();
  await expect(steps).toHaveCount(3, { timeout: 30_000 });
  const list = panel.getByLabel("Element on the screen");
  await expect(list.locator("option", { hasText: "Log in" })).toHaveCount(1, { timeout: 30_000 });
  await list.focus();
  await list.selectOption({ label: "Log in" });
  await panel.getByRole("button", { name: "Tap it" }).press("Enter");
  await expect(steps).toHaveCount(4, { timeout: 30_000 });
  await expect.poll(() => phone.engine.evaluate(TASK).score).toBe(1);
  await expectAccessible(page, testInfo, "taken-over");
  await attachScreenshot(page, testInfo, "taken-over");

  await panel.getByLabel("Note for the agent (optional)").fill("Logged in with the test account");
  await panel.getByRole("button", { name: "Hand back" }).click();
  await expect(panel).toContainText("Handed back");

  // The agent goes on from the signed-in screen and finishes; the phone's own evaluator judges the task.
  await page.getByRole("navigation").getByRole("link", { name: "Devices" }).click();
  await expect(page.getByTestId("run-outcome")).toHaveAttribute("data-status", "completed", { timeout: 180_000 });
  const evaluation = phone.engine.evaluate(TASK);
  expect(evaluation.reason).toBe(`all ${evaluation.checks.length} checks passed`);
  expect(evaluation.score).toBe(1);
  expect(models.requests.map((q) => q.text).join("\n"), "the model is never shown the password").not.toContain(PASSWORD);

  // The replay: the person's four steps in their colour with their name; the password nowhere, masked where typed.
  await page.getByRole("link", { name: "Open the run's steps and replay" }).click();
  const timeline = page.getByRole("navigation", { name: "Timeline" });
  const personSteps = timeline.locator('[data-actor="member"]');
  await expect(personSteps).toHaveCount(4, { timeout: 30_000 });
  await expect(personSteps.first()).toContainText(person.name);
  const masked = timeline.locator('[data-actor="member"]', { hasText: "(secret, masked)" });
  await expect(masked).toHaveCount(1);
  await masked.click();
  await expect(page.getByTestId("step-person")).toContainText(`Done by ${person.name}`);
  await expect(page.locator("body")).not.toContainText(PASSWORD);
  await expectAccessible(page, testInfo, "takeover-replay");
  await attachScreenshot(page, testInfo, "takeover-replay");

  await page.getByRole("button", { name: "Share" }).click();
  const dialog = page.getByTestId("share-dialog");
  await dialog.getByRole("button", { name: /Create the link/ }).click();
  const shareLink = await dialog.getByLabel("Share link").inputValue();
  expect(errors).toEqual([]);
  await context.close();

  // The share link's replay, in a fresh browser at a phone's size with touch: the person's steps, the password masked.
  const visitorContext = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const visitor = await visitorContext.newPage();
  expect((await visitor.goto(shareLink))?.status()).toBe(200);
  const shared = visitor.getByRole("navigation", { name: "Timeline" }).locator('[data-actor="member"]');
  await expect(shared).toHaveCount(4);
  await shared.filter({ hasText: "(secret, masked)" }).tap();
  await expect(visitor.getByTestId("step-person")).toContainText(`Done by ${person.name}`);
  await expect(visitor.locator("body")).not.toContainText(PASSWORD);
  await expectAccessible(visitor, testInfo, "takeover-shared-replay");
  await visitorContext.close();
});
