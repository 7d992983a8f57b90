// Conformance: appium-adb (Appium's Android layer, which drives the adb binary through the adb server) against the
// phone: launchable activities and package info for every pack app, files, push/pull, forward/reverse, processes,
// focus, device time, logcat and install refusal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADB } from "appium-adb";
import { startVirtualPhone, type VirtualPhone } from "../index.ts";
import { adbClient, privatePort } from "./adb-cli.ts";

const server = privatePort(5);
const cli = adbClient(server);
let phone: VirtualPhone;
let adb: ADB;
const work = mkdtempSync(join(tmpdir(), "vphone-appium-"));

beforeAll(async () => {
  phone = await startVirtualPhone({ scenario: "social", seed: 1, adbKeys: [await cli.publicKey()] });
  // appium-adb finds adb in an SDK layout: ANDROID_HOME/platform-tools/adb
  mkdirSync(join(work, "platform-tools"));
  symlinkSync(execFileSync("sh", ["-c", "command -v adb"], { encoding: "utf8" }).trim(), join(work, "platform-tools", "adb"));
  process.env.ANDROID_HOME = work;
  process.env.HOME = cli.home;
  await cli.run(["start-server"]);
  adb = await ADB.createADB({ adbPort: server, suppressKillServer: true, adbExecTimeout: 30_000 });
  await adb.adbExec(["connect", `127.0.0.1:${phone.adbPort}`]);
  adb.setDeviceId(`127.0.0.1:${phone.adbPort}`);
});

afterAll(async () => {
  await adb?.stopLogcat().catch(() => {});
  await cli.killServer();
  await phone?.stop();
});

describe("appium-adb", () => {
  it("reads the API level, the device time and settings", async () => {
    expect(await adb.getApiLevel()).toBe(34);
    expect(await adb.shell(["date", "+%Y-%m-%dT%T%z"])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000$/);
    expect(await adb.isWifiOn()).toBe(true);
    expect(await adb.getScreenDensity()).toBe(420);
  });

  it("finds the launchable activity and package info of every app of the pack", async () => {
    const rt = phone.engine.runtime;
    for (const app of rt.apps.values()) {
      const main = rt.activityOf(app).activity;
      expect(await adb.isAppInstalled(app.package), app.package).toBe(true);
      expect(await adb.resolveLaunchableActivity(app.package), app.package).toBe(`${app.package}/${main.startsWith(app.package + ".") ? main.slice(app.package.length) : main}`);
      expect(await adb.getPackageInfo(app.package)).toEqual({ name: app.package, isInstalled: true, versionName: "1.0", versionCode: 1 });
    }
    expect(await adb.isAppInstalled("com.example.absent")).toBe(false);
  });

  it("checks, lists, sizes, pushes and pulls files", async () => {
    expect(await adb.fileExists("/sdcard/Download")).toBe(true);
    expect(await adb.fileExists("/sdcard/absent")).toBe(false);
    const local = join(work, "up.txt");
    writeFileSync(local, "appium was here\n");
    await adb.push(local, "/data/local/tmp/up.txt");
    expect(await adb.fileSize("/data/local/tmp/up.txt")).toBe(16);
    expect(await adb.ls("/data/local/tmp")).toContain("up.txt");
    await adb.pull("/data/local/tmp/up.txt", join(work, "down.txt"));
    expect(readFileSync(join(work, "down.txt"), "utf8")).toBe("appium was here\n");
  });

  it("sees the app in front and its process", async () => {
    expect(await adb.getFocusedPackageAndActivity()).toEqual({ appPackage: "com.phoneloop.social", appActivity: ".MainActivity" });
    expect(await adb.processExists("com.phoneloop.social")).toBe(true);
    expect(await adb.processExists("com.phoneloop.mail")).toBe(false);
  });

  it("forwards ports and gets reverse refused", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    await adb.forwardPort(port, 9);
    expect((await adb.adbExec(["forward", "--list"])).toString()).toContain(`tcp:${port} tcp:9`);
    await adb.removePortForward(port);
    await expect(adb.reversePort(7002, 7002)).rejects.toThrow(/reverse is not supported on this virtual phone/);
  });

  it("collects logcat lines as apps log them", async () => {
    await adb.startLogcat();
    await adb.shell(["am", "start", "-a", "android.intent.action.VIEW", "-d", "'loop://search?q=appium'"]);
    let logs: { message: string }[] = [];
    for (let i = 0; i < 200 && !logs.some((l) => l.message.includes("q=appium")); i++) {
      await new Promise((r) => setTimeout(r, 50));
      logs = adb.getLogcatLogs() as { message: string }[];
    }
    expect(logs.map((l) => l.message).join("\n")).toMatch(/I Loop +: deeplink \{"uri":"loop:\/\/search\?q=appium"\}/);
    await adb.stopLogcat();
  });

  it("refuses an install with Android's Failure code", async () => {
    const apk = join(work, "fake.apk");
    writeFileSync(apk, "not a zip");
    await expect(adb.install(apk, { timeout: 20_000 })).rejects.toThrow(/INSTALL_PARSE_FAILED_NOT_APK/);
  });
});
