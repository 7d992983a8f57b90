// A blind screen on the virtual phone over real ADB: its app's window made secure (FLAG_SECURE), the phone's
// screencap is black and `dumpsys window` flags the window SECURE. The runtime's sense step sees it and asks a person
// to take over (reason blind_screen) without asking the executor model for an action or tapping; once the person
// handed back a screen that can be seen again, the model is asked and the todo goes on.
import { afterEach, describe, expect, it } from "vitest";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { runAgent } from "./run.ts";
import { useHarness } from "../testing/use-harness.ts";
import { act } from "../testing/scripted-model-server.ts";
import { hashFrame } from "../images/index.ts";
import { nodeImages } from "../images/node.ts";

const agent = { name: "blind-screen", kind: "headless" as const, capabilities: ["phone"] };
let phone: VirtualPhone | undefined;
let device: AdbDevice | undefined;
afterEach(async () => {
  await device?.close().catch(() => undefined);
  await phone?.stop();
  device = undefined;
  phone = undefined;
});
const harness = useHarness();

async function boot(): Promise<AdbDevice> {
  const credentialStore = new MemoryCredentialStore();
  const key = await credentialStore.generateKey();
  phone = await startVirtualPhone({ scenario: "social", seed: 3, adbKeys: [adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name)] });
  phone.engine.launch("social");
  device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: phone.adbPort, credentialStore }));
  return device;
}

describe("a blind screen on the virtual phone", () => {
  it("a secure window: the device reports it secure and its screenshot is black; visible again once the window is not", async () => {
    const d = await boot();
    expect((await d.foreground()).secure).toBeUndefined();
    expect((await hashFrame(nodeImages, (await d.screenshot()).png)).dark).toBeLessThan(0.5);
    phone!.engine.secureWindow(true);
    expect(await d.foreground()).toMatchObject({ packageName: "com.phoneloop.social", secure: true });
    expect((await hashFrame(nodeImages, (await d.screenshot()).png)).dark).toBe(1);
  });

  it("the run asks a person to take over (blind_screen) without asking the model or tapping, and goes on after the hand back", async () => {
    const d = await boot();
    phone!.engine.secureWindow(true);
    const h = await harness({
      device: d,
      executor: [act({ type: "status", status: "complete", summary: "Loop is open." })],
      onGate: (g) => {
        if (g.input.kind !== "takeover") return undefined;
        // The person unlocks what the agent could not see, then hands back.
        phone!.engine.secureWindow(false);
        return { status: "answered", answer: "done", rationale: "A person took over: Ana did: nothing on the phone. Their note: done" };
      },
    });
    const actionsBefore = (phone!.engine.state() as { actions: number }).actions;
    const out = await runAgent(h.ports, { goal: "Check that Loop is open", agent, config: { learn: false } });
    expect(out).toMatchObject({ status: "completed" });
    const gates = [...h.cp.gates.values()];
    expect(gates).toHaveLength(1);
    expect(gates[0]!.input).toMatchObject({ kind: "takeover", takeoverReason: "blind_screen", action: { type: "ask_takeover", reason: "blind_screen" } });
    expect(gates[0]!.input.question).toMatch(/secure window/);
    // The model was asked once, on the screen seen after the hand back; nothing was tapped on the blind screen.
    expect(h.executorRequests()).toHaveLength(1);
    expect(h.executorRequests()[0]!.lastUserText).toContain("A person took over: Ana");
    expect((phone!.engine.state() as { actions: number }).actions).toBe(actionsBefore);
  });
});
