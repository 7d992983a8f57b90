import { describe, expect, it } from "vitest";
import { AdbCommand, AdbMessageParser, AdbProtocolError, encodeMessage } from "./message.ts";

function frame(command: number, arg0: number, arg1: number, payload: string): Buffer {
  const { header, payload: p } = encodeMessage({ command, arg0, arg1, payload: Buffer.from(payload) }, true);
  return Buffer.concat([header, p]);
}

describe("AdbMessageParser", () => {
  it("parses messages however the byte stream is chunked", () => {
    const bytes = Buffer.concat([frame(AdbCommand.CNXN, 0x01000001, 4096, "host::features=shell_v2"), frame(AdbCommand.OPEN, 1, 0, "shell:ls\0")]);
    for (const size of [1, 5, 24, 25, 1000]) {
      const p = new AdbMessageParser();
      const out = [];
      for (let i = 0; i < bytes.length; i += size) out.push(...p.push(bytes.subarray(i, i + size)));
      expect(out.map((m) => [m.command, m.arg0, m.payload.toString()])).toEqual([
        [AdbCommand.CNXN, 0x01000001, "host::features=shell_v2"],
        [AdbCommand.OPEN, 1, "shell:ls\0"],
      ]);
    }
  });

  it("accepts the header and the payload as separate transfers (USB framing)", () => {
    const { header, payload } = encodeMessage({ command: AdbCommand.WRTE, arg0: 3, arg1: 7, payload: Buffer.from("abc") }, false);
    const p = new AdbMessageParser();
    expect(p.push(header)).toEqual([]);
    const [m] = p.push(payload);
    expect(m?.payload.toString()).toBe("abc");
    expect(header.readUInt32LE(16)).toBe(0);
  });

  it("rejects a header whose magic does not match", () => {
    const bad = frame(AdbCommand.OKAY, 1, 2, "");
    bad.writeUInt32LE(0, 20);
    expect(() => new AdbMessageParser().push(bad)).toThrow(AdbProtocolError);
  });

  it("computes the checksum as the sum of payload bytes", () => {
    const { header } = encodeMessage({ command: AdbCommand.WRTE, arg0: 1, arg1: 1, payload: Buffer.from([1, 2, 250]) }, true);
    expect(header.readUInt32LE(16)).toBe(253);
  });
});
