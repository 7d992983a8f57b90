// A run in the tab meets a blind screen: the phone (through the WebUSB stand-in) shows a payment page drawn inside a
// WebView without accessibility nodes, in Korean. The executor taps the page's committing button; before the
// permission checkpoint decides, the tab's own OCR reader (packages/ocr's browser entry, Tesseract's files from the
// web app's /ocr route) reads the screenshot around the tap point. The reading is recorded as the step's evidence,
// it names the button's words under the tap point, the tap waits for an approval (a payment), and once approved it
// lands. The tab fetched only the language data it needed.
import { expect, test } from "@playwright/test";
import { fileURLToPath } from "node:url";
import { act, startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { createApiClient, type ApiClient } from "@phoneloop/client";
import { installWebUsbStandIn } from "@phoneloop/device/testing/webusb-stand-in";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { attachScreenshot, freePort, startWebStack, type WebStack } from "../support/web-stack.ts";

const BLIND_PAGES = fileURLToPath(new URL("../../packages/virtual-phone/src/pack/examples/web-pages.json", import.meta.url));

interface Drawn {
  resId: string;
  text: string;
  bounds: [number, number, number, number];
  children: Drawn[];
}
const findDrawn = (n: Drawn, resId: string): Drawn | undefined => (n.resId === resId ? n : n.children.map((c) => findDrawn(c, resId)).find(Boolean));
const letters = (s: string) => s.normalize("NFKC").replace(/[^\p{L}\p{N}\p{M}]/gu, "");

let stack: WebStack;
let phone: VirtualPhone;
let models: ScriptedModelServer;
let admin: ApiClient;

test.beforeAll(async () => {
  test.setTimeout(600_000);
  const webPort = await freePort();
  phone = await startVirtualPhone({ scenario: BLIND_PAGES, seed: 3, trust: "any-key", allowOrigins: [`http://127.0.0.1:${webPort}`] });
  stack = await startWebStack("web_ocr", { webPort });
  admin = createApiClient({ apiUrl: stack.api.url, auth: { kind: "cookie", cookie: stack.admin.headers.cookie! } });
});

test.afterAll(async () => {
  await models?.stop();
  await phone?.stop();
  await stack?.close();
});

test("the tab reads a blind payment page's committing button with OCR, and the tap on it waits for an approval", async ({ browser }, testInfo) => {
  test.setTimeout(300_000);
  expect(phone.engine.runtime.openUrl("https://pay.acme-store.example/ko")).toBe(true);
  const commit = findDrawn(phone.engine.runtime.layout().dumpRoot as Drawn, "com.android.chrome:id/commit")!;
  expect(commit.text).toBe("지금 결제");
  // The page is blind: its words are drawn, not in the tree the agent reads.
  expect(phone.engine.uiDump()).not.toContain(commit.text);
  const [l, t, r, b] = commit.bounds;
  const point = { x: Math.round((l + r) / 2), y: Math.round((t + b) / 2) };
  const paid = () => phone.engine.runtime.state.log.some((e) => e.event === "paid");

  // The executor taps the button by its place on the screen (per mille), as a model looking at the screenshot does.
  models = await startScriptedModelServer({
    rules: [
      { match: (q) => q.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "one todo", todos: [{ id: "main", title: "Pay for the earbuds", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
      { match: (q) => q.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Paid." }) }], repeatLast: true },
      {
        match: (q) => q.model === "executor-model",
        replies: [() => (paid() ? act({ type: "status", status: "complete", summary: "Paid for the earbuds." }) : act({ type: "click", x: Math.round((point.x / 1080) * 1000), y: Math.round((point.y / 2400) * 1000), intent: "confirm the order" }))],
        repeatLast: true,
      },
    ],
  });
  await admin.modelSettings.set.mutate({ baseUrl: models.baseURL, apiKey: "scripted", models: { planner: "planner-model", executor: "executor-model", summarizer: "summarizer-model" }, microUsdPerInputToken: 2, microUsdPerOutputToken: 8 });
  const goal = await admin.goal.create.mutate({ title: "Earbuds", objective: "Pay for the wireless earbuds on the open page.", acceptance: ["The order is paid"] });

  const context = await browser.newContext();
  await stack.signIn(context, "operator", "Olga Ocr");
  await installWebUsbStandIn(context, { wsUrl: phone.wsUrl, granted: false });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const fetched: string[] = [];
  page.on("request", (q) => {
    const m = /\/ocr\/tessdata\/([^/?]+)\.traineddata/.exec(q.url());
    if (m) fetched.push(m[1]!);
  });

  await page.goto(`${stack.webUrl}/devices`);
  await page.getByRole("button", { name: "Connect phone" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Connected to PhoneLoop Virtual/ })).toBeVisible();
  await page.getByRole("link", { name: "Earbuds" }).click();
  await page.getByRole("button", { name: "Start run" }).click();

  // The tap waits for an approval: a gate opens for the goal.
  let gateId: string | undefined;
  await expect
    .poll(async () => {
      const queue = await admin.board.attention.query({ goalId: goal.id });
      gateId = queue.items.find((i) => i.kind === "gate_waiting")?.gateId;
      return gateId;
    }, { timeout: 180_000 })
    .toBeTruthy();
  expect(paid()).toBe(false);

  // What the tab read is the step's evidence: the button's words, in a line under the tap point.
  const evidence = (await admin.evidence.list.query({ goalId: goal.id, kind: "observation" })).items.find((e) => e.idempotencyKey.endsWith(":ocr"));
  expect(evidence, "the OCR reading is recorded").toBeTruthy();
  const read = evidence!.data as { ocr: { text: string; bounds: { left: number; top: number; right: number; bottom: number } }[] | null; at: { x: number; y: number } };
  expect(read.ocr, evidence!.summary).not.toBeNull();
  const under = read.ocr!.filter((i) => i.bounds.left <= read.at.x && read.at.x < i.bounds.right && i.bounds.top - 8 <= read.at.y && read.at.y < i.bounds.bottom + 8);
  expect(under.map((i) => letters(i.text)).join(" "), JSON.stringify(read.ocr)).toContain(letters(commit.text));
  expect(Math.abs(read.at.x - point.x)).toBeLessThan(10);
  // The tab loaded the models it tried on the button, in their order, until Korean's read it, and no other.
  expect(fetched).toContain("kor");
  for (const unneeded of ["ara", "hin", "rus", "tha", "heb", "ben", "deu", "fas"]) expect(fetched).not.toContain(unneeded);
  await attachScreenshot(page, testInfo, "ocr-gate-waiting");

  // Approved, the tap lands and the run completes.
  await admin.gate.resolve.mutate({ gateId: gateId!, decision: "approve", rationale: "the order is wanted" });
  await expect(page.getByTestId("run-outcome")).toHaveAttribute("data-status", "completed", { timeout: 120_000 });
  expect(paid()).toBe(true);
  expect(errors).toEqual([]);
  await context.close();
});
