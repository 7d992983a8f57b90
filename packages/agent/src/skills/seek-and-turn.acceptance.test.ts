// On the virtual phone over real ADB: a skill's step whose element is a list row further down (another value than the
// run it came from tapped) scrolls the list to find it, and a row in no part of the list hands back; a wheel step
// turns a number picker to its value from wherever it starts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { bindSkill, screenState, selectorOf, type SkillBody } from "./contract.ts";
import { runSkill } from "./execute.ts";

// An app whose list is longer than the screen: its rows read "<name> <price>", tapping one opens it.
const ITEMS = Array.from({ length: 30 }, (_, i) => ({ name: `Item ${String.fromCharCode(65 + (i % 26))}${i >= 26 ? "2" : ""}`, price: `$${i + 1}.00` }));
const shelf = {
  name: "shelf",
  start: { app: "shelf" },
  apps: [
    {
      id: "shelf",
      package: "com.example.shelf",
      label: "Shelf",
      start: "home",
      state: { items: ITEMS, current: "" },
      screens: [
        { id: "home", appBar: { title: "Shelf" }, body: [{ type: "list", id: "item_list", itemsFrom: "items", template: { type: "item", text: "{{item.name}} {{item.price}}", onTap: [{ do: "set", var: "current", value: "{{item.name}}" }, { do: "navigate", screen: "item" }] } }] },
        { id: "item", activity: ".ItemActivity", appBar: { back: true, title: "{{current}}" }, body: [{ type: "text", text: "You opened {{current}}" }] },
      ],
    },
  ],
  tasks: [],
};

let phone: VirtualPhone;
let device: AdbDevice;
beforeAll(async () => {
  const credentialStore = new MemoryCredentialStore();
  const key = await credentialStore.generateKey();
  phone = await startVirtualPhone({ scenario: shelf as unknown as string /* the engine takes a scenario object too */, seed: 3, adbKeys: [adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name)] });
  device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: phone.adbPort, credentialStore }));
});
afterAll(async () => {
  await device?.close().catch(() => undefined);
  await phone?.stop();
});

const read = async () => screenState(await device.uiTree(), await device.foreground(), (await device.info()).screen);
const settle = () => device.waitForStable({ timeoutMs: 2000 }).then(() => undefined);

describe("a skill's step looks for its list row", () => {
  it("scrolls down to a row of another value, taps it, and says so; a row no part of the list has hands back", { timeout: 60_000 }, async () => {
    const home = await read();
    const first = home.elements.find((e) => e.text === "Item A $1.00");
    expect(first, home.elements.map((e) => e.text).join(" / ")).toBeDefined();
    expect(home.elements.some((e) => e.text.startsWith("Item Z "))).toBe(false); // further down the list
    const row = { ...selectorOf(first!), text: "{item}", textStarts: true as const };
    const body: SkillBody = { format: 1, app: "com.example.shelf", params: ["item"], pre: { app: home.app, activity: home.activity, required: [row] }, steps: [{ action: { type: "click" }, target: row, before: { app: home.app, activity: home.activity, required: [row] } }], post: { app: "com.example.shelf", activity: "com.example.shelf.ItemActivity", required: [] } };
    const seen: string[] = [];
    const bound = bindSkill(body, { item: "Item Z" });
    if (!bound.ok) throw new Error("not bound");
    const ran = await runSkill(device, bound.body, { approvals: { streak: {} }, settle, onStep: async (i, st, _b, _px, part) => void seen.push(`${i}:${st.action.type}${part ? `:${part.kind} ${part.n}` : ""}`) });
    expect(ran).toMatchObject({ ok: true, performed: 1 });
    expect(seen.at(-1)).toBe("0:click");
    expect(seen.filter((s) => s.includes("seek")).length).toBeGreaterThan(0);
    expect((await read()).elements.some((e) => e.text === "You opened Item Z")).toBe(true);

    await device.key("back");
    await settle();
    const missing = bindSkill(body, { item: "Garden hose" });
    if (!missing.ok) throw new Error("not bound");
    const lost = await runSkill(device, missing.body, { approvals: { streak: {} }, settle });
    expect(lost).toMatchObject({ ok: false, failedAt: 0 });
    if (!lost.ok) expect(lost.reason).toMatch(/"Garden hose…" is not on the screen/);
  });
});

describe("a skill's wheel step", () => {
  it("turns the alarm's hour and minute wheels to the values it is given, from the wheels' own start", { timeout: 60_000 }, async () => {
    const credentialStore = new MemoryCredentialStore();
    const key = await credentialStore.generateKey();
    const clock = await startVirtualPhone({ scenario: "home", seed: 5, adbKeys: [adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name)] });
    const dev = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: clock.adbPort, credentialStore }));
    try {
      const view = async () => screenState(await dev.uiTree(), await dev.foreground(), (await dev.info()).screen);
      const calm = () => dev.waitForStable({ timeoutMs: 2000 }).then(() => undefined);
      const tapText = async (t: string) => {
        const e = (await view()).elements.find((x) => x.text === t || x.resourceId.endsWith(`/${t}`));
        if (!e) throw new Error(`no ${t} on the screen`);
        await dev.tap({ x: Math.round((e.bounds.left + e.bounds.right) / 2), y: Math.round((e.bounds.top + e.bounds.bottom) / 2) });
        await calm();
      };
      await runSkill(dev, { format: 1, app: "com.phoneloop.clock", pre: { app: "", required: [] }, steps: [{ action: { type: "open_app", app: "com.phoneloop.clock" }, before: { app: "", required: [] } }], post: { app: "com.phoneloop.clock", required: [] } }, { approvals: { streak: {} }, settle: calm });
      if ((await view()).elements.some((e) => e.text === "Don't allow")) await tapText("Don't allow");
      await tapText("add_alarm");
      const form = await view();
      const wheel = (id: string) => selectorOf(form.elements.find((e) => e.resourceId.endsWith(`/${id}`))!);
      const turnStep = (id: string, param: string) => ({ action: { type: "drag" as const, from: { x: 0, y: 0 }, to: { x: 0, y: -100 } }, target: wheel(id), turnTo: `{${param}}`, before: { app: form.app, activity: form.activity, required: [wheel(id)] } });
      const body: SkillBody = { format: 1, app: "com.phoneloop.clock", params: ["hour", "minute"], pre: turnStep("hour_picker", "hour").before, steps: [turnStep("hour_picker", "hour"), turnStep("minute_picker", "minute")], post: { app: form.app, activity: form.activity, required: [] } };
      const bound = bindSkill(body, { hour: "05", minute: "50" });
      if (!bound.ok) throw new Error("not bound");
      const drags: string[] = [];
      const ran = await runSkill(dev, bound.body, { approvals: { streak: {} }, settle: calm, onStep: async (i, st) => void drags.push(`${i}:${st.action.type}`) });
      expect(ran).toMatchObject({ ok: true, performed: 2 });
      expect((await view()).elements.some((e) => e.text === "Alarm at 05:50")).toBe(true);
      expect(drags.length).toBeGreaterThanOrEqual(2);
      expect(drags.every((d) => d.endsWith(":drag"))).toBe(true);
    } finally {
      await dev.close().catch(() => undefined);
      await clock.stop();
    }
  });
});
