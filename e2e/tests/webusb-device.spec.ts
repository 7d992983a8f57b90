// Every Device method through the real @yume-chan/adb-daemon-webusb code in Chromium, over the WebUSB stand-in
// bridged to a virtual phone; plus the failure paths a user meets when connecting.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { hammingDistance } from "@phoneloop/device";
import { installWebUsbStandIn, type WebUsbStandInConfig } from "@phoneloop/device/testing/webusb-stand-in";
// window.harness is typed by the page itself.
import type {} from "../harness/page.ts";

interface PhoneInfo {
  id: string;
  serial: string;
  wsUrl: string;
  controlUrl: string;
  controlToken: string;
}

/**
 * The page makes its ADB key in the browser at connect time, so no phone can list it beforehand: phones for tests
 * of something else allow every key (`trust: "any-key"`); the prompt's own tests pass `trust: "ask"`.
 */
async function startPhone(request: APIRequestContext, opts: Record<string, unknown> = {}): Promise<PhoneInfo> {
  const res = await request.post("/phones", { data: { scenario: "social", seed: 1, trust: "any-key", ...opts } });
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()) as PhoneInfo;
}

const bearer = (phone: PhoneInfo) => ({ authorization: `Bearer ${phone.controlToken}` });

async function phoneState(request: APIRequestContext, phone: PhoneInfo) {
  const res = await request.get(`${phone.controlUrl}/state`, { headers: bearer(phone) });
  return (await res.json()) as { screen: string; popup: string | null; loading: boolean; ime: string; foreground: string; actionCount: number; apps: { social: { vars: { searchDraft: string; query: string } } } };
}

/** Taps "Allow" on the phone once its prompt is up (the key reaches the phone just after the page says so). */
async function allowOnPhone(request: APIRequestContext, phone: PhoneInfo) {
  await expect
    .poll(async () => ((await (await request.get(`${phone.controlUrl}/auth`, { headers: bearer(phone) })).json()) as { pending: unknown[] }).pending.length)
    .toBeGreaterThan(0);
  const res = await request.post(`${phone.controlUrl}/auth/accept`, { data: {}, headers: bearer(phone) });
  expect(((await res.json()) as { answered: number }).answered).toBe(1);
}

async function dismissPopups(page: Page) {
  for (let i = 0; i < 3; i++) {
    const tree = (await page.evaluate(() => window.harness.uiTree())) as Node;
    const button = ["update_later", "login_wall_not_now", "follow_not_now"].map((id) => byId(tree, id)).find(Boolean);
    if (!button) return;
    const p = center(button.bounds);
    await page.evaluate(({ x, y }) => window.harness.tap(x, y), p);
  }
}

