// The shell language as mksh runs it: variables, export, exec, test, control flow, substitutions, here-strings, sh -c.
import { describe, expect, it } from "vitest";
import { PhoneEngine } from "../engine.ts";
import { ManualClock } from "../testing.ts";
import { Shell } from "./interpreter.ts";
import { createCommandRegistry } from "./commands/index.ts";

function shell() {
  const engine = new PhoneEngine({ scenario: "social", seed: 1, clock: new ManualClock() });
  const sh = new Shell({ fs: engine.fs, phone: engine }, createCommandRegistry());
  const run = async (line: string, stdin?: string) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const code = await sh.run(line, { out: (d) => out.push(d), err: (d) => err.push(d) }, stdin === undefined ? undefined : Buffer.from(stdin));
    return { out: Buffer.concat(out).toString(), err: Buffer.concat(err).toString(), code };
  };
  return { engine, sh, run };
}

describe("shell language", () => {
  it("keeps variables, exports them to commands and to sh -c", async () => {
    const { run } = shell();
    expect((await run('A=1; B="$A two"; echo "$B" ${C:-dflt} ${#B}')).out).toBe("1 two dflt 5\n");
    expect((await run('export ANDROID_LOG_TAGS="" ; env | grep ANDROID_LOG_TAGS')).out).toBe("ANDROID_LOG_TAGS=\n");
    expect((await run("X=inner sh -c 'echo $X $0 $1' zero one")).out).toBe("inner zero one\n");
    expect((await run("Y=local; sh -c 'echo [$Y]'; export Y; sh -c 'echo [$Y]'")).out).toBe("[]\n[local]\n");
    expect((await run("f=/sdcard/pic.png; echo ${f%.png} ${f##*/} ${f#/sdcard/}")).out).toBe("/sdcard/pic pic.png pic.png\n");
  });

  it("runs exec, and exit ends the script with its status", async () => {
    const { run } = shell();
    const r = await run("exec echo replaced; echo never");
    expect(r).toMatchObject({ out: "replaced\n", code: 0 });
    const e = await run("echo a; exit 4; echo b");
    expect(e).toMatchObject({ out: "a\n", code: 4 });
  });

  it("tests files and strings with test and [ ]", async () => {
    const { run } = shell();
    expect((await run("[ -e /sdcard ] && echo yes")).out).toBe("yes\n");
    expect((await run("[ -e /sdcard/nope ] && echo yes || echo no")).out).toBe("no\n");
    expect((await run("[ -d /sdcard ] && [ ! -f /sdcard ] && test -w /sdcard && ! test -w /system && echo ok")).out).toBe("ok\n");
    expect((await run('[ "$(getprop sys.boot_completed)" = 1 ] && echo booted')).out).toBe("booted\n");
    expect((await run("[ 3 -lt 10 -a abc != abd ]; echo $?")).out).toBe("0\n");
    expect((await run("[ -z '' ] && [ -n x ] && echo both")).out).toBe("both\n");
    expect((await run("[[ -d /sdcard && com.phoneloop.social == *.social && ! -e /nope ]] && echo ksh")).out).toBe("ksh\n");
    expect((await run("x='a b'; [[ $x == 'a b' || $x -eq 1 ]] && echo quoted")).out).toBe("quoted\n");
    const bad = await run("[ 1 -eq ]");
    expect(bad.code).toBe(2);
  });

  it("runs if, while, until, for and case", async () => {
    const { run } = shell();
    expect((await run("if [ -e /nope ]; then echo a; elif true; then echo b; else echo c; fi")).out).toBe("b\n");
    expect((await run("i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done")).out).toBe("0\n1\n2\n");
    expect((await run("n=0; until [ $n -ge 2 ]; do n=$((n + 1)); done; echo $n")).out).toBe("2\n");
    expect((await run('for x in a "b c" d; do echo "<$x>"; done')).out).toBe("<a>\n<b c>\n<d>\n");
    expect((await run("for x in 1 2 3 4; do [ $x = 3 ] && break; echo $x; done")).out).toBe("1\n2\n");
    expect((await run("case com.phoneloop.social in *.social) echo social;; *) echo other;; esac")).out).toBe("social\n");
    expect((await run("v=$(echo a b c); for w in $v; do echo $w; done")).out).toBe("a\nb\nc\n");
    expect((await run("f() { echo \"fn $1 $#\"; return 3; }; f x y; echo $?")).out).toBe("fn x 2\n3\n");
  });

  it("substitutes commands, reads here-strings, here-docs and < redirects, and formats with printf", async () => {
    const { run } = shell();
    expect((await run('echo "model=$(getprop ro.product.model)"')).out).toBe("model=PhoneLoop Virtual\n");
    expect((await run("echo `echo back`quoted")).out).toBe("backquoted\n");
    expect((await run("grep -c x <<< 'x1'")).out).toBe("1\n");
    expect((await run("cat <<EOF\nhello $HOME\nEOF")).out).toBe("hello /\n");
    expect((await run("echo data > /sdcard/in.txt; wc -c < /sdcard/in.txt")).out).toBe("5\n");
    expect((await run("printf '%s=%d|%-4s|%05.1f\\n' a 42 b 3.14159")).out).toBe("a=42|b   |003.1\n");
    expect((await run("printf '%s\\n' one two three")).out).toBe("one\ntwo\nthree\n");
    expect((await run("x=$(false); echo $?")).out).toBe("1\n");
    expect((await run("printf 'a\\nb\\n' | while read line; do echo \"[$line]\"; done")).out).toBe("[a]\n[b]\n");
  });

  it("reports syntax errors like sh with status 2", async () => {
    const { run } = shell();
    const r = await run("if true; then echo x");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^\/system\/bin\/sh: syntax error: /);
  });

  it("waits for boot with the loop clients use", async () => {
    const { run, engine } = shell();
    engine.props["sys.boot_completed"] = "";
    setTimeout(() => (engine.props["sys.boot_completed"] = "1"), 0);
    const r = await run('while [ "$(getprop sys.boot_completed)" != 1 ]; do sleep 0.01; done; echo up');
    expect(r.out).toBe("up\n");
  });
});

