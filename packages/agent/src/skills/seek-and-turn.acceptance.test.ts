// A skill's step whose element is a list row further down (another value than the run it came from tapped) scrolls
// the list to find it, on the virtual phone over real ADB; a row that is in no part of the list hands back.
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
    const ran = await runSkill(device, bound.body, { approvals: { streak: {} }, settle, onStep: async (i, st, _b, _px, seek) => void seen.push(`${i}:${st.action.type}${seek === undefined ? "" : `:seek ${seek}`}`) });
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
