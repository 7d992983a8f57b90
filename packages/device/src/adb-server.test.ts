// The host adb server path: a real `adb` (Debian's /usr/bin/adb) on a private port connects to the virtual phone
// over TCP, and connectAdbServer drives it through @yume-chan/adb-server-node-tcp.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdbDevice } from "./adb-device.ts";
import { connectAdbServer, listAdbServerPhones } from "./connections/adb-server.ts";
import { ConnectionFailed } from "./errors.ts";

const ADB = "/usr/bin/adb";

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe.skipIf(!existsSync(ADB))("adb server connection", () => {
  let phone: VirtualPhone;
  let port: number;
  let env: NodeJS.ProcessEnv;
  const adb = (...args: string[]) => execFileSync(ADB, ["-P", String(port), ...args], { env, timeout: 20_000 }).toString();

  beforeAll(async () => {
    port = await freePort();
    const home = mkdtempSync(join(tmpdir(), "phoneloop-adb-home-"));
    // A private HOME keeps the test's adb key and server away from the developer's own.
    env = { ...process.env, HOME: home, ANDROID_SDK_HOME: home, ANDROID_USER_HOME: join(home, ".android") };
    adb("start-server");
    // the phone already lists the key this adb server made on start, as a phone that allowed this computer does
    phone = await startVirtualPhone({ adbPort: 0, adbKeys: [readFileSync(join(home, ".android", "adbkey.pub"), "utf8")] });
    try {
      adb("connect", `127.0.0.1:${phone.adbPort}`);
    } catch {
      // old adb versions report "failed to connect" while the transport is still coming up; polled below
    }
  });
  afterAll(async () => {
    try {
      adb("kill-server");
    } catch {
      /* already gone */
    }
    await phone?.stop();
  });

  it("lists the phone and drives it through the server", async () => {
    const serial = `127.0.0.1:${phone.adbPort}`;
    for (let i = 0; i < 100; i++) {
      const phones = await listAdbServerPhones({ port });
      if (phones.some((p) => p.serial === serial && p.state === "device")) break;
      if (i === 20) adb("connect", serial);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await listAdbServerPhones({ port })).toContainEqual(expect.objectContaining({ serial, state: "device" }));
    const device = new AdbDevice(await connectAdbServer({ port, serial }));
    const info = await device.info();
    expect(info.serial).toBe(phone.serial);
    expect(info.screen).toEqual({ width: 1080, height: 2400, density: 420 });
    expect((await device.screenshot()).height).toBe(2400);
    expect((await device.foreground()).packageName).toBe("com.phoneloop.social");
    await device.close();
  });

  it("explains a missing adb server", async () => {
    const e = await connectAdbServer({ port: await freePort() }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionFailed);
    expect((e as Error).message).toContain("adb start-server");
  });
});
