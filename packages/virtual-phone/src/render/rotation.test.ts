// `settings put system user_rotation N` turns the screen: dumpsys, the screenshot and the UI dump all agree.
import { describe, expect, it } from "vitest";
import { PhoneEngine } from "../engine.ts";
import { ManualClock, center, find, parseDump } from "../testing.ts";
import { Shell } from "../shell/interpreter.ts";
import { createCommandRegistry } from "../shell/commands/index.ts";
import { inspectPng } from "../conformance/png.ts";

function shell() {
  const engine = new PhoneEngine({ scenario: "social", seed: 1, clock: new ManualClock() });
  const sh = new Shell({ fs: engine.fs, phone: engine }, createCommandRegistry());
  const run = async (line: string) => {
    const out: Buffer[] = [];
    const code = await sh.run(line, { out: (d) => out.push(d), err: (d) => out.push(d) });
    return { out: Buffer.concat(out).toString(), code };
  };
  return { engine, run };
}

describe("rotation", () => {
  it("starts upright and reports rotation 0 everywhere clients look", async () => {
    const { run } = shell();
    expect((await run("dumpsys display")).out).toMatch(/DisplayViewport\{[^}]*orientation=0, logicalFrame=Rect\(0, 0 - 1080, 2400\)/);
    expect((await run("dumpsys input")).out).toContain("SurfaceOrientation: 0");
    expect((await run("dumpsys SurfaceFlinger --display-id")).out).toMatch(/^Display \d+ \(HWC display 0\): port=0/);
  });

  for (const rotation of [1, 2, 3]) {
    it(`user_rotation ${rotation}: dumpsys, wm, the screenshot and the UI dump agree`, async () => {
      const { engine, run } = shell();
      expect((await run(`settings put system user_rotation ${rotation}`)).code).toBe(0);
      const [w, h] = rotation % 2 ? [2400, 1080] : [1080, 2400];
      expect((await run("dumpsys display")).out).toMatch(new RegExp(`orientation=${rotation}, logicalFrame=Rect\\(0, 0 - ${w}, ${h}\\)`));
      expect((await run("dumpsys display")).out).toContain(`real ${w} x ${h}`);
      expect((await run("dumpsys input")).out).toContain(`SurfaceOrientation: ${rotation}`);
      expect((await run("dumpsys window displays")).out).toContain(`cur=${w}x${h}`);
      expect((await run("dumpsys window")).out).toContain(`mRotation=ROTATION_${rotation * 90}`);
      // the panel keeps its physical size, as `wm size` says on Android in any rotation
      expect((await run("wm size")).out).toBe("Physical size: 1080x2400\n");
      const png = inspectPng(await engine.screenshot());
      expect([png.width, png.height]).toEqual([w, h]);
      const xml = engine.uiDump();
      expect(xml).toContain(`<hierarchy rotation="${rotation}">`);
      for (const n of parseDump(xml)) {
        expect(n.bounds[2], n.text || n.resourceId).toBeLessThanOrEqual(w);
        expect(n.bounds[3], n.text || n.resourceId).toBeLessThanOrEqual(h);
      }
    });
  }

  it("lays apps out in the rotated size, and taps land where the landscape dump says", async () => {
    const { engine, run } = shell();
    await run("settings put system user_rotation 1");
    engine.launch("settings");
    const net = find(engine, "Network & internet");
    const row = parseDump(engine.uiDump()).find((n) => n.attrs.clickable === "true" && n.bounds[1] <= net.bounds[1] && n.bounds[3] >= net.bounds[3] && n.bounds[0] === 0)!;
    expect(row.bounds[2]).toBe(2400); // the row spans the landscape width
    engine.tap(...center(net));
    expect(engine.runtime.current()?.frame.screen).toBe("network");
  });

  it("follows the (upright) sensor again when auto-rotate is switched on", async () => {
    const { engine, run } = shell();
    await run("settings put system user_rotation 1");
    await run("settings put system accelerometer_rotation 1");
    expect((await run("dumpsys input")).out).toContain("SurfaceOrientation: 0");
    expect(inspectPng(await engine.screenshot()).width).toBe(1080);
  });
});
