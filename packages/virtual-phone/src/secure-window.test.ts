// The secure-window fault: the foreground app's window marked FLAG_SECURE, as a banking app or a password screen
// marks its own. screencap (PNG and raw) returns black frames, `dumpsys window` lists SECURE among that window's
// flags only, the UI tree is still read; the control API turns it on and off.
import { describe, expect, it } from "vitest";
import { PhoneEngine } from "./engine.ts";
import { ManualClock } from "./testing.ts";
import { Shell } from "./shell/interpreter.ts";
import { createCommandRegistry } from "./shell/commands/index.ts";
import { decodeRawScreen } from "./render/raw.ts";
import { inspectPng } from "./conformance/png.ts";

function phone() {
  const engine = new PhoneEngine({ scenario: "social", seed: 1, clock: new ManualClock() });
  engine.launch("social");
  const sh = new Shell({ fs: engine.fs, phone: engine }, createCommandRegistry());
  const run = async (line: string) => {
    const out: Buffer[] = [];
    await sh.run(line, { out: (d) => out.push(d), err: () => undefined });
    return Buffer.concat(out);
  };
  return { engine, run };
}

const rawPixels = (raw: Buffer) => raw.subarray(16);
const allBlack = (rgba: Buffer) => rgba.every((v, i) => (i % 4 === 3 ? v === 255 : v === 0));

describe("a secure window", () => {
  it("screencap is black (PNG and raw, at the screen's size), dumpsys window flags the app's window SECURE, the tree is still read", async () => {
    const { engine, run } = phone();
    const seen = await engine.screenshot();
    expect(allBlack(rawPixels(await decodeRawScreen(engine)))).toBe(false);
    expect((await run("dumpsys window")).toString()).not.toMatch(/\bSECURE\b/);

    engine.secureWindow(true);
    const black = await run("screencap -p");
    expect(inspectPng(black)).toMatchObject({ width: inspectPng(seen).width, height: inspectPng(seen).height });
    expect(black.equals(seen)).toBe(false);
    expect(allBlack(rawPixels(await decodeRawScreen(engine)))).toBe(true);
    const windows = (await run("dumpsys window")).toString();
    const app = windows.split("\n  Window #").find((w) => w.includes("com.phoneloop.social/") && w.includes("ty=base_application"));
    expect(app).toMatch(/fl=[^\n}]*\bSECURE\b/);
    expect(windows.split("\n  Window #").filter((w) => /\bSECURE\b/.test(w))).toHaveLength(1);
    expect(engine.uiDump()).toContain("com.phoneloop.social");

    engine.secureWindow(false);
    expect((await engine.screenshot()).equals(seen)).toBe(true);
    expect((await run("dumpsys window")).toString()).not.toMatch(/\bSECURE\b/);
  });
});