describe("file permissions of the shell user", () => {
  it("may write /sdcard and /data/local/tmp, not / or /system", async () => {
    const { run, engine } = shell();
    expect((await run("echo a > /sdcard/a.txt && echo b > /data/local/tmp/b && cat /sdcard/a.txt /data/local/tmp/b")).out).toBe("a\nb\n");
    const root = await run("echo x > /null");
    expect(root.err).toBe("/system/bin/sh: can't create /null: Read-only file system\n");
    expect(engine.fs.lookup("/null")).toBeUndefined();
    expect((await run("touch /data/x")).err).toContain("Permission denied");
    expect((await run("ls /data")).err).toContain("Permission denied");
    expect((await run("mkdir -p /newdir")).code).toBe(1);
    const png = await run("screencap -p -d null");
    expect(png.out.startsWith("\x89PNG") || png.out.includes("PNG")).toBe(true);
    expect(engine.fs.lookup("/null")).toBeUndefined();
  });
});

describe("toybox applets and /proc", () => {
  it("answers stat, md5sum, df, date +FORMAT", async () => {
    const { run } = shell();
    await run("printf hello > /sdcard/h.txt");
    expect((await run("stat -c '%s %n %A' /sdcard/h.txt")).out).toBe("5 /sdcard/h.txt -rw-rw----\n");
    expect((await run("md5sum /sdcard/h.txt")).out).toBe("5d41402abc4b2a76b9719d911017c592  /sdcard/h.txt\n");
    expect((await run("echo -n hello | md5sum")).out).toBe("5d41402abc4b2a76b9719d911017c592  -\n");
    expect((await run("df /sdcard")).out).toMatch(/^Filesystem +1K-blocks +Used +Available +Use% +Mounted on\n\/dev\/fuse +\d+ +\d+ +\d+ +\d+% \/storage\/emulated\n$/);
    expect((await run("date +%Y-%m-%dT%H:%M:%S")).out).toBe("2026-11-29T09:41:00\n");
    expect((await run("date +%s")).out).toBe(`${Date.UTC(2026, 10, 29, 9, 41) / 1000}\n`);
  });

  it("answers ip, ifconfig, svc, content and toybox", async () => {
    const { run, engine } = shell();
    expect((await run("ip addr show wlan0")).out).toContain("inet 192.168.1.42/24 brd 192.168.1.255 scope global wlan0");
    expect((await run("ip route")).out).toBe("192.168.1.0/24 dev wlan0 proto kernel scope link src 192.168.1.42\n");
    expect((await run("ifconfig wlan0")).out).toContain("inet addr:192.168.1.42");
    await run("svc wifi disable");
    expect(engine.runtime.state.settings.global.wifi_on).toBe("0");
    expect((await run("ip addr show wlan0")).out).toContain("state DOWN");
    expect((await run("content query --uri content://settings/system --where \"name='font_scale'\"")).out).toMatch(/^Row: 0 _id=\d+, name=font_scale, value=1\.0\n$/);
    await run("content insert --uri content://settings/system --bind name:s:screen_brightness --bind value:i:200");
    expect((await run("settings get system screen_brightness")).out).toBe("200\n");
    expect((await run("toybox --version")).out).toBe("toybox 0.8.9-android\n");
    expect((await run("toybox md5sum /proc/version")).code).toBe(0);
  });

  it("serves /proc files", async () => {
    const { run } = shell();
    expect((await run("cat /proc/meminfo | head -1")).out).toMatch(/^MemTotal: +\d+ kB\n$/);
    expect((await run("grep -c ^processor /proc/cpuinfo")).out).toBe("8\n");
    expect((await run("cat /proc/uptime")).out).toMatch(/^\d+\.\d\d \d+\.\d\d\n$/);
    expect((await run("head -1 /proc/stat")).out).toMatch(/^cpu +\d+/);
    expect((await run("cat /proc/version")).out).toMatch(/^Linux version 6\.1\./);
    expect((await run("echo x > /proc/uptime")).code).toBe(1);
  });
});
