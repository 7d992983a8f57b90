// `npm run bench -- screencap`: 50 screenshots through Debian's `adb exec-out screencap -p` and 50 through the
// product's device layer (@yume-chan/adb over TCP), alternating, from one virtual phone running in its own
// process. The feed scrolls before every shot, so each one is a frame the phone has never rendered (checked: the
// phone's render count goes up by one per shot and the client got that frame's bytes). render_ms is the phone's
// own layout+paint+PNG time for each new frame. Last line:
//   adb_ms=<median> webadb_ms=<median> ratio=<webadb/adb> render_ms=<median>
import { execFile, execFileSync, fork } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AdbDevice, isPng, MemoryCredentialStore, readPngHeader } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import type { PhoneReady, PhoneReply, PhoneRequest } from "./support/phone-process.ts";

const SHOTS = Number(process.env.BENCH_SHOTS ?? 50);
const WARMUP = 3;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** A free TCP port for the private adb server (so the user's own adb server on 5037 is never touched). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

// ── Debian's adb, on a private server port ──
const adbHome = mkdtempSync(join(tmpdir(), "bench-adb-home-"));
const adbServerPort = await freePort();
const adbEnv = { ...process.env, HOME: adbHome, ANDROID_SDK_HOME: adbHome, ANDROID_USER_HOME: join(adbHome, ".android"), ANDROID_ADB_SERVER_PORT: String(adbServerPort) };
function adb(args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    execFile("adb", ["-P", String(adbServerPort), ...args], { env: adbEnv, encoding: "buffer", maxBuffer: 64 * 1024 * 1024, timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`adb ${args.join(" ")} failed: ${stderr.toString().trim() || err.message}. Is Debian's adb installed (apt-get install adb)?`)) : resolve(stdout),
    ),
  );
}

// Interrupted (Ctrl-C, a closed pipe): still stop the private adb server; the phone stops when our IPC channel closes.
for (const signal of ["SIGINT", "SIGTERM", "SIGPIPE", "SIGHUP"] as const) {
  process.once(signal, () => {
    try {
      execFileSync("adb", ["-P", String(adbServerPort), "kill-server"], { env: adbEnv, stdio: "ignore", timeout: 5_000 });
    } finally {
      process.exit(1);
    }
  });
}

// Both clients' keys are already in the phone's adb_keys, as on a phone that allowed this computer.
await adb(["start-server"]);
const credentialStore = new MemoryCredentialStore("bench@phoneloop");
const webAdbKey = await credentialStore.generateKey();
const adbKeys = [readFileSync(join(adbHome, ".android", "adbkey.pub"), "utf8"), adbPublicKeyLine(webAdbKey.buffer, webAdbKey.name ?? credentialStore.name)];

// ── the phone, in its own process ──
const child = fork(fileURLToPath(new URL("./support/phone-process.ts", import.meta.url)), [JSON.stringify(adbKeys)], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
const ready = await new Promise<PhoneReady>((resolve, reject) => {
  child.once("message", (m) => resolve(m as PhoneReady));
  child.once("exit", (code) => reject(new Error(`bench: the virtual phone exited (${code}) before it was ready`)));
});
const target = `127.0.0.1:${ready.adbPort}`;
let nextId = 1;
const pending = new Map<number, (r: PhoneReply) => void>();
child.on("message", (m) => {
  const r = m as PhoneReply;
  pending.get(r.id)?.(r);
  pending.delete(r.id);
});
function ask<O extends PhoneRequest["op"]>(op: O): Promise<Extract<PhoneReply, { op: O }>> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve as (r: PhoneReply) => void);
    child.send({ id, op } as PhoneRequest);
  });
}

/**
 * A new frame: scroll the feed down 20 px, then up 17 px (both past the 16 px touch slop), creeping a few px per
 * pair, so no scroll position repeats and the ~110 shots stay well inside the feed.
 */
let flip = 0;
async function newFrame(): Promise<void> {
  const dy = flip++ % 2 === 0 ? 20 : -17;
  const res = await fetch(`${ready.controlUrl}/input`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${ready.controlToken}` }, body: JSON.stringify({ type: "swipe", x1: 540, y1: 1500, x2: 540, y2: 1500 - dy, durationMs: 300 }) });
  if (!res.ok) throw new Error(`bench: the phone's control API refused a swipe: ${res.status} ${await res.text()}`);
}

/** Takes one shot on a new frame; checks it was exactly one new render and that the client received it. */
async function shot(take: () => Promise<Uint8Array>, renders: number[]): Promise<number> {
  const before = await ask("frame");
  await newFrame();
  const t0 = performance.now();
  const png = await take();
  const ms = performance.now() - t0;
  const after = await ask("frame");
  if (after.renders !== before.renders + 1) throw new Error(`bench: the phone rendered ${after.renders - before.renders} frames for one shot; the frames are not new`);
  if (createHash("sha1").update(png).digest("hex") !== after.sha1) throw new Error("bench: the client did not receive the phone's current frame");
  renders.push(after.lastRenderMs);
  return ms;
}

let device: AdbDevice | undefined;
try {
  await ask("feed");
  const connected = (await adb(["connect", target])).toString();
  if (!/connected to/.test(connected)) throw new Error(`bench: adb could not connect to the virtual phone at ${target}: ${connected.trim()}`);
  await adb(["-s", target, "wait-for-device"]);
  device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: ready.adbPort, credentialStore }));
  const viaAdb = () => adb(["-s", target, "exec-out", "screencap -p"]).then((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
  const viaWebAdb = () => device!.screenshot().then((s) => s.png);

  const renders: number[] = [];
  for (let i = 0; i < WARMUP; i++) {
    await shot(viaAdb, renders);
    await shot(viaWebAdb, renders);
  }
  renders.length = 0;
  const adbMs: number[] = [];
  const webAdbMs: number[] = [];
  let sample: Uint8Array | undefined;
  for (let i = 0; i < SHOTS; i++) {
    adbMs.push(await shot(viaAdb, renders));
    webAdbMs.push(await shot(async () => (sample = await viaWebAdb()), renders));
  }
  if (!sample || !isPng(sample)) throw new Error("bench: the last screenshot is not a PNG");
  const { width, height } = readPngHeader(sample);

  const adbMedian = median(adbMs);
  const webAdbMedian = median(webAdbMs);
  console.log(`machine load average (1 min): ${loadavg()[0]!.toFixed(1)}`);
  console.log(`${SHOTS} + ${SHOTS} screenshots of new ${width}x${height} frames (${(sample.length / 1024).toFixed(0)} KiB PNG), alternating clients`);
  console.log(`adb exec-out screencap -p (Debian adb ${ready.serial}, incl. the adb client process start): median ${adbMedian.toFixed(1)} ms, min ${Math.min(...adbMs).toFixed(1)} ms`);
  console.log(`Device.screenshot over @yume-chan/adb (TCP): median ${webAdbMedian.toFixed(1)} ms, min ${Math.min(...webAdbMs).toFixed(1)} ms`);
  console.log(`the phone's own render (layout+paint+PNG) per new frame: median ${median(renders).toFixed(1)} ms over ${renders.length} frames`);
  console.log(`adb_ms=${adbMedian.toFixed(1)} webadb_ms=${webAdbMedian.toFixed(1)} ratio=${(webAdbMedian / adbMedian).toFixed(2)} render_ms=${median(renders).toFixed(1)}`);
} finally {
  await device?.close();
  await adb(["kill-server"]).catch(() => undefined);
  rmSync(adbHome, { recursive: true, force: true });
  await ask("stop").catch(() => undefined);
  child.kill();
}
