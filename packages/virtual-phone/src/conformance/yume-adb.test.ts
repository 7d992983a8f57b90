// Conformance: the same checks through @yume-chan/adb (what packages/device uses), over TCP and over WebSocket.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Adb, AdbDaemonTransport } from "@yume-chan/adb";
import { ReadableStream } from "@yume-chan/stream-extra";
import { startVirtualPhone, type VirtualPhone } from "../index.ts";
import { NodeCredentialStore, readAll, tcpConnection, trustedStore, wsConnection } from "./yume-connection.ts";
import { inspectPng } from "./png.ts";
import { tapOn } from "../testing.ts";

let phone: VirtualPhone;
let authPhone: VirtualPhone;
// the key these suites connect with is already in the phone's adb_keys
const trusted = trustedStore();

beforeAll(async () => {
  phone = await startVirtualPhone({ scenario: "social", seed: 1, adbKeys: trusted.publicKeyLines() });
  authPhone = await startVirtualPhone();
});
afterAll(async () => {
  await phone?.stop();
  await authPhone?.stop();
});

const transports = [
  ["TCP", () => tcpConnection(phone.adbPort)],
  ["WebSocket", () => wsConnection(phone.wsUrl)],
] as const;

describe.each(transports)("@yume-chan/adb over %s", (_name, connect) => {
  let adb: Adb;
  beforeAll(async () => {
    phone.engine.reset(1);
    const connection = await connect();
    const transport = await AdbDaemonTransport.authenticate({ serial: "vphone", connection, credentialStore: trusted });
    adb = new Adb(transport);
  });
  afterAll(async () => {
    await adb?.close();
  });

  it("reads the banner and negotiates delayed ack", () => {
    expect(adb.banner.model).toBe("PhoneLoop Virtual");
    expect(adb.banner.product).toBe("phoneloop_vphone");
    expect(adb.banner.features).toEqual(expect.arrayContaining(["shell_v2", "stat_v2", "ls_v2", "delayed_ack", "sendrecv_v2"]));
  });

  it("runs shell v2 commands with exit codes and separate stderr", async () => {
    const shell = adb.subprocess.shellProtocol!;
    expect(await shell.spawnWaitText("echo hello")).toEqual({ stdout: "hello\n", stderr: "", exitCode: 0 });
    const r = await shell.spawnWaitText("echo out; echo err >&2; exit 7");
    expect(r).toEqual({ stdout: "out\n", stderr: "err\n", exitCode: 7 });
    expect((await shell.spawnWaitText("nosuchcmd")).exitCode).toBe(127);
  });

  it("gets a valid PNG of the right size from screencap -p (plain shell)", async () => {
    const png = Buffer.from(await adb.subprocess.noneProtocol.spawnWait("screencap -p"));
    expect(inspectPng(png)).toMatchObject({ width: 1080, height: 2400 });
  });

  it("serves the framebuffer: service", async () => {
    const fb = await adb.framebuffer();
    expect(fb).toMatchObject({ colorSpace: 1, width: 1080, height: 2400, bpp: 32, red_offset: 0, alpha_offset: 24 });
    expect(fb.data.length).toBe(1080 * 2400 * 4);
  });

  it("refuses reverse with a well-formed FAIL, and a socket to a port nothing listens on", async () => {
    await expect(adb.reverse.add("tcp:7005", () => {})).rejects.toThrow("reverse is not supported on this virtual phone: nothing on it connects out; use adb forward instead");
    await expect(adb.createSocket("tcp:9")).rejects.toThrow();
  });

  it("runs the shell language clients use and answers the package manager", async () => {
    const shell = adb.subprocess.shellProtocol!;
    expect((await shell.spawnWaitText("[ -e /sdcard ] && echo yes")).stdout).toBe("yes\n");
    expect((await shell.spawnWaitText('export ANDROID_LOG_TAGS="" ; exec logcat -d -s ActivityTaskManager')).stdout).toMatch(/^--------- beginning of system\n.* I ActivityTaskManager: START u0 /);
    expect((await shell.spawnWaitText("cmd package resolve-activity --brief com.phoneloop.mail")).stdout).toMatch(/^priority=0 .*\ncom\.phoneloop\.mail\/\.\w+\n$/);
  });

  it("dumps the UI to /dev/tty", async () => {
    const out = await adb.subprocess.noneProtocol.spawnWaitText("uiautomator dump /dev/tty");
    expect(out).toMatch(/<\/hierarchy>UI hierchary dumped to: \/dev\/tty\n$/);
  });

  it("pushes and pulls a 1 MiB file through sync (v2 send, stat v2, list v2)", async () => {
    const data = randomBytes(1024 * 1024);
    const sync = await adb.sync();
    try {
      await sync.write({ filename: "/data/local/tmp/blob.bin", file: new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array(data)), c.close()) }) });
      const st = await sync.stat("/data/local/tmp/blob.bin");
      expect(st.size).toBe(1024n * 1024n);
      const names = (await sync.readdir("/data/local/tmp")).map((e) => e.name);
      expect(names).toContain("blob.bin");
      const back = await readAll(sync.read("/data/local/tmp/blob.bin"));
      expect(back.equals(data)).toBe(true);
    } finally {
      await sync.dispose();
    }
  });

  it("changes the screenshot and dump after input tap, and reports focus via dumpsys", async () => {
    const none = adb.subprocess.noneProtocol;
    const dump = await none.spawnWaitText("uiautomator dump /dev/tty");
    const m = /text="Later"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(dump)!;
    const before = Buffer.from(await none.spawnWait("screencap -p"));
    await none.spawnWait(`input tap ${(Number(m[1]) + Number(m[3])) / 2} ${(Number(m[2]) + Number(m[4])) / 2}`);
    const after = Buffer.from(await none.spawnWait("screencap -p"));
    expect(after.equals(before)).toBe(false);
    expect(await none.spawnWaitText("uiautomator dump /dev/tty")).not.toContain("Update available");
    expect(await none.spawnWaitText("dumpsys window | grep mCurrentFocus")).toMatch(/mCurrentFocus=Window\{[0-9a-f]+ u0 com\.phoneloop\.social\/com\.phoneloop\.social\.MainActivity\}/);
  });
});

