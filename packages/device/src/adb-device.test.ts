// AdbDevice against a fake Adb: an object literal whose shell answers from a script, over in-memory streams.
import type { Adb } from "@yume-chan/adb";
import { describe, expect, it } from "vitest";
import { AdbDevice, parseBattery, parseForeground, parseWmDensity, parseWmSize, scrollGesture } from "./adb-device.ts";
import { AdbKeyboardMissing, DeviceClosed, DeviceCommandFailed, DeviceDisconnected, DeviceTimeout } from "./errors.ts";
import { encode } from "fast-png";
import { phashPng } from "./phash.ts";

type Reply = string | Uint8Array | { stdout?: string | Uint8Array; stderr?: string; exitCode?: number } | "hang";

function fakeAdb(reply: (command: string) => Reply) {
  let lose!: (e?: unknown) => void;
  const disconnected = new Promise<void>((resolve, reject) => (lose = (e) => (e ? reject(e) : resolve())));
  disconnected.catch(() => undefined);
  const commands: string[] = [];
  const stream = (data: Uint8Array | undefined) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        if (data === undefined) return; // hang
        if (data.length) c.enqueue(data);
        c.close();
      },
    });
  const enc = (v: string | Uint8Array | undefined) => (typeof v === "string" ? new TextEncoder().encode(v) : (v ?? new Uint8Array()));
  const adb = {
    serial: "fake-1",
    disconnected,
    close: async () => undefined,
    subprocess: {
      shellProtocol: {
        spawn: async ([command]: string[]) => {
          commands.push(command!);
          const r = reply(command!);
          if (r === "hang") return { stdout: stream(undefined), stderr: stream(undefined), exited: new Promise<number>(() => undefined) };
          const o = typeof r === "string" || r instanceof Uint8Array ? { stdout: r } : r;
          return { stdout: stream(enc(o.stdout)), stderr: stream(enc(o.stderr)), exited: Promise.resolve(o.exitCode ?? 0) };
        },
      },
    },
  };
  return { adb: adb as unknown as Adb, commands, lose };
}

const png = (shade: number) => {
  const px = new Uint8Array(64 * 128);
  for (let i = 0; i < px.length; i++) px[i] = i % 64 < 32 ? shade : 255 - shade;
  return encode({ width: 64, height: 128, data: px, channels: 1 });
};

describe("output parsers", () => {
  it("reads wm size/density, battery and the foreground window", () => {
    expect(parseWmSize("Physical size: 1080x2400\n")).toEqual({ width: 1080, height: 2400 });
    expect(parseWmSize("Physical size: 1080x2400\nOverride size: 720x1600\n")).toEqual({ width: 720, height: 1600 });
    expect(parseWmDensity("Physical density: 420\n")).toBe(420);
    expect(parseBattery("Current Battery Service state:\n  AC powered: false\n  USB powered: true\n  status: 2\n  level: 85\n  scale: 100\n")).toEqual({ level: 85, charging: true });
    expect(parseBattery("  USB powered: false\n  status: 3\n  level: 40\n  scale: 100\n")).toEqual({ level: 40, charging: false });
    expect(parseBattery("Can't find service: battery")).toBeNull();
    expect(parseForeground("  mCurrentFocus=Window{4c3b9e5 u0 com.android.settings/com.android.settings.Settings}\n")).toEqual({ packageName: "com.android.settings", activity: "com.android.settings.Settings" });
    expect(parseForeground("  mCurrentFocus=Window{1 u0 StatusBar}\n  mFocusedApp=ActivityRecord{7f0e3c u0 com.example.social/.MainActivity t21}\n")).toEqual({ packageName: "com.example.social", activity: "com.example.social.MainActivity" });
    expect(parseForeground("nothing")).toBeNull();
  });

  it("reads whether the focused window is secure (FLAG_SECURE in its flags), and only that window's flags", () => {
    const dump = (bankFlags: string) =>
      [
        "WINDOW MANAGER WINDOWS (dumpsys window windows)",
        "  Window #0 Window{11 u0 StatusBar}:",
        "    mAttrs={(0,0)(fillxwrap) ty=STATUS_BAR fmt=TRANSLUCENT",
        "      fl=NOT_FOCUSABLE SECURE}",
        "  Window #1 Window{22 u0 com.example.bank/com.example.bank.Login}:",
        `    mAttrs={(0,0)(fillxfill) sim={adjust=resize} ty=BASE_APPLICATION fmt=TRANSLUCENT${bankFlags}}`,
        "    mHasSurface=true",
        "",
        "  mCurrentFocus=Window{22 u0 com.example.bank/com.example.bank.Login}",
      ].join("\n");
    expect(parseForeground(dump("\n      fl=LAYOUT_IN_SCREEN SECURE HARDWARE_ACCELERATED"))).toEqual({ packageName: "com.example.bank", activity: "com.example.bank.Login", secure: true });
    // Another window's SECURE (the status bar's) is not the focused window's.
    expect(parseForeground(dump("\n      fl=LAYOUT_IN_SCREEN HARDWARE_ACCELERATED"))).toEqual({ packageName: "com.example.bank", activity: "com.example.bank.Login" });
  });

  it("scrolls down by moving the finger up", () => {
    const g = scrollGesture("down", { width: 1000, height: 2000 });
    expect(g.from.y).toBeGreaterThan(g.to.y);
    expect(scrollGesture("right", { width: 1000, height: 2000 }).from.x).toBeGreaterThan(scrollGesture("right", { width: 1000, height: 2000 }).to.x);
  });
});

