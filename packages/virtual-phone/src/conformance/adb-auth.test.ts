// Conformance: the phone as started by default, with the real adb client — a key it does not list stays
// unauthorized until the "Allow USB debugging?" prompt is accepted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startVirtualPhone, type VirtualPhone } from "../index.ts";
import { adbClient, privatePort } from "./adb-cli.ts";

const adb = adbClient(privatePort(6));
let phone: VirtualPhone;
let serial: string;

async function deviceState(): Promise<string> {
  const out = (await adb.run(["devices"])).stdout.toString();
  const line = out.split("\n").find((l) => l.startsWith(serial));
  return line?.split(/\s+/)[1] ?? "absent";
}

async function waitFor(pred: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await pred()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  phone = await startVirtualPhone();
  serial = `127.0.0.1:${phone.adbPort}`;
});

afterAll(async () => {
  await adb.run(["disconnect", serial]);
  await adb.killServer();
  await phone?.stop();
});

describe("ADB AUTH with the real adb client", () => {
  it("stays unauthorized until the prompt is accepted, then works", async () => {
    await adb.run(["connect", serial]);
    await waitFor(async () => (await deviceState()) === "unauthorized", "unauthorized state");
    const denied = await adb.run(["-s", serial, "shell", "echo hi"]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/unauthorized/);
    // the prompt is on the phone's screen and listed by the control API
    expect(phone.engine.uiDump()).toContain('text="Allow"');
    const bearer = { authorization: `Bearer ${phone.controlToken}` };
    // without the phone's token nobody may tap Allow through the control API
    const anonymous = await fetch(`${phone.controlUrl}/auth/accept`, { method: "POST" });
    expect(anonymous.status).toBe(401);
    const pending = (await (await fetch(`${phone.controlUrl}/auth`, { headers: bearer })).json()) as { pending: { name: string }[] };
    expect(pending.pending).toHaveLength(1);
    expect(pending.pending[0]!.name).toMatch(/@/); // adb sends user@host after its key
    const res = (await (await fetch(`${phone.controlUrl}/auth/accept`, { method: "POST", headers: bearer })).json()) as { answered: number };
    expect(res.answered).toBe(1);
    await waitFor(async () => (await deviceState()) === "device", "device state");
    const ok = await adb.run(["-s", serial, "shell", "echo hi"]);
    expect(ok.stdout.toString()).toBe("hi\n");
    expect(phone.engine.uiDump()).not.toContain('text="Allow"');
  });

  it("lets an accepted key back in by signature on reconnect, with no prompt", async () => {
    await adb.run(["disconnect", serial]);
    await adb.run(["connect", serial]);
    await waitFor(async () => (await deviceState()) === "device", "device state after reconnect");
    expect(phone.keyStore.listPending()).toHaveLength(0);
  });
});