const waitForPrompt = async (p: VirtualPhone) => {
  for (let i = 0; i < 1000 && p.keyStore.listPending().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  expect(p.keyStore.listPending()).toHaveLength(1);
};

describe("@yume-chan/adb AUTH", () => {
  it("a new key gets no connection until the prompt is allowed, then signs in by signature next time", async () => {
    const store = new NodeCredentialStore();
    const pending = AdbDaemonTransport.authenticate({ serial: "a", connection: await wsConnection(authPhone.wsUrl), credentialStore: store });
    let connected = false;
    void pending.then(() => (connected = true), () => {});
    await waitForPrompt(authPhone);
    const root = (await (await fetch(`${authPhone.controlUrl}/`, { headers: { authorization: `Bearer ${authPhone.controlToken}` } })).json()) as { connections: { ws: string[] } };
    expect(root.connections.ws).toEqual(["unauthorized"]); // the phone serves no stream on it: OPEN is ignored until authorized
    expect(connected).toBe(false);
    expect(authPhone.engine.fs.readFile("/data/misc/adb/adb_keys").toString()).toBe(""); // not remembered while asking
    // answer the prompt on the phone's screen, as a person would
    expect(authPhone.engine.uiDump()).toContain('text="Allow"');
    tapOn(authPhone.engine, "alwaysUse"); // "Always allow from this computer", so the key is remembered
    tapOn(authPhone.engine, "Allow");
    const adb = new Adb(await pending);
    expect((await adb.subprocess.shellProtocol!.spawnWaitText("echo ok")).stdout).toBe("ok\n");
    await adb.close();
    // same key again: accepted by signature, no prompt
    const again = new Adb(await AdbDaemonTransport.authenticate({ serial: "a", connection: await tcpConnection(authPhone.adbPort), credentialStore: store }));
    expect(authPhone.keyStore!.listPending()).toHaveLength(0);
    await again.close();
    // after "Revoke USB debugging authorizations" the same key must be allowed again
    const revoked = await fetch(`${authPhone.controlUrl}/auth/revoke`, { method: "POST", headers: { authorization: `Bearer ${authPhone.controlToken}` } });
    expect(revoked.status).toBe(200);
    const third = AdbDaemonTransport.authenticate({ serial: "a", connection: await tcpConnection(authPhone.adbPort), credentialStore: store });
    await waitForPrompt(authPhone);
    authPhone.keyStore.answer("accept");
    await (await third).close();
  });

  it("remembers an always-allowed key in the state dir's adb_keys across restarts", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "vphone-state-"));
    const store = new NodeCredentialStore("kept@host");
    const first = await startVirtualPhone({ stateDir });
    try {
      const pending = AdbDaemonTransport.authenticate({ serial: "k", connection: await tcpConnection(first.adbPort), credentialStore: store });
      await waitForPrompt(first);
      first.keyStore.answer("accept", { always: true });
      await (await pending).close();
    } finally {
      await first.stop();
    }
    const file = join(stateDir, "adb_keys");
    expect(readFileSync(file, "utf8")).toBe(`${store.publicKeyLines()[0]}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = await startVirtualPhone({ stateDir });
    try {
      const adb = new Adb(await AdbDaemonTransport.authenticate({ serial: "k", connection: await tcpConnection(second.adbPort), credentialStore: store }));
      expect(second.keyStore.listPending()).toHaveLength(0);
      expect((await adb.subprocess.shellProtocol!.spawnWaitText("cat /data/misc/adb/adb_keys")).stdout).toBe(`${store.publicKeyLines()[0]}\n`);
      await adb.close();
    } finally {
      await second.stop();
    }
  });
});

describe("@yume-chan/adb reboot", () => {
  it("drops the connection, refuses while offline, then boots with sys.boot_completed rising to 1", async () => {
    const rebooting = await startVirtualPhone({ bootTimings: { offlineMs: 600, bootMs: 1200 }, adbKeys: trusted.publicKeyLines() });
    try {
      const connect = async () => new Adb(await AdbDaemonTransport.authenticate({ serial: "r", connection: await tcpConnection(rebooting.adbPort), credentialStore: trusted }));
      const first = await connect();
      const gone = first.disconnected;
      void first.power.reboot().catch(() => {});
      await gone;
      let again: Adb | null = null;
      for (let i = 0; i < 200 && !again; i++) {
        again = await connect().catch(() => null);
        if (!again) await new Promise((r) => setTimeout(r, 50));
      }
      expect(again).not.toBeNull();
      const r = await again!.subprocess.shellProtocol!.spawnWaitText('n=0; while [ "$(getprop sys.boot_completed)" != 1 ]; do n=$((n+1)); sleep 0.1; done; echo "up after $n"');
      expect(r.stdout).toMatch(/^up after [1-9]\d*\n$/);
      await again!.close();
    } finally {
      await rebooting.stop();
    }
  });
});
