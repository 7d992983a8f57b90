// The WebSocket transport as a browser sees it: header and payload arrive as separate binary messages,
// and the phone accepts any chunking of what the browser sends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { once } from "node:events";
import type { IncomingMessage } from "node:http";
import { WebSocket } from "ws";
import { startVirtualPhone, type VirtualPhone } from "../index.ts";
import { AdbCommand, encodeMessage } from "../adb/message.ts";

let phone: VirtualPhone;
const WEB = "http://127.0.0.1:3000";
beforeAll(async () => {
  phone = await startVirtualPhone({ allowOrigins: [WEB] });
});
afterAll(async () => {
  await phone?.stop();
});

describe("ADB over WebSocket", () => {
  it("sends header and payload as two messages and parses a CNXN split across three", async () => {
    const ws = new WebSocket(phone.wsUrl, { origin: WEB });
    await once(ws, "open");
    const got: Buffer[] = [];
    ws.on("message", (d: Buffer) => got.push(Buffer.from(d)));
    const { header, payload } = encodeMessage({ command: AdbCommand.CNXN, arg0: 0x01000001, arg1: 256 * 1024, payload: Buffer.from("host::features=shell_v2") }, true);
    const all = Buffer.concat([header, payload]);
    ws.send(all.subarray(0, 10));
    ws.send(all.subarray(10, 30));
    ws.send(all.subarray(30));
    for (let i = 0; i < 1000 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    // the phone answers with AUTH(TOKEN): 24-byte header, then the 20-byte token on its own
    expect(got[0]!.length).toBe(24);
    expect(got[0]!.readUInt32LE(0)).toBe(AdbCommand.AUTH);
    expect(got[0]!.readUInt32LE(12)).toBe(got[1]!.length);
    expect(got[1]!.length).toBe(20);
    ws.close();
  });

  it("refuses a page from another origin with 403 before the upgrade", async () => {
    const ws = new WebSocket(phone.wsUrl, { origin: "http://evil.example" });
    const [, res] = (await once(ws, "unexpected-response")) as [unknown, IncomingMessage];
    expect(res.statusCode).toBe(403);
    expect(res.headers["content-type"]).toBe("text/plain; charset=utf-8");
    const body = await new Promise<string>((r) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => r(text));
    });
    expect(body).toContain("--allow-origin http://evil.example");
    expect(phone.keyStore.listPending()).toEqual([]);
  });
});
