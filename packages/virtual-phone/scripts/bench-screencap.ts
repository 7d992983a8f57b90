// Measures screencap latency (real adb, @yume-chan/adb over TCP and WebSocket), PNG encode time and size.
// Run: npx tsx packages/virtual-phone/scripts/bench-screencap.ts   (prints one figure per line)
import { execFileSync } from "node:child_process";
import { Adb, AdbDaemonTransport } from "@yume-chan/adb";
import { startVirtualPhone } from "../src/index.ts";
import { NodeCredentialStore, tcpConnection, wsConnection } from "../src/conformance/yume-connection.ts";
import { adbClient, privatePort } from "../src/conformance/adb-cli.ts";

const N = 25;
const p50 = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

const phone = await startVirtualPhone({ scenario: "social", seed: 1 });
const engine = phone.engine;
engine.runtime.dismissPopup();
engine.runtime.writeRef("social:loggedIn", null, true); // no login wall: every swipe must scroll
let flip = 0;
/** A new frame each time: scroll the feed +40 px, then -17 px (both past the 16 px touch slop), so no scroll position repeats. */
const changeFrame = () => {
  const dy = flip++ % 2 === 0 ? 40 : -17;
  engine.swipe(540, 1500, 540, 1500 - dy, 300);
};

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

// engine only; CPU time is printed too because wall time on a busy machine mostly measures the other processes
const uncached: number[] = [];
const uncachedCpu: number[] = [];
const cached: number[] = [];
for (let i = 0; i < N; i++) {
  changeFrame();
  const cpu0 = process.cpuUsage();
  uncached.push(await time(() => engine.screenshot()));
  const cpu = process.cpuUsage(cpu0);
  uncachedCpu.push((cpu.user + cpu.system) / 1000);
  cached.push(await time(() => engine.screenshot()));
}
console.log(`machine load average (1 min): ${(await import("node:os")).loadavg()[0]!.toFixed(1)} on ${(await import("node:os")).cpus().length} CPUs`);
console.log(`engine screenshot (layout+paint+PNG) uncached p50: ${fmt(p50(uncached))} wall, ${fmt(p50(uncachedCpu))} CPU`);
console.log(`engine screenshot cached p50: ${fmt(p50(cached))}`);
console.log(`PNG size (feed screen): ${(engine.encodeStats.lastSize / 1024).toFixed(0)} KiB`);
if (engine.encodeStats.uncached.length < N) throw new Error(`only ${engine.encodeStats.uncached.length} of ${N} frames were new; the benchmark is not measuring encodes`);

for (const [name, connect] of [
  ["TCP", () => tcpConnection(phone.adbPort)],
  ["WebSocket", () => wsConnection(phone.wsUrl)],
] as const) {
  const adb = new Adb(await AdbDaemonTransport.authenticate({ serial: name, connection: await connect(), credentialStore: new NodeCredentialStore() }));
  const none = adb.subprocess.noneProtocol;
  const c: number[] = [];
  const u: number[] = [];
  const combo: number[] = [];
  for (let i = 0; i < N; i++) {
    changeFrame();
    u.push(await time(() => none.spawnWait("screencap -p")));
    c.push(await time(() => none.spawnWait("screencap -p")));
    changeFrame();
    combo.push(await time(() => Promise.all([none.spawnWait("screencap -p"), none.spawnWaitText("uiautomator dump /dev/tty"), none.spawnWaitText("dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'")])));
  }
  console.log(`@yume-chan/adb ${name} screencap -p uncached p50: ${fmt(p50(u))}`);
  console.log(`@yume-chan/adb ${name} screencap -p cached p50: ${fmt(p50(c))}`);
  console.log(`@yume-chan/adb ${name} screenshot+uiTree+foreground (new frame) p50: ${fmt(p50(combo))}`);
  await adb.close();
}

const cli = adbClient(privatePort(9));
const serial = `127.0.0.1:${phone.adbPort}`;
await cli.run(["connect", serial]);
const c: number[] = [];
const u: number[] = [];
for (let i = 0; i < N; i++) {
  changeFrame();
  u.push(await time(() => cli.run(["-s", serial, "exec-out", "screencap -p"])));
  c.push(await time(() => cli.run(["-s", serial, "exec-out", "screencap -p"])));
}
console.log(`adb exec-out screencap -p (incl. adb process start) uncached p50: ${fmt(p50(u))}`);
console.log(`adb exec-out screencap -p (incl. adb process start) cached p50: ${fmt(p50(c))}`);
const t0 = performance.now();
execFileSync("adb", ["-P", String(privatePort(9)), "version"], { env: { ...process.env, HOME: cli.home } });
console.log(`(adb process start alone: ${fmt(performance.now() - t0)})`);
await cli.killServer();
await phone.stop();
