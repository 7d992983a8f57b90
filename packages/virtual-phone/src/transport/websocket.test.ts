// The WebSocket transport as a browser sees it: header and payload arrive as separate binary messages,
// and the phone accepts any chunking of what the browser sends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { once } from "node:events";
import { WebSocket } from "ws";
import { startVirtualPhone, type VirtualPhone } from "../index.ts";
import { AdbCommand, encodeMessage } from "../adb/message.ts";

let phone: VirtualPhone;
beforeAll(async () => {
  phone = await startVirtualPhone();
});
afterAll(async () => {
  await phone?.stop();
});

describe("ADB over WebSocket", () => {
  it("sends header and payload as two messages and parses a CNXN split across three", async () => {
    const ws = new WebSocket(phone.wsUrl);
    await once(ws, "open");
    const got: Buffer[] = [];
    ws.on("message", (d: Buffer) => got.push(Buffer.from(d)));
    const { header, payload } = encodeMessage({ command: AdbCommand.CNXN, arg0: 0x01000001, arg1: 256 * 1024, payload: Buffer.from("host::features=shell_v2") }, true);
    const all = Buffer.concat([header, payload]);
    ws.send(all.subarray(0, 10));
    ws.send(all.subarray(10, 30));
    ws.send(all.subarray(30));
    for (let i = 0; i < 1000 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(got[0]!.length).toBe(24);
    expect(got[0]!.readUInt32LE(0)).toBe(AdbCommand.CNXN);
    expect(got[0]!.readUInt32LE(12)).toBe(got[1]!.length);
    expect(got[1]!.toString()).toMatch(/^device::ro\.product\.name=phoneloop_vphone;ro\.product\.model=PhoneLoop Virtual;ro\.product\.device=vphone;features=/);
    ws.close();
  });
});