describe("AdbDevice", () => {
  it("fails every pending call with one DeviceDisconnected when the connection drops", async () => {
    const { adb, lose } = fakeAdb(() => "hang");
    const device = new AdbDevice(adb);
    const calls = [device.screenshot(), device.uiTree(), device.tap({ x: 1, y: 2 })];
    const cause = new Error("Socket ended");
    lose(cause);
    const results = await Promise.allSettled(calls);
    const errors = results.map((r) => (r.status === "rejected" ? r.reason : undefined));
    for (const e of errors) expect(e).toBeInstanceOf(DeviceDisconnected);
    expect(new Set(errors).size).toBe(1);
    await expect(device.foreground()).rejects.toBe(errors[0]);
    expect(await device.disconnected).toBe(errors[0]);
  });

  it("times out a call the phone never answers and reports which", async () => {
    const { adb } = fakeAdb(() => "hang");
    const device = new AdbDevice(adb);
    const e = await device.foreground({ timeoutMs: 20 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DeviceTimeout);
    expect((e as DeviceTimeout).operation).toBe("foreground");
  });

  it("rejects calls after close with DeviceClosed", async () => {
    const { adb } = fakeAdb(() => "hang");
    const device = new AdbDevice(adb);
    const pending = device.screenshot();
    await device.close();
    await expect(pending).rejects.toBeInstanceOf(DeviceClosed);
    await expect(device.tap({ x: 0, y: 0 })).rejects.toBeInstanceOf(DeviceClosed);
  });

  it("scrolls in the screen's turned coordinates: a landscape frame on a portrait phone swaps wm size's width and height", async () => {
    const landscape = encode({ width: 240, height: 108, data: new Uint8Array(240 * 108).fill(90), channels: 1 });
    let frame: Uint8Array = png(10);
    const { adb, commands } = fakeAdb((c) => (c === "wm size" ? "Physical size: 1080x2400\n" : c === "screencap -p" ? frame : ""));
    const device = new AdbDevice(adb);
    const swipe = () => commands.filter((c) => c.startsWith("input swipe")).at(-1)!.split(" ").slice(2, 6).map(Number) as [number, number, number, number];
    await device.screenshot();
    await device.scroll("down");
    const [, y1, , y2] = swipe();
    expect(Math.max(y1, y2)).toBeGreaterThan(1080); // portrait: the finger travels down a 2400-high screen
    frame = landscape;
    await device.screenshot();
    await device.scroll("down");
    const [x1, ly1, x2, ly2] = swipe();
    for (const y of [ly1, ly2]) expect(y).toBeLessThan(1080);
    for (const x of [x1, x2]) expect(x).toBeLessThan(2400);
    expect(ly1).toBeGreaterThan(ly2); // scrolling down moves the finger up
    expect(commands.filter((c) => c === "wm size")).toHaveLength(1);
  });

  it("turns screencap errors into an explained DeviceCommandFailed", async () => {
    const { adb } = fakeAdb(() => ({ stdout: "", stderr: "Capturing failed: secure layer", exitCode: 1 }));
    await expect(new AdbDevice(adb).screenshot()).rejects.toBeInstanceOf(DeviceCommandFailed);
  });

  it("types ASCII with input text and Unicode through ADBKeyboard, restoring the user's keyboard", async () => {
    let ime = "com.google.latin/.LatinIME";
    const { adb, commands } = fakeAdb((c) => {
      if (c === "ime list -a -s") return "com.google.latin/.LatinIME\ncom.android.adbkeyboard/.AdbIME\n";
      if (c === "settings get secure default_input_method") return `${ime}\n`;
      const set = /^ime set '?([^']+)'?$/.exec(c);
      if (set) ime = set[1]!;
      return "";
    });
    const device = new AdbDevice(adb);
    await device.typeText("hi you");
    expect(commands).toEqual(["input text hi%syou"]);
    commands.length = 0;
    await device.typeText("移动 AI");
    expect(commands).toContain("ime set com.android.adbkeyboard/.AdbIME");
    expect(commands.find((c) => c.includes("ADB_INPUT_B64"))).toContain(Buffer.from("移动 AI").toString("base64"));
    expect(commands.at(-1)).toBe("ime set com.google.latin/.LatinIME");
    expect(ime).toBe("com.google.latin/.LatinIME");
  });

  it("names the fix when ADBKeyboard is missing", async () => {
    const { adb } = fakeAdb((c) => (c === "ime list -a -s" ? "com.google.latin/.LatinIME\n" : ""));
    const e = await new AdbDevice(adb).typeText("中文").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AdbKeyboardMissing);
    expect((e as Error).message).toContain("ADBKeyboard");
  });

  const tree = (loading: boolean) =>
    `<hierarchy rotation="0"><node class="android.widget.FrameLayout" resource-id="" bounds="[0,0][64,128]">${
      loading ? `<node class="android.widget.ProgressBar" resource-id="app:id/loading" bounds="[20,20][40,40]"/>` : `<node class="android.widget.TextView" text="done" bounds="[0,0][64,20]"/>`
    }</node></hierarchy>`;

  it("waitForStable returns once consecutive frames match, counting frames on an injected clock", async () => {
    const frames = [png(0), png(120), png(200), png(200), png(200), png(200)];
    let i = 0;
    let now = 0;
    const { adb } = fakeAdb((c) => (c === "screencap -p" ? frames[Math.min(i++, frames.length - 1)]! : c.startsWith("uiautomator") ? tree(false) : ""));
    const device = new AdbDevice(adb, { now: () => now, sleep: async (ms) => void (now += ms) });
    const r = await device.waitForStable({ timeoutMs: 5_000, intervalMs: 100 });
    expect(r).toMatchObject({ stable: true, frames: 5 });
    // The settled frame comes back with its pHash: the caller's next observation, no extra screenshot.
    expect(r.screenshot.png).toEqual(png(200));
    expect(r.screenshot).toMatchObject({ width: 64, height: 128 });
    expect(r.phash).toBe(await phashPng(png(200)));
    // Frames 4 and 5 match 200 ms apart; the injected clock also counts the prefetch of a sixth frame.
    expect(r.waitedMs).toBeGreaterThanOrEqual(400);
    expect(r.waitedMs).toBeLessThanOrEqual(500);
  });

  it("waitForStable settles a still screen on byte-identical frames without decoding one", async () => {
    let now = 0;
    const { adb, commands } = fakeAdb((c) => (c === "screencap -p" ? png(90) : c.startsWith("uiautomator") ? tree(false) : ""));
    const device = new AdbDevice(adb, { now: () => now, sleep: async (ms) => void (now += ms) });
    const r = await device.waitForStable({ timeoutMs: 5_000, intervalMs: 30, minQuietMs: 0, requiredMatches: 1 });
    expect(r).toMatchObject({ stable: true, frames: 2 });
    expect(r.tree?.children[0]).toMatchObject({ text: "done" });
    // Nothing differed, so nothing was hashed; the frame is the observation's screenshot as it is.
    expect(r.phash).toBeUndefined();
    expect(r.screenshot.png).toEqual(png(90));
    expect(commands.filter((c) => c.startsWith("uiautomator"))).toHaveLength(1);
  });

  it("waitForStable takes its settle criterion per call and hands back the UI tree it read for the indicator check", async () => {
    // The screen flips three times, then stays.
    const frames = [png(0), png(200), png(0), png(200), png(200), png(200), png(200), png(200)];
    let i = 0;
    let now = 0;
    const { adb, commands } = fakeAdb((c) => (c === "screencap -p" ? frames[Math.min(i++, frames.length - 1)]! : c.startsWith("uiautomator") ? tree(false) : ""));
    const device = new AdbDevice(adb, { now: () => now, sleep: async (ms) => void (now += ms) });
    // Two matching frames in a row, no quiet time: frame 5 settles it.
    const r = await device.waitForStable({ timeoutMs: 5_000, intervalMs: 100, minQuietMs: 0, requiredMatches: 1 });
    expect(r).toMatchObject({ stable: true, frames: 5, phash: await phashPng(png(200)) });
    expect(r.tree?.children[0]).toMatchObject({ className: "android.widget.TextView", text: "done" });
    expect(commands.filter((c) => c.startsWith("uiautomator"))).toHaveLength(1);
    // The device default (unchanged for 200 ms) needs frame 6.
    i = 0;
    expect(await device.waitForStable({ timeoutMs: 5_000, intervalMs: 100 })).toMatchObject({ stable: true, frames: 6 });
    // Three matching pairs in a row: frame 7.
    i = 0;
    expect(await device.waitForStable({ timeoutMs: 5_000, intervalMs: 100, minQuietMs: 0, requiredMatches: 3 })).toMatchObject({ stable: true, frames: 7 });
    // A pHash distance that takes any two frames for the same screen settles on frame 2.
    i = 0;
    expect(await device.waitForStable({ timeoutMs: 5_000, intervalMs: 100, minQuietMs: 0, maxDistance: 64 })).toMatchObject({ stable: true, frames: 2 });
    // Without the indicator check no tree is read, so none comes back.
    i = 0;
    const blind = await device.waitForStable({ timeoutMs: 5_000, intervalMs: 100, checkLoadingIndicators: false });
    expect(blind.stable).toBe(true);
    expect(blind.tree).toBeUndefined();
  });

  it("waitForStable keeps waiting while a still screen shows a loading skeleton", async () => {
    let now = 0;
    // The skeleton is a static frame for 700 ms, then the results (another static frame) appear.
    const { adb, commands } = fakeAdb((c) => {
      if (c === "screencap -p") return png(now < 700 ? 40 : 220);
      if (c.startsWith("uiautomator")) return tree(now < 700);
      return "";
    });
    const device = new AdbDevice(adb, { now: () => now, sleep: async (ms) => void (now += ms) });
    const r = await device.waitForStable({ timeoutMs: 5_000, intervalMs: 100 });
    expect(r.stable).toBe(true);
    expect(r.waitedMs).toBeGreaterThanOrEqual(700);
    expect(r.screenshot.png).toEqual(png(220)); // the results, not the skeleton
    expect(r.tree?.children[0]).toMatchObject({ text: "done" }); // and their tree, not the skeleton's
    expect(commands.filter((c) => c.startsWith("uiautomator")).length).toBeGreaterThanOrEqual(2);
    // Without the UI-tree check, the still skeleton passes for a finished screen: that is what the check is for.
    now = 0;
    const blind = new AdbDevice(adb, { now: () => now, sleep: async (ms) => void (now += ms), stable: { checkLoadingIndicators: false } });
    const fooled = await blind.waitForStable({ timeoutMs: 5_000, intervalMs: 100 });
    expect(fooled.stable).toBe(true);
    expect(fooled.waitedMs).toBeLessThan(700);
  });

  it("waitForStable gives up at its timeout on a screen that keeps changing", async () => {
    let i = 0;
    let now = 0;
    const { adb } = fakeAdb(() => png((i++ * 97) % 256));
    const device = new AdbDevice(adb, { now: () => now, sleep: async (ms) => void (now += ms) });
    const r = await device.waitForStable({ timeoutMs: 1_000, intervalMs: 100 });
    expect(r.stable).toBe(false);
    expect(r.waitedMs).toBeLessThanOrEqual(1_000);
    expect(r.frames).toBeGreaterThan(5);
    // Unsettled, it still hands back the last frame it compared.
    expect(r.screenshot.png).toEqual(png(((r.frames - 1) * 97) % 256));
    expect(r.phash).toBe(await phashPng(r.screenshot.png));
    expect(r.tree).toBeUndefined();
  });
});
