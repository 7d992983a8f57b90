// Shell commands print what Android prints.
import { describe, expect, it, vi } from "vitest";
import { PhoneEngine } from "../../engine.ts";
import { ManualClock } from "../../testing.ts";
import { Shell } from "../interpreter.ts";
import { createCommandRegistry } from "./index.ts";

function shell() {
  const engine = new PhoneEngine({ scenario: "social", seed: 1, clock: new ManualClock() });
  const sh = new Shell({ fs: engine.fs, phone: engine }, createCommandRegistry());
  const run = async (line: string) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const code = await sh.run(line, { out: (d) => out.push(d), err: (d) => err.push(d) });
    return { out: Buffer.concat(out).toString(), err: Buffer.concat(err).toString(), code };
  };
  return { engine, run };
}

describe("shell", () => {
  it("handles quotes, pipes, && / || and redirects", async () => {
    const { run } = shell();
    expect((await run(`echo 'a b' "c $HOME" | grep -o b`)).out).toBe("b\n");
    expect((await run("false && echo no || echo yes")).out).toBe("yes\n");
    expect((await run("echo hi > /sdcard/x.txt; cat /sdcard/x.txt")).out).toBe("hi\n");
    expect((await run("echo more >> /sdcard/x.txt && wc -l /sdcard/x.txt")).out).toBe("2\n");
    expect((await run("cat /nope 2>/dev/null; echo $?")).out).toBe("1\n");
    expect((await run("echo 'unterminated")).code).toBe(2);
    expect((await run("echo x > /system/y")).err).toContain("can't create /system/y: Read-only file system");
  });

  it("answers unknown commands like /system/bin/sh", async () => {
    const { run } = shell();
    expect(await run("frobnicate --now")).toEqual({ out: "", err: "/system/bin/sh: frobnicate: inaccessible or not found\n", code: 127 });
  });

  it("prints getprop, wm and battery like Android", async () => {
    const { run } = shell();
    expect((await run("getprop ro.product.model")).out).toBe("PhoneLoop Virtual\n");
    expect((await run("getprop")).out).toMatch(/^\[dev\.bootcomplete\]: \[1\]\n/);
    expect((await run("getprop no.such.prop")).out).toBe("\n");
    expect((await run("wm size")).out).toBe("Physical size: 1080x2400\n");
    expect((await run("wm density")).out).toBe("Physical density: 420\n");
    const bat = (await run("dumpsys battery")).out;
    expect(bat.startsWith("Current Battery Service state:\n  AC powered: false\n")).toBe(true);
    expect(bat).toContain("  level: 85\n");
  });

  it("lists packages, input methods and settings", async () => {
    const { run, engine } = shell();
    const pkgs = (await run("pm list packages")).out.split("\n");
    expect(pkgs).toContain("package:com.phoneloop.social");
    expect(pkgs).toContain("package:com.android.settings");
    expect(new Set(pkgs).size).toBe(pkgs.length);
    expect((await run("pm list packages -3 mail")).out).toBe("package:com.phoneloop.mail\n");
    expect((await run("ime list -s")).out).toBe("com.android.inputmethod.latin/.LatinIME\ncom.android.adbkeyboard/.AdbIME\n");
    expect((await run("settings get secure default_input_method")).out).toBe("com.android.inputmethod.latin/.LatinIME\n");
    await run("settings put global bluetooth_on 1");
    expect(engine.runtime.state.settings.global.bluetooth_on).toBe("1");
    expect((await run("settings get system nope")).out).toBe("null\n");
  });

  it("starts activities, deeplinks and launcher intents", async () => {
    const { run, engine } = shell();
    expect((await run("am start -n com.phoneloop.mail/.ConversationListActivity")).out).toBe("Starting: Intent { cmp=com.phoneloop.mail/.ConversationListActivity }\n");
    expect(engine.state().foreground).toBe("mail");
    const bad = await run("am start -n com.phoneloop.mail/.Nope");
    expect(bad.err).toBe("Error: Activity class {com.phoneloop.mail/com.phoneloop.mail.Nope} does not exist.\n");
    await run("am start -a android.intent.action.VIEW -d 'loop://search?q=adb'");
    expect(engine.state()).toMatchObject({ foreground: "social", screen: "results" });
    const none = await run("am start -a android.intent.action.VIEW -d nowhere://x");
    expect(none.err).toContain("Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW dat=nowhere://x flg=0x10000000 }");
    const monkey = await run("monkey -p com.phoneloop.notes -c android.intent.category.LAUNCHER 1");
    expect(monkey.out).toContain("Events injected: 1");
    expect(engine.state().foreground).toBe("notes");
    expect((await run("monkey -p com.nope -c android.intent.category.LAUNCHER 1")).err).toContain("** No activities found to run, monkey aborted.");
    await run("am force-stop com.phoneloop.notes");
    expect(engine.state().foreground).toBe("launcher");
    expect((await run("dumpsys window | grep mCurrentFocus")).out).toContain("com.google.android.apps.nexuslauncher/com.google.android.apps.nexuslauncher.NexusLauncherActivity}");
    expect((await run("dumpsys activity activities | grep mResumedActivity")).out).toMatch(/mResumedActivity: ActivityRecord\{[0-9a-f]+ u0 com\.google\.android\.apps\.nexuslauncher\/\.NexusLauncherActivity t\d+\}/);
  });

  it("handles input keyevents by name and code, and rejects bad input", async () => {
    const { run, engine } = shell();
    expect((await run("input keyevent KEYCODE_HOME")).code).toBe(0);
    expect(engine.state().foreground).toBe("launcher");
    await run("monkey -p com.phoneloop.social 1");
    await run("input keyevent 4");
    expect(engine.state().popup).toBeNull();
    expect((await run("input keyevent KEYCODE_BOGUS")).err).toBe("Error: Unknown keycode: KEYCODE_BOGUS\n");
    expect((await run("input tap x y")).code).toBe(1);
  });

  it("opens the shade with cmd statusbar and reports it as the focused window", async () => {
    const { run } = shell();
    expect((await run("cmd statusbar expand-settings")).code).toBe(0);
    expect((await run("dumpsys window | grep mCurrentFocus")).out).toMatch(/^ {2}mCurrentFocus=Window\{[0-9a-f]+ u0 NotificationShade\}\n$/);
    expect((await run("dumpsys window | grep mFocusedApp")).out).toContain("com.phoneloop.social/.MainActivity");
    await run("cmd statusbar collapse");
    expect((await run("dumpsys window | grep mCurrentFocus")).out).toContain("com.phoneloop.social/com.phoneloop.social.MainActivity");
  });

  it("lists running apps with ps/pidof and activity starts in logcat -d", async () => {
    const { run } = shell();
    expect((await run("pidof com.phoneloop.social")).out).toMatch(/^\d+\n$/);
    expect((await run("pidof com.phoneloop.mail")).code).toBe(1);
    await run("am start -n com.phoneloop.mail/.ConversationListActivity");
    expect((await run("ps -A | grep com.phoneloop.mail")).out).toContain("com.phoneloop.mail");
    expect((await run("logcat -d | grep ActivityTaskManager")).out).toContain("START u0 {cmp=com.phoneloop.mail/.ConversationListActivity}");
  });

  it("lists a command still running after its client left (a lagging phone's tap) with ps -o and pidof, until it ends", async () => {
    vi.useFakeTimers();
    try {
      const engine = new PhoneEngine({ scenario: "social", seed: 1, clock: new ManualClock(), latency: "lagging" });
      const host = { fs: engine.fs, phone: engine, beforeCommand: (argv: string[]) => engine.beforeCommand(argv) };
      const sink = { out: () => undefined, err: () => undefined };
      const gone = new AbortController();
      const tapper = new Shell(host, createCommandRegistry());
      tapper.signal = gone.signal;
      const tapped = vi.spyOn(engine, "tap");
      const tap = tapper.run("input tap 540 1200", sink);
      gone.abort(); // the client that sent the tap is gone
      const ask = async (line: string) => {
        const out: Buffer[] = [];
        const code = await new Shell({ fs: engine.fs, phone: engine }, createCommandRegistry()).run(line, { out: (d) => out.push(d), err: () => undefined });
        return { out: Buffer.concat(out).toString(), code };
      };
      await vi.advanceTimersByTimeAsync(1_000);
      const listed = (await ask("ps -A -o PID,ARGS")).out.split("\n");
      expect(listed[0]).toMatch(/^\s*PID ARGS$/);
      expect(listed.filter((l) => / input tap 540 1200$/.test(l))).toHaveLength(1);
      expect((await ask("pidof input")).out).toMatch(/^\d+\n$/);
      expect(tapped).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(2_000);
      expect(await tap).toBe(0);
      expect(tapped).toHaveBeenCalledWith(540, 1200);
      expect((await ask("ps -A -o PID,ARGS")).out).not.toContain("input tap");
      expect((await ask("pidof input")).code).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("writes uiautomator dumps to files and screencaps to files", async () => {
    const { run, engine } = shell();
    expect((await run("uiautomator dump")).out).toBe("UI hierchary dumped to: /sdcard/window_dump.xml\n");
    expect(engine.fs.readFile("/sdcard/window_dump.xml").toString()).toMatch(/^<\?xml/);
    await run("screencap -p /sdcard/s.png");
    expect(engine.fs.readFile("/storage/emulated/0/s.png").subarray(1, 4).toString()).toBe("PNG");
    const raw = engine.fs.readFile("/sdcard/s.png");
    expect(raw.length).toBeGreaterThan(1000);
  });
});
