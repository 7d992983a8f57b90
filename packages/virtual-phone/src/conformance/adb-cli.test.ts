// Conformance: Debian's real `adb` client against the virtual phone over TCP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startVirtualPhone, type VirtualPhone } from "../index.ts";
import { adbClient, privatePort } from "./adb-cli.ts";
import { inspectPng } from "./png.ts";

const server = privatePort(1);
const adb = adbClient(server);
let phone: VirtualPhone;
let serial: string;
const sh = (...args: string[]) => adb.run(["-s", serial, ...args]);

function centerOf(xml: string, attr: string, value: string): [number, number] {
  const re = new RegExp(`<node [^>]*${attr}="${value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"[^>]*bounds="\\[(\\d+),(\\d+)\\]\\[(\\d+),(\\d+)\\]"`);
  const m = re.exec(xml);
  if (!m) throw new Error(`no node with ${attr}="${value}" in the dump`);
  return [(Number(m[1]) + Number(m[3])) / 2, (Number(m[2]) + Number(m[4])) / 2];
}

beforeAll(async () => {
  // the phone already lists this adb client's key in adb_keys, as a phone that allowed this computer does
  phone = await startVirtualPhone({ scenario: "social", seed: 1, adbKeys: [await adb.publicKey()] });
  serial = `127.0.0.1:${phone.adbPort}`;
  const r = await adb.run(["connect", serial]);
  expect(r.stdout.toString()).toContain(`connected to ${serial}`);
});

afterAll(async () => {
  await adb.run(["disconnect", serial]);
  await adb.killServer();
  await phone?.stop();
});

