// The daemon against raw packets: handshake, refused services, flow control with and without delayed ack.
import { describe, expect, it } from "vitest";
import { AdbDaemonSession, type ServiceRouter } from "./daemon.ts";
import { AdbCommand, AdbMessageParser, encodeMessage, type AdbMessage } from "./message.ts";
import { AdbKeyStore, parseAdbKeys } from "./auth.ts";
import { adbTestKey } from "../conformance/adb-test-key.ts";

const trustedKey = adbTestKey();

function harness(router: ServiceRouter, opts: { keyStore?: AdbKeyStore } = {}) {
  const out: AdbMessage[] = [];
  const parser = new AdbMessageParser();
  let closed = false;
  const session = new AdbDaemonSession(
    { send: (h, p) => out.push(...parser.push(Buffer.concat([h, p]))), close: () => (closed = true) },
    { banner: "device::ro.product.model=T;features=shell_v2,delayed_ack", features: ["shell_v2", "delayed_ack"], router, keyStore: opts.keyStore ?? new AdbKeyStore({ adbKeys: parseAdbKeys(trustedKey.publicKeyLine) }) },
  );
  const send = (command: number, arg0: number, arg1: number, payload: string | Buffer = "") => {
    const { header, payload: p } = encodeMessage({ command, arg0, arg1, payload: Buffer.isBuffer(payload) ? payload : Buffer.from(payload) }, false);
    session.receive(header);
    if (p.length) session.receive(p);
  };
  /** CNXN, then the token signed by a key in adb_keys; leaves only the phone's CNXN in `out`. */
  const connect = (maxPayload: number, banner: string) => {
    send(AdbCommand.CNXN, 0x01000001, maxPayload, banner);
    const token = out.pop()!;
    expect(token).toMatchObject({ command: AdbCommand.AUTH, arg0: 1 });
    send(AdbCommand.AUTH, 2, 0, trustedKey.sign(token.payload));
  };
  return { out, send, connect, session, isClosed: () => closed };
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const name = (m: AdbMessage) => Buffer.from(new Uint32Array([m.command]).buffer).toString("latin1");

describe("AdbDaemonSession", () => {
  it("answers CNXN with its banner once a key in adb_keys signs the token, and ignores OPEN before it", () => {
    const h = harness(() => null);
    h.send(AdbCommand.OPEN, 1, 0, "shell:ls");
    expect(h.out).toHaveLength(0);
    h.connect(256 * 1024, "host::features=shell_v2");
    expect(h.out.map(name)).toEqual(["CNXN"]);
    expect(h.out[0]!.payload.toString()).toContain("ro.product.model=T");
    expect(h.session.delayedAck).toBe(false);
  });

  it("refuses an unknown service with CLSE(0, remote)", () => {
    const h = harness(() => null);
    h.connect(4096, "host::");
    h.send(AdbCommand.OPEN, 7, 0, "nope:");
    expect(h.out.at(-1)).toMatchObject({ command: AdbCommand.CLSE, arg0: 0, arg1: 7 });
  });

  it("without delayed ack, keeps one WRTE in flight until the client's OKAY", async () => {
    const h = harness(() => async (s) => {
      await s.write(Buffer.alloc(10, 1));
      await s.write(Buffer.alloc(10, 2));
    });
    h.connect(4096, "host::");
    h.send(AdbCommand.OPEN, 5, 0, "svc:");
    await tick();
    expect(h.out.slice(1).map(name)).toEqual(["OKAY", "WRTE"]);
    const local = h.out[1]!.arg0;
    await tick();
    expect(h.out.slice(1).map(name)).toEqual(["OKAY", "WRTE"]); // still waiting for the client's OKAY
    h.send(AdbCommand.OKAY, 5, local);
    await tick();
    // the service is done once its last WRTE is sent; adbd closes without waiting for that OKAY too
    expect(h.out.slice(1).map(name)).toEqual(["OKAY", "WRTE", "WRTE", "CLSE"]);
  });

  it("with delayed ack, sends up to the client's window and acks client writes with byte counts", async () => {
    let received = "";
    const h = harness(() => async (s) => {
      received = (await s.input.readExactly(3)).toString();
      await s.write(Buffer.alloc(6000, 7)); // split by max payload 4096, then limited by the 5000-byte window
    });
    h.connect(4096, "host::features=shell_v2,delayed_ack");
    expect(h.session.delayedAck).toBe(true);
    h.send(AdbCommand.OPEN, 9, 5000, "svc:");
    const okay = h.out.at(-1)!;
    expect(okay.command).toBe(AdbCommand.OKAY);
    expect(okay.payload.length).toBe(4);
    h.send(AdbCommand.WRTE, 9, okay.arg0, "abc");
    await tick();
    expect(received).toBe("abc");
    const acks = h.out.filter((m) => m.command === AdbCommand.OKAY && m.arg1 === 9);
    expect(acks.at(-1)!.payload.readUInt32LE(0)).toBe(3);
    const writes = () => h.out.filter((m) => m.command === AdbCommand.WRTE).map((m) => m.payload.length);
    expect(writes()).toEqual([4096]);
    const ack = Buffer.alloc(4);
    ack.writeUInt32LE(4096);
    h.send(AdbCommand.OKAY, 9, okay.arg0, ack);
    await tick();
    expect(writes()).toEqual([4096, 1904]);
  });

  it("answers the host's CLSE with its own CLSE, once, before forgetting the stream", async () => {
    let ended = false;
    const h = harness(() => async (s) => {
      await s.input.readAll();
      ended = true;
    });
    h.connect(4096, "host::");
    h.send(AdbCommand.OPEN, 11, 0, "sync:");
    const local = h.out.at(-1)!.arg0;
    h.send(AdbCommand.CLSE, 11, local);
    await tick();
    expect(ended).toBe(true);
    const closes = h.out.filter((m) => m.command === AdbCommand.CLSE);
    expect(closes).toEqual([expect.objectContaining({ arg0: local, arg1: 11 })]);
    h.send(AdbCommand.CLSE, 11, local); // a late duplicate is ignored
    expect(h.out.filter((m) => m.command === AdbCommand.CLSE)).toHaveLength(1);
  });

  it("drops the connection on a corrupt header", () => {
    const h = harness(() => null);
    const bad = Buffer.alloc(24, 0xff);
    h.session.receive(bad);
    expect(h.isClosed()).toBe(true);
  });

  it("asks for a signature, then for the public key, under AUTH", () => {
    const store = new AdbKeyStore();
    const h = harness(() => null, { keyStore: store });
    h.send(AdbCommand.CNXN, 0x01000001, 4096, "host::");
    expect(h.out.map(name)).toEqual(["AUTH"]);
    expect(h.out[0]).toMatchObject({ arg0: 1 });
    expect(h.out[0]!.payload.length).toBe(20);
    h.send(AdbCommand.AUTH, 2, 0, Buffer.alloc(256, 1)); // a signature no accepted key made
    expect(h.out.map(name)).toEqual(["AUTH", "AUTH"]);
    expect(h.session.state).toBe("unauthorized");
    h.send(AdbCommand.OPEN, 1, 0, "shell:id");
    expect(h.out).toHaveLength(2);
  });

  it("an unknown key serves nothing until the prompt is allowed; 'Always allow' puts it in adb_keys", async () => {
    const store = new AdbKeyStore();
    const stranger = adbTestKey("stranger@host");
    let opened = 0;
    const h = harness(() => async () => void opened++, { keyStore: store });
    h.send(AdbCommand.CNXN, 0x01000001, 4096, "host::");
    h.send(AdbCommand.AUTH, 2, 0, stranger.sign(h.out.at(-1)!.payload)); // signed by a key the phone does not list
    h.send(AdbCommand.AUTH, 3, 0, `${stranger.publicKeyLine}\0`);
    await tick();
    expect(store.listPending()).toEqual([{ fingerprint: expect.stringMatching(/^[0-9A-F:]{47}$/), name: "stranger@host" }]);
    h.send(AdbCommand.OPEN, 1, 0, "shell:id");
    await tick();
    expect(h.out.map(name)).toEqual(["AUTH", "AUTH"]);
    expect(opened).toBe(0);
    expect(store.answer("accept", { always: true })).toBe(1);
    await tick();
    expect(h.out.map(name)).toEqual(["AUTH", "AUTH", "CNXN"]);
    h.send(AdbCommand.OPEN, 2, 0, "shell:id");
    await tick();
    expect(opened).toBe(1);
    expect(store.adbKeysText()).toBe(`${stranger.publicKeyLine}\n`);
  });
});
