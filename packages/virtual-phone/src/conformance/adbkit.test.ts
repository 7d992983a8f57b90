// Conformance: @devicefarmer/adbkit (a Node client that goes through the adb server) drives every service the phone
// offers: shell, sync (push/pull/stat/readdir with CLSE handshakes), forward, reverse, framebuffer, logcat -B, the
// package manager, install refusal, and reboot with its boot-wait loop.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:net";
import { Readable } from "node:stream";
import { randomBytes } from "node:crypto";
import { Adb, type Client, type DeviceClient } from "@devicefarmer/adbkit";
import { startVirtualPhone, type VirtualPhone } from "../index.ts";
import { adbClient, privatePort } from "./adb-cli.ts";

const server = privatePort(4);
const cli = adbClient(server);
let phone: VirtualPhone;
let client: Client;
let device: DeviceClient;
let serial: string;

const text = async (cmd: string) => (await Adb.util.readAll(await device.shell(cmd))).toString("utf8");

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  phone = await startVirtualPhone({ scenario: "social", seed: 1, bootTimings: { offlineMs: 800, bootMs: 1500 }, adbKeys: [await cli.publicKey()] });
  client = Adb.createClient({ host: "127.0.0.1", port: server });
  serial = await client.connect("127.0.0.1", phone.adbPort);
  device = client.getDevice(serial);
});

afterAll(async () => {
  await cli.killServer();
  await phone?.stop();
});

describe("@devicefarmer/adbkit through the adb server", () => {
  it("lists the device and reads its properties and features", async () => {
    expect(await client.listDevices()).toEqual([{ id: serial, type: "device" }]);
    const props = await device.getProperties();
    expect(props["ro.product.model"]).toBe("PhoneLoop Virtual");
    expect(props["sys.boot_completed"]).toBe("1");
    const features = await device.getFeatures();
    expect(features["android.hardware.touchscreen"]).toBe(true);
    expect(features["reqGlEsVersion"]).toBe("0x30002");
  });

  it("runs shell commands, including the language adb users write", async () => {
    expect(await text("echo hi")).toBe("hi\n");
    expect(await text("[ -d /sdcard ] && echo dir")).toBe("dir\n");
    expect(await text('for p in $(pm list packages -3 | cut -d: -f2 | sort | head -2); do echo "[$p]"; done')).toBe("[com.phoneloop.calendar]\n[com.phoneloop.clock]\n");
  });

  it("pushes, stats, lists and pulls through sync", async () => {
    const data = randomBytes(200_000);
    // in 64 KiB pieces, as a file stream reads: adbd refuses larger sync DATA packets, and adbkit sends each piece as one
    const pieces = Array.from({ length: Math.ceil(data.length / 65536) }, (_, i) => data.subarray(i * 65536, (i + 1) * 65536));
    const push = await device.push(Readable.from(pieces), "/sdcard/Download/kit.bin");
    await new Promise<void>((resolve, reject) => {
      push.on("end", resolve);
      push.on("error", reject);
    });
    const st = await device.stat("/sdcard/Download/kit.bin");
    expect(st.size).toBe(200_000);
    expect((await device.readdir("/sdcard/Download")).map((e: { name: string }) => e.name)).toContain("kit.bin");
    const back = await Adb.util.readAll(await device.pull("/sdcard/Download/kit.bin"));
    expect(back.equals(data)).toBe(true);
    const missing = await device.pull("/sdcard/absent.bin");
    await expect(new Promise((_resolve, reject) => missing.on("error", reject))).rejects.toThrow("open failed: No such file or directory");
  });

  it("forwards a port and has reverse refused with the phone's message", async () => {
    const port = await freePort();
    expect(await device.forward(`tcp:${port}`, "tcp:9")).toBe(true);
    expect(await device.listForwards()).toContainEqual({ serial, local: `tcp:${port}`, remote: "tcp:9" });
    await expect(device.reverse("tcp:7001", "tcp:7001")).rejects.toThrow(/reverse is not supported on this virtual phone/);
  });

  it("reads the framebuffer: a version 2 header (sRGB) and the pixels", async () => {
    const fb = await device.framebuffer("raw");
    const rest = await Adb.util.readAll(fb as never);
    // adbkit reads the 13-field version-1 layout; in version 2 the third field is the colour space, so its `size` is it
    expect(fb.meta.version).toBe(2);
    expect(fb.meta.bpp).toBe(32);
    expect(fb.meta.size).toBe(1); // sRGB
    expect(fb.meta.width).toBe(1080 * 2400 * 4); // the real size field, one place later
    expect(rest.length).toBe(4 + 1080 * 2400 * 4); // the last header field, then RGBA pixels
  });

  it("streams logcat -B entries as apps log them", async () => {
    const reader = await device.openLogcat();
    const seen = new Promise<{ tag: string; message: string }>((resolve) => {
      reader.on("entry", (e: { tag: string; message: string }) => {
        if (e.tag === "Loop" && e.message.includes("q=kit")) resolve(e);
      });
    });
    await text("am start -a android.intent.action.VIEW -d 'loop://search?q=kit'");
    const entry = await seen;
    expect(entry.message).toBe('deeplink {"uri":"loop://search?q=kit"}');
    reader.end();
  });

  it("answers package queries and refuses an install with a Failure line", async () => {
    expect(await device.isInstalled("com.phoneloop.social")).toBe(true);
    expect(await device.isInstalled("com.example.absent")).toBe(false);
    expect(await device.getPackages()).toContain("com.phoneloop.mail");
    await expect(device.install(Readable.from([Buffer.from("not a zip")]))).rejects.toThrow(/INSTALL_PARSE_FAILED_NOT_APK/);
  });

  it("reboots, waits for the device and for boot completion", async () => {
    expect(await device.reboot()).toBe(true);
    await device.waitForDevice();
    expect(await device.waitBootComplete()).toBe(true);
    expect(phone.power.reboots).toBe(1);
    expect(await text("getprop sys.boot_completed")).toBe("1\n");
  });
});