describe("real adb client over TCP", () => {
  it("lists the device with its model", async () => {
    const r = await adb.run(["devices", "-l"]);
    expect(r.stdout.toString()).toMatch(new RegExp(`${serial.replace(/\./g, "\\.")}\\s+device product:phoneloop_vphone model:PhoneLoop_Virtual device:vphone`));
  });

  it("returns shell exit codes through shell v2", async () => {
    expect((await sh("shell", "echo hello")).stdout.toString()).toBe("hello\n");
    expect((await sh("shell", "exit 3")).code).toBe(3);
    expect((await sh("shell", "false")).code).toBe(1);
    const r = await sh("shell", "nosuchcmd");
    expect(r.code).toBe(127);
    expect(r.stderr).toContain("/system/bin/sh: nosuchcmd: inaccessible or not found");
    const both = await sh("shell", "echo out; echo err >&2; exit 5");
    expect(both.stdout.toString()).toBe("out\n");
    expect(both.stderr).toBe("err\n");
    expect(both.code).toBe(5);
  });

  it("gives a valid PNG of the device's size from exec-out screencap -p", async () => {
    const r = await sh("exec-out", "screencap -p");
    expect(r.code).toBe(0);
    expect(inspectPng(r.stdout)).toMatchObject({ width: 1080, height: 2400 });
  });

  it("dumps the UI hierarchy to /dev/tty the way Android does", async () => {
    const out = (await sh("shell", "uiautomator dump /dev/tty")).stdout.toString("utf8");
    expect(out.startsWith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">")).toBe(true);
    expect(out.endsWith("</hierarchy>UI hierchary dumped to: /dev/tty\n")).toBe(true);
    expect(out).toContain('text="Update available"');
  });

  it("round-trips a 1 MiB file with push and pull", async () => {
    const local = join(adb.home, "one-mib.bin");
    const back = join(adb.home, "one-mib.back");
    const data = randomBytes(1024 * 1024);
    writeFileSync(local, data);
    const push = await adb.run(["-s", serial, "push", local, "/sdcard/Download/one-mib.bin"]);
    expect(push.code, push.stderr).toBe(0);
    const ls = await sh("shell", "ls -l /sdcard/Download/one-mib.bin");
    expect(ls.stdout.toString()).toContain(" 1048576 ");
    const pull = await adb.run(["-s", serial, "pull", "/sdcard/Download/one-mib.bin", back]);
    expect(pull.code, pull.stderr).toBe(0);
    expect(readFileSync(back).equals(data)).toBe(true);
    const missing = await adb.run(["-s", serial, "pull", "/sdcard/nope.bin", back]);
    expect(missing.code).not.toBe(0);
  });

  it("streams stdin into exec-in and shell commands that read it", async () => {
    const r = await adb.run(["-s", serial, "exec-in", "cat > /sdcard/in.txt"], Buffer.from("from stdin\n"));
    expect(r.code, r.stderr).toBe(0);
    // adb exits once it has sent stdin and closed the stream, as with a real phone: the phone may still be writing
    // the file when the next command arrives, so it is read until it is there (a few tries).
    let written = "";
    for (let i = 0; i < 50 && written !== "from stdin\n"; i++) {
      if (i) await new Promise((res) => setTimeout(res, 100));
      written = (await sh("shell", "cat /sdcard/in.txt")).stdout.toString();
    }
    expect(written).toBe("from stdin\n");
    const interactive = await adb.run(["-s", serial, "shell"], Buffer.from("echo hi\ngetprop ro.product.device\nexit\n"));
    expect(interactive.stdout.toString()).toContain("hi");
    expect(interactive.stdout.toString()).toContain("vphone");
  });

  it("changes the next screenshot and dump after input tap on a button", async () => {
    const before = (await sh("exec-out", "screencap -p")).stdout;
    const dump = (await sh("exec-out", "uiautomator dump /dev/tty")).stdout.toString();
    const [x, y] = centerOf(dump, "text", "Later");
    expect((await sh("shell", `input tap ${x} ${y}`)).code).toBe(0);
    const after = (await sh("exec-out", "screencap -p")).stdout;
    const dumpAfter = (await sh("exec-out", "uiautomator dump /dev/tty")).stdout.toString();
    expect(after.equals(before)).toBe(false);
    expect(dump).toContain("Update available");
    expect(dumpAfter).not.toContain("Update available");
    expect(dumpAfter).toContain('content-desc="Search"');
  });

  it("reports the focused window like dumpsys window | grep mCurrentFocus", async () => {
    const r = await sh("shell", "dumpsys window | grep mCurrentFocus");
    expect(r.stdout.toString()).toMatch(/^ {2}mCurrentFocus=Window\{[0-9a-f]+ u0 com\.phoneloop\.social\/com\.phoneloop\.social\.MainActivity\}\n$/);
    const app = await sh("shell", "dumpsys window | grep -E 'mFocusedApp'");
    expect(app.stdout.toString()).toMatch(/^ {2}mFocusedApp=ActivityRecord\{[0-9a-f]+ u0 com\.phoneloop\.social\/\.MainActivity t\d+\}\n$/);
  });

  it("types Chinese through ADBKeyboard broadcasts into the focused field", async () => {
    expect((await sh("shell", "ime set com.android.adbkeyboard/.AdbIME")).stdout.toString()).toBe("Input method com.android.adbkeyboard/.AdbIME selected for user #0\n");
    await sh("shell", "am start -a android.intent.action.VIEW -d loop://home");
    const dump = (await sh("exec-out", "uiautomator dump /dev/tty")).stdout.toString();
    const [x, y] = centerOf(dump, "content-desc", "Search");
    await sh("shell", `input tap ${x} ${y}`);
    const b = await sh("shell", "am broadcast -a ADB_INPUT_TEXT --es msg '手机智能体'");
    expect(b.stdout.toString()).toContain("Broadcast completed: result=0");
    const state = (await (await fetch(`${phone.controlUrl}/state`, { headers: { authorization: `Bearer ${phone.controlToken}` } })).json()) as { apps: { social: { vars: { searchDraft: string } } } };
    expect(state.apps.social.vars.searchDraft).toBe("手机智能体");
    const b64 = Buffer.from(" 你好").toString("base64");
    await sh("shell", `am broadcast -a ADB_INPUT_B64 --es msg ${b64}`);
    expect(phone.engine.runtime.state.apps.social!.vars.searchDraft).toBe("手机智能体 你好");
    // plain `input text` cannot type Chinese, as on a real phone
    const plain = await sh("shell", "input text 中文");
    expect(plain.code).toBe(255);
    expect(phone.engine.runtime.state.apps.social!.vars.searchDraft).toBe("手机智能体 你好");
  });
});
