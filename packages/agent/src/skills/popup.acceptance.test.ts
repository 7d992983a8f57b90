// On the virtual phone over real ADB: a popup the skill's run never showed covers the screen a step expects. The step
// closes it by the control the permission checkpoint reads as backing out ("No thanks", not "Turn on"), records the
// tap as a part of itself, and goes on; a popup that offers no way out the checkpoint trusts hands back.
import { afterEach, describe, expect, it } from "vitest";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { screenState, selectorOf, type SkillBody } from "./contract.ts";
import { runSkill } from "./execute.ts";

/** A two-screen app: "Next" opens the middle screen, where a sheet pops up once; "Open item" there opens the item. */
function desk(buttons: { id: string; text: string; onTap: unknown[] }[]) {
  return {
    name: "desk",
    start: { app: "desk" },
    apps: [
      {
        id: "desk",
        package: "com.example.desk",
        label: "Desk",
        start: "home",
        state: { notify: false, subscribed: false },
        screens: [
          { id: "home", appBar: { title: "Desk" }, body: [{ type: "button", id: "next", text: "Next", onTap: [{ do: "navigate", screen: "middle" }] }] },
          { id: "middle", activity: ".MiddleActivity", appBar: { back: true, title: "Middle" }, body: [{ type: "button", id: "open_item", text: "Open item", onTap: [{ do: "navigate", screen: "item" }] }] },
          { id: "item", activity: ".ItemActivity", appBar: { back: true, title: "Item" }, body: [{ type: "text", text: "The item" }] },
        ],
        popups: [{ id: "promo", kind: "custom", style: "sheet", title: "Get 10% off", message: "Turn on notifications to receive your coupon.", buttons, trigger: { on: "screen", screen: "middle", once: true } }],
      },
    ],
    tasks: [],
  };
}

let phone: VirtualPhone | undefined;
let device: AdbDevice | undefined;
async function start(scenario: object) {
  const credentialStore = new MemoryCredentialStore();
  const key = await credentialStore.generateKey();
  phone = await startVirtualPhone({ scenario: scenario as unknown as string /* the engine takes a scenario object too */, seed: 5, adbKeys: [adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name)] });
  device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: phone.adbPort, credentialStore }));
  return device;
}
afterEach(async () => {
  await device?.close().catch(() => undefined);
  await phone?.stop();
  phone = device = undefined;
});

/** The skill as a run without the popup recorded it: tap Next, tap Open item, end on the item. */
async function recordedSkill(d: AdbDevice): Promise<SkillBody> {
  const home = screenState(await d.uiTree(), await d.foreground(), (await d.info()).screen);
  const next = home.elements.find((e) => e.text === "Next");
  expect(next, home.elements.map((e) => e.text).join(" / ")).toBeDefined();
  const openItem = { resourceId: "com.example.desk:id/open_item", text: "Open item", at: { x: 500, y: 150 } };
  return {
    format: 1,
    app: "com.example.desk",
    params: [],
    pre: { app: home.app, activity: home.activity, required: [selectorOf(next!)] },
    steps: [
      { action: { type: "click" }, target: selectorOf(next!), before: { app: home.app, activity: home.activity, required: [selectorOf(next!)] } },
      { action: { type: "click" }, target: openItem, before: { app: "com.example.desk", activity: "com.example.desk.MiddleActivity", required: [openItem] } },
    ],
    post: { app: "com.example.desk", activity: "com.example.desk.ItemActivity", required: [] },
  };
}
const settle = () => device!.waitForStable({ timeoutMs: 2000 }).then(() => undefined);

describe("a popup the skill did not expect", () => {
  it("is closed by its way out (not by the button that turns something on), and the skill goes on to its end", { timeout: 60_000 }, async () => {
    const d = await start(desk([{ id: "promo_accept", text: "Turn on", onTap: [{ do: "set", var: "notify", value: true }, { do: "dismiss" }] }, { id: "promo_close", text: "No thanks", onTap: [{ do: "dismiss" }] }]));
    const body = await recordedSkill(d);
    const seen: string[] = [];
    const ran = await runSkill(d, body, { approvals: { streak: {} }, settle, onStep: async (i, st, _b, px, part) => void seen.push(`${i}:${st.action.type}${part ? `:${part.kind} ${part.n}` : ""}${px ? "" : ":nopx"}`) });
    expect(ran, JSON.stringify(ran)).toMatchObject({ ok: true, performed: 2 });
    expect(seen).toEqual(["0:click", "1:click:popup 0", "1:click"]);
    const state = phone!.engine.state() as { apps?: Record<string, Record<string, unknown>> } & Record<string, unknown>;
    expect(JSON.stringify(state)).toContain('"notify":false');
    expect((await d.foreground()).activity).toMatch(/ItemActivity$/);
  });

  it("hands back when the popup's only ways on need a person or back out by nothing the checkpoint trusts", { timeout: 60_000 }, async () => {
    const d = await start(desk([{ id: "promo_subscribe", text: "Subscribe for $4.99/month", onTap: [{ do: "set", var: "subscribed", value: true }, { do: "dismiss" }] }]));
    const body = await recordedSkill(d);
    const ran = await runSkill(d, body, { approvals: { streak: {} }, settle, checkTries: 2 });
    expect(ran).toMatchObject({ ok: false, failedAt: 1 });
    expect(JSON.stringify(phone!.engine.state())).toContain('"subscribed":false');
  });
});
