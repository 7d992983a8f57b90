// The one way a runtime acceptance test gets a virtual phone on a task over real ADB: the call registers a vitest
// afterEach that closes each device and stops each phone the test started. Call it before useHarness(): hooks run
// as a stack, so each test's harnesses stop before its phones. Kept out of ./index.ts (this module imports vitest).
import { afterEach } from "vitest";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";

export interface TaskPhone {
  phone: VirtualPhone;
  device: AdbDevice;
  goal: string;
  params: Record<string, string>;
  /** The task's evaluator score now. */
  score: () => number;
}

/** Starts a phone on `scenario` (a pack scenario's name or a scenario object), the task at a seed and variant, and an AdbDevice on it. */
export function useTaskPhone(): (task: string, opts: { seed: number; variant?: number; scenario?: string | object }) => Promise<TaskPhone> {
  const phones: VirtualPhone[] = [];
  const devices: AdbDevice[] = [];
  afterEach(async () => {
    for (const d of devices.splice(0)) await d.close().catch(() => undefined);
    for (const p of phones.splice(0)) await p.stop();
  });
  return async (task, { seed, variant = 0, scenario = "home" }) => {
    const credentialStore = new MemoryCredentialStore();
    const key = await credentialStore.generateKey();
    const phone = await startVirtualPhone({ scenario: scenario as string /* the engine takes a scenario object too */, seed, adbKeys: [adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name)] });
    phones.push(phone);
    const { goal, params } = phone.engine.startTask(task, { seed, variant });
    const device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: phone.adbPort, credentialStore }));
    devices.push(device);
    return { phone, device, goal, params: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])), score: () => phone.engine.evaluate(task).score };
  };
}
