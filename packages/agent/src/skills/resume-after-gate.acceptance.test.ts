// A skill whose step needs a person's approval stops there; the model takes that step (the person approves it) and
// the skill goes on from the next step by itself, without a model call — on the virtual phone over real ADB, with the
// pack's contacts_add (typing a phone number into a new contact needs approval).
import { afterEach, describe, expect, it } from "vitest";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { runAgent } from "../graph/run.ts";
import { planOf } from "../testing/harness.ts";
import { useHarness } from "../testing/use-harness.ts";
import { packExecutor, packWork } from "../testing/pack-work.ts";

const agent = { name: "learner", kind: "headless" as const, capabilities: ["phone"] };
const phones: VirtualPhone[] = [];
const devices: AdbDevice[] = [];
afterEach(async () => {
  for (const d of devices.splice(0)) await d.close().catch(() => undefined);
  for (const p of phones.splice(0)) await p.stop();
});
const harness = useHarness();

async function contactsPhone(seed: number, variant: number) {
  const credentialStore = new MemoryCredentialStore();
  const key = await credentialStore.generateKey();
  const p = await startVirtualPhone({ scenario: "home", seed, adbKeys: [adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name)] });
  phones.push(p);
  const { goal, params } = p.engine.startTask("contacts_add", { seed, variant });
  const device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: p.adbPort, credentialStore }));
  devices.push(device);
  return { device, goal, params: params as Record<string, string>, score: () => p.engine.evaluate("contacts_add").score };
}

describe("a skill past a person's approval", () => {
  it("stops at the step to approve, the model takes it, and the skill goes on by itself to its end", { timeout: 180_000 }, async () => {
    const approve = () => ({ status: "approved" as const });
    const a = await contactsPhone(1, 0);
    const learnt = packExecutor(packWork("contacts_add", a.goal, a.params));
    const h = await harness({ device: a.device, executor: Array.from({ length: 60 }, () => learnt), planner: [planOf([{ id: "t1", title: a.goal }])], onGate: approve });
    const first = await runAgent(h.ports, { goal: a.goal, agent });
    expect(first.status, JSON.stringify(h.cp.stepsOf(first.runId).map((s) => s.outcome.outcome))).toBe("completed");
    expect(a.score()).toBe(1);

    const b = await contactsPhone(2, 1);
    const asked = h.executorRequests().length;
    const using = packExecutor(packWork("contacts_add", b.goal, b.params));
    const other = await harness({ device: b.device, executor: Array.from({ length: 60 }, () => using), planner: [planOf([{ id: "t1", title: b.goal }])], onGate: approve });
    const run = await runAgent({ ...h.ports, device: b.device, models: other.ports.models }, { goal: b.goal, agent });
    expect(run.status).toBe("completed");
    expect(b.score()).toBe(1);
    const steps = h.cp.stepsOf(run.runId);
    const outcomes = steps.map((s) => String(s.outcome.outcome));
    expect(outcomes.some((o) => /needs a person/.test(o))).toBe(true);
    // The model is told which step to take, with the skill's values.
    expect(other.executorRequests()[1]!.lastUserText).toMatch(new RegExp(`reached its step \\d+ of \\d+ \\(click_then_type "${b.params.phone!.replace(/[+]/g, "\\+")}" on #contact_phone_input`));
    const resumed = steps.filter((s) => s.outcome.modelSkipped === "skill_resumed");
    expect(resumed).toHaveLength(1);
    expect(String(resumed[0]!.outcome.outcome)).toMatch(/skill done: \d+\/\d+ steps, end screen reached/);
    // The model was asked for the skill, the approved step and the end: the steps after the approval cost no call.
    expect(other.executorRequests().length).toBe(3);
    expect(h.executorRequests().length).toBe(asked);
  });
});