async function openHarness(page: Page, config: WebUsbStandInConfig, query = "") {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await installWebUsbStandIn(page, config);
  await page.goto(`/${query}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
  return errors;
}

/** Clicks Connect (or Retry); by default waits until the attempt has succeeded or failed. */
async function connect(page: Page, wait = true) {
  await page.getByRole("button", { name: /Connect phone|Retry/ }).click();
  if (wait) await page.evaluate(() => window.harness.connected());
}



const center = (b: { left: number; top: number; right: number; bottom: number }) => ({ x: Math.round((b.left + b.right) / 2), y: Math.round((b.top + b.bottom) / 2) });

type Node = { text: string; resourceId: string; contentDesc: string; bounds: { left: number; top: number; right: number; bottom: number }; children: Node[] };
const flat = (n: Node): Node[] => [n, ...n.children.flatMap(flat)];
const byId = (root: Node, id: string) => flat(root).find((n) => n.resourceId.endsWith(`:id/${id}`));

test.describe("WebUSB", () => {
  let phone: PhoneInfo;
  test.beforeEach(async ({ request }) => {
    phone = await startPhone(request);
  });
  test.afterEach(async ({ request }) => {
    await request.delete(`/phones/${phone.id}`);
  });

  test("every Device method works through the stand-in with USB framing", async ({ page, request }) => {
    const errors = await openHarness(page, { wsUrl: phone.wsUrl });
    await connect(page);
    await expect(page.getByRole("status")).toHaveText(/Connected to/);
    // a new browser key is always sent for authorization; this phone (trust "any-key") allows it at once
    expect(await page.evaluate(() => window.harness.statusLog.map((s) => s.kind))).toEqual(["requesting_device", "opening", "handshaking", "waiting_for_authorization", "connected"]);

    const info = (await page.evaluate(() => window.harness.info())) as { serial: string; model: string; screen: { width: number; height: number; density: number }; battery: { level: number } | null };
    expect(info.serial).toBe(phone.serial);
    expect(info.model).toBe("PhoneLoop Virtual");
    expect(info.screen).toEqual({ width: 1080, height: 2400, density: 420 });
    expect(info.battery?.level).toBeGreaterThan(0);

    const shot = (await page.evaluate(() => window.harness.screenshot())) as { width: number; height: number; bytes: number; signature: number[]; phash: string };
    expect(shot).toMatchObject({ width: 1080, height: 2400 });
    expect(shot.signature).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(shot.bytes).toBeGreaterThan(10_000);

    let tree = (await page.evaluate(() => window.harness.uiTree())) as Node;
    expect(byId(tree, "update_later")?.text).toBe("Later");
    expect(await page.evaluate(() => window.harness.foreground())).toEqual({ packageName: "com.phoneloop.social", activity: "com.phoneloop.social.MainActivity" });

    // tap: dismiss the update dialog, open search
    let p = center(byId(tree, "update_later")!.bounds);
    await page.evaluate(({ x, y }) => window.harness.tap(x, y), p);
    expect((await phoneState(request, phone)).popup).toBeNull();
    tree = (await page.evaluate(() => window.harness.uiTree())) as Node;
    p = center(byId(tree, "action_search")!.bounds);
    await page.evaluate(({ x, y }) => window.harness.tap(x, y), p);

    // typeText: ASCII via input text, Chinese via ADBKeyboard (the user's IME comes back)
    const imeBefore = (await phoneState(request, phone)).ime;
    await page.evaluate(() => window.harness.typeText("it's 100% ok "));
    await page.evaluate(() => window.harness.typeText("手机智能体"));
    let st = await phoneState(request, phone);
    expect(st.apps.social.vars.searchDraft).toBe("it's 100% ok 手机智能体");
    expect(st.ime).toBe(imeBefore);
    for (let i = 0; i < 2; i++) await page.evaluate(() => window.harness.key("delete"));
    expect((await phoneState(request, phone)).apps.social.vars.searchDraft).toBe("it's 100% ok 手机智");

    await dismissPopups(page); // the social app's login wall shows up after nine actions
    // key(enter) submits → 700 ms skeleton → waitForStable returns once the results are in
    await page.evaluate(() => window.harness.key("enter"));
    st = await phoneState(request, phone);
    expect(st.screen, JSON.stringify(st).slice(0, 600)).toBe("results");
    expect(st.loading).toBe(true);
    const stable = (await page.evaluate(() => window.harness.waitForStable(5_000))) as { stable: boolean; frames: number; phash: string };
    expect(stable.stable).toBe(true);
    // The settled frame comes back with its pHash: it is the screen a new screenshot shows (the status-bar clock may tick).
    expect(hammingDistance(stable.phash, (await page.evaluate(() => window.harness.screenshot())).phash)).toBeLessThanOrEqual(2);
    st = await phoneState(request, phone);
    expect(st.screen).toBe("results");
    expect(st.loading).toBe(false);

    // back, then the feed: scroll / swipe / drag move the list
    await page.evaluate(() => window.harness.key("back"));
    await page.evaluate(() => window.harness.openDeeplink("loop://home"));
    await dismissPopups(page);
    expect((await phoneState(request, phone)).screen).toBe("feed");
    const texts = async () => (await dismissPopups(page), flat((await page.evaluate(() => window.harness.uiTree())) as Node).map((n) => n.text).filter(Boolean).join("|"));
    const top = await texts();
    await page.evaluate(() => window.harness.scroll("down"));
    expect(await texts()).not.toBe(top);
    await page.evaluate(() => window.harness.scroll("up"));
    expect(await texts()).toBe(top);
    await page.evaluate(() => window.harness.swipe(540, 1800, 540, 900, 300));
    expect(await texts()).not.toBe(top);
    await page.evaluate(() => window.harness.drag(540, 900, 540, 1800, 400));
    expect(await texts()).toBe(top);

    // longPress opens a post; doubleTap lands two taps
    tree = (await page.evaluate(() => window.harness.uiTree())) as Node;
    const post = flat(tree).find((n) => n.text.startsWith("Shipped our offline-first"))!;
    p = center(post.bounds);
    await page.evaluate(({ x, y }) => window.harness.longPress(x, y, 600), p);
    expect((await phoneState(request, phone)).screen).toBe("post");
    await dismissPopups(page);
    tree = (await page.evaluate(() => window.harness.uiTree())) as Node;
    const before = (await phoneState(request, phone)).actionCount;
    p = center(byId(tree, "like")!.bounds);
    await page.evaluate(({ x, y }) => window.harness.doubleTap(x, y), p);
    expect((await phoneState(request, phone)).actionCount).toBe(before + 2);

    // home, openApp, openDeeplink
    await page.evaluate(() => window.harness.key("home"));
    expect(((await page.evaluate(() => window.harness.foreground())) as { packageName: string }).packageName).toBe("com.google.android.apps.nexuslauncher");
    await page.evaluate(() => window.harness.openApp("com.phoneloop.social"));
    expect(((await page.evaluate(() => window.harness.foreground())) as { packageName: string }).packageName).toBe("com.phoneloop.social");
    await page.evaluate(() => window.harness.openDeeplink("loop://search?q=mobile%20AI%20agents"));
    expect((await phoneState(request, phone)).screen).toBe("results");

    // USB framing held: header and payload were separate transfers, zero-length packets where due
    const stats = (await page.evaluate(() => (window as unknown as { __webUsbStandIn: { stats: unknown } }).__webUsbStandIn.stats)) as { framingErrors: string[]; transfersIn: number; transfersOut: number; zeroLengthIn: number; prompts: number };
    expect(stats.framingErrors).toEqual([]);
    expect(stats.transfersIn).toBeGreaterThan(100);
    expect(stats.zeroLengthIn).toBeGreaterThan(0);
    expect(stats.prompts).toBe(1);

    await page.evaluate(() => window.harness.close());
    expect(await page.evaluate(() => window.harness.unhandled)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test("a phone already granted reconnects without a prompt, and the browser key is remembered", async ({ page, request, context }) => {
    await request.delete(`/phones/${phone.id}`);
    phone = await startPhone(request, { trust: "ask" });
    await openHarness(page, { wsUrl: phone.wsUrl, granted: false });
    await connect(page, false);
    // First time: the phone asks "Allow USB debugging?" and the page says so.
    await expect(page.getByRole("status")).toHaveText(/tap "Allow"/);
    await allowOnPhone(request, phone);
    await page.evaluate(() => window.harness.connected());
    expect(await page.getByRole("alert").textContent()).toBe("");
    await expect(page.getByRole("status")).toHaveText(/Connected to/);
    expect(await page.evaluate(() => (window as unknown as { __webUsbStandIn: { stats: { prompts: number } } }).__webUsbStandIn.stats.prompts)).toBe(1);
    await page.evaluate(() => window.harness.close());

    // Same browser profile, phone already granted: no chooser, no authorization prompt (key from IndexedDB).
    const again = await context.newPage();
    await openHarness(again, { wsUrl: phone.wsUrl, granted: true });
    await connect(again);
    await expect(again.getByRole("status")).toHaveText(/Connected to/);
    const kinds = await again.evaluate(() => window.harness.statusLog.map((s) => s.kind));
    expect(kinds).not.toContain("requesting_device");
    expect(kinds).not.toContain("waiting_for_authorization");
    expect(await again.evaluate(() => (window as unknown as { __webUsbStandIn: { stats: { prompts: number } } }).__webUsbStandIn.stats.prompts)).toBe(0);
    expect(((await again.evaluate(() => window.harness.info())) as { serial: string }).serial).toBe(phone.serial);
  });

  test("an unanswered authorization prompt times out with what to do, and Retry works", async ({ page, request }) => {
    await request.delete(`/phones/${phone.id}`);
    phone = await startPhone(request, { trust: "ask" });
    await openHarness(page, { wsUrl: phone.wsUrl }, "?authTimeoutMs=1500");
    await connect(page);
    const alert = page.getByRole("alert");
    await expect(alert).toHaveAttribute("data-code", "AUTHORIZATION_TIMEOUT");
    await expect(alert).toContainText('tap "Allow"');
    await expect(page.getByRole("button", { name: "Retry" })).toBeVisible();
    // Retry, and this time the user allows it.
    await page.getByRole("button", { name: "Retry" }).click();
    await expect(page.getByRole("status")).toHaveText(/tap "Allow"/);
    await allowOnPhone(request, phone);
    await page.evaluate(() => window.harness.connected());
    await expect(page.getByRole("status")).toHaveText(/Connected to/);
  });

  test("disconnect in the middle of a screenshot: DeviceDisconnected within 2 s, no hang, no unhandled rejection", async ({ page }) => {
    const errors = await openHarness(page, { wsUrl: phone.wsUrl });
    await connect(page);
    await page.evaluate(() => window.harness.info());
    const r = (await page.evaluate(() => window.harness.screenshotThenUnplug(4_096, 2_000))) as {
      screenshot: "hung" | { ok: boolean; name?: string; code?: string; message?: string };
      second: "hung" | { ok: boolean; name?: string };
    };
    expect(r.screenshot).not.toBe("hung");
    expect(r.second).not.toBe("hung");
    expect(r.screenshot).toMatchObject({ ok: false, name: "DeviceDisconnected", code: "DEVICE_DISCONNECTED" });
    expect(r.second).toMatchObject({ ok: false, name: "DeviceDisconnected" });
    await expect(page.getByRole("alert")).toContainText("disconnected");
    const after = (await page.evaluate(() => window.harness.outcome("tap", { x: 1, y: 1 }))) as { ok: boolean; name: string };
    expect(after).toMatchObject({ ok: false, name: "DeviceDisconnected" });
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => window.harness.unhandled)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test("busy: another program holds the phone — the user is told why and how to free it", async ({ page }) => {
    await openHarness(page, { wsUrl: phone.wsUrl, variant: "busy" });
    await connect(page);
    const alert = page.getByRole("alert");
    await expect(alert).toHaveAttribute("data-code", "DEVICE_BUSY");
    await expect(alert).toContainText("Another program is using this phone");
    await expect(alert).toContainText("adb kill-server");
    await expect(alert).toContainText("Android Studio");
    await expect(alert).toContainText("scrcpy");
    await expect(page.getByRole("button", { name: "Retry" })).toBeVisible();
  });

  test("Linux permission denied names the udev fix", async ({ page }) => {
    await openHarness(page, { wsUrl: phone.wsUrl, variant: "permission-denied" });
    await connect(page);
    const alert = page.getByRole("alert");
    await expect(alert).toHaveAttribute("data-code", "USB_PERMISSION_DENIED");
    await expect(alert).toContainText("udev");
    await expect(alert).toContainText("plugdev");
  });

  test("a browser without WebUSB is told which browser to use", async ({ page }) => {
    await page.addInitScript(() => Object.defineProperty(Navigator.prototype, "usb", { configurable: true, get: () => undefined }));
    await page.goto("/");
    await connect(page);
    const alert = page.getByRole("alert");
    await expect(alert).toHaveAttribute("data-code", "NO_WEBUSB");
    await expect(alert).toContainText("Chrome");
  });
});
