// Device benchmark: p50/p95 of every Device method against the virtual phone over TCP, the sense step
// (screenshot ∥ uiTree ∥ foreground, as the executor runs it), and waitForStable after a search tap that shows a
// 700 ms loading skeleton, compared with the 2,000 ms a fixed-sleep loop would wait. The last line is the fast phone's.
//
// A second virtual phone runs the "realistic" latency profile: a model of a phone, not a measurement — it waits fixed
// delays calibrated to published figures (packages/virtual-phone/src/latency.ts says which). Its line prints the
// model's delay next to what the Device measured through it, so what is ours (the overhead on top) is the measured
// part.
//
// `npm run bench -- device --device <tcp:host:port | ws:url | adb-server[:serial]>` measures a real phone instead (the
// agent CLI's device spec and connection): the reading calls only — sense, screenshot, uiTree, foreground, info and
// waitForStable on the screen as it stands. It sends no input: a benchmark does not tap someone's phone.
import { parseArgs } from "node:util";
import { Latency, startVirtualPhone } from "@phoneloop/virtual-phone";
import { AdbDevice, centerOf, flattenUiTree, MemoryCredentialStore, type Device, type UiNode } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { connectDevice, parseDeviceSpec } from "../packages/cli/src/agent/device.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const REALISTIC_ROUNDS = Number(process.env.BENCH_REALISTIC_ROUNDS ?? 6);
const STABLE_RUNS = Number(process.env.BENCH_STABLE_RUNS ?? 9);
const FIXED_SLEEP_MS = 2_000;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const results = new Map<string, number[]>();
async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  results.set(name, [...(results.get(name) ?? []), ms]);
  return value;
}

const byId = (root: UiNode, id: string) => flattenUiTree(root).find((n) => n.resourceId.endsWith(`:id/${id}`));

async function tapId(device: Device, id: string): Promise<void> {
  const node = byId(await device.uiTree(), id);
  if (!node) throw new Error(`bench: no ${id} on screen`);
  await device.tap(centerOf(node.bounds));
}

async function dismissPopups(device: Device): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const tree = await device.uiTree();
    const button = ["update_later", "login_wall_not_now", "follow_not_now"].map((id) => byId(tree, id)).find(Boolean);
    if (!button) return;
    await device.tap(centerOf(button.bounds));
  }
}

const { values: flags } = parseArgs({ options: { device: { type: "string" } }, allowPositionals: false });
if (flags.device) {
  await measureAttachedPhone(flags.device);
  process.exit(0);
}

// the phones already list the bench's key in adb_keys, as a phone that allowed this computer does
const credentialStore = new MemoryCredentialStore("bench@phoneloop");
const benchKey = await credentialStore.generateKey();
const adbKeys = [adbPublicKeyLine(benchKey.buffer, benchKey.name ?? credentialStore.name)];
const phone = await startVirtualPhone({ scenario: "social", seed: 1, adbPort: 0, adbKeys });
const device = new AdbDevice(await connectTcp({ port: phone.adbPort, credentialStore }));
try {
  // Warm up: first render, JIT, sockets.
  await device.info();
  for (let i = 0; i < 3; i++) await Promise.all([device.screenshot(), device.uiTree(), device.foreground()]);
  await dismissPopups(device);

  for (let i = 0; i < ROUNDS; i++) {
    await timed("sense", () => Promise.all([device.screenshot(), device.uiTree(), device.foreground()]));
    await timed("screenshot", () => device.screenshot());
    await timed("uiTree", () => device.uiTree());
    await timed("foreground", () => device.foreground());
    await timed("info", () => device.info());
    // An action between rounds, so the next sense sees a different screen.
    await timed("scroll", () => device.scroll(i % 2 === 0 ? "down" : "up"));
    await timed("swipe", () => device.swipe({ x: 540, y: 1600 }, { x: 540, y: 1200 }, 100));
    await timed("drag", () => device.drag({ x: 540, y: 1200 }, { x: 540, y: 1600 }, 100));
    await timed("key", () => device.key("volume_up"));
    await dismissPopups(device);
  }

  // Input methods on the search field.
  phone.engine.load("social", 1);
  await dismissPopups(device);
  await tapId(device, "action_search");
  for (let i = 0; i < ROUNDS; i++) {
    await timed("typeText ascii", () => device.typeText("ai "));
    await timed("typeText unicode", () => device.typeText("智能体"));
    await timed("tap", () => device.tap({ x: 540, y: 2000 }));
    await timed("doubleTap", () => device.doubleTap({ x: 540, y: 2000 }));
    await timed("longPress", () => device.longPress({ x: 540, y: 2000 }, 500));
    if (i % 4 === 3) {
      phone.engine.load("social", 1);
      await dismissPopups(device);
      await tapId(device, "action_search");
    }
  }
  for (let i = 0; i < Math.min(ROUNDS, 10); i++) {
    await timed("openApp", () => device.openApp("com.phoneloop.social"));
    await timed("openDeeplink", () => device.openDeeplink("loop://home"));
  }

  // waitForStable after a tap that shows the 700 ms loading skeleton.
  const stableWaits: number[] = [];
  for (let i = 0; i < STABLE_RUNS; i++) {
    phone.engine.load("social", 1);
    await dismissPopups(device);
    await tapId(device, "action_search");
    const chip = byId(await device.uiTree(), "trend_agents");
    if (!chip) throw new Error("bench: no trending chip");
    await device.tap(centerOf(chip.bounds));
    if (!phone.engine.runtime.isLoading()) throw new Error("bench: the search tap did not start loading");
    const t0 = performance.now();
    const r = await device.waitForStable({ timeoutMs: 5_000 });
    stableWaits.push(performance.now() - t0);
    if (!r.stable || phone.engine.runtime.isLoading()) throw new Error(`bench: waitForStable returned before the results (stable=${r.stable}, ${r.frames} frames in ${Math.round(r.waitedMs)} ms)`);
  }
  results.set("waitForStable (700 ms skeleton)", stableWaits);

  const width = Math.max(...[...results.keys()].map((k) => k.length));
  console.log(`Device over TCP against the virtual phone (${ROUNDS} rounds; sense = screenshot ∥ uiTree ∥ foreground)`);
  for (const [name, values] of results) {
    console.log(`${name.padEnd(width)}  p50 ${percentile(values, 50).toFixed(1).padStart(7)} ms  p95 ${percentile(values, 95).toFixed(1).padStart(7)} ms  n=${values.length}`);
  }
  const realistic = await realisticFigures();
  const model = Latency.typical("realistic");
  // What the model itself waits per call, before jitter: sense waits for the slowest of its three in parallel.
  const modelled: Record<string, number> = { sense: Math.max(model["screencap -p"]!, model["uiautomator dump"]!), screenshot: model["screencap -p"]!, uiTree: model["uiautomator dump"]!, tap: model.input!, openApp: model.monkey! };
  console.log(
    `Modelled phone (the virtual phone's "realistic" latency profile: fixed delays calibrated to published figures, not a phone measured; ${REALISTIC_ROUNDS} rounds): ${Object.entries(realistic)
      .map(([name, v]) => `${name} measured p50 ${percentile(v, 50).toFixed(0)} ms p95 ${percentile(v, 95).toFixed(0)} ms (model waits ${modelled[name]} ms ± jitter)`)
      .join("; ")}`,
  );
  const sense = results.get("sense")!;
  console.log(`sense_p50_ms=${Math.round(percentile(sense, 50))} sense_p95_ms=${Math.round(percentile(sense, 95))} stable_wait_ms=${Math.round(percentile(stableWaits, 50))} fixed_sleep_ms=${FIXED_SLEEP_MS}`);
} finally {
  await device.close();
  await phone.stop();
}

/** The same calls against a phone that takes a mid-range phone's time (`latency: "realistic"`). */
async function realisticFigures(): Promise<Record<string, number[]>> {
  const slow = await startVirtualPhone({ scenario: "social", seed: 1, adbPort: 0, latency: "realistic", adbKeys });
  const dev = new AdbDevice(await connectTcp({ port: slow.adbPort, credentialStore }));
  const out: Record<string, number[]> = { sense: [], screenshot: [], uiTree: [], tap: [], openApp: [] };
  const time = async (name: string, fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    out[name]!.push(performance.now() - t0);
  };
  try {
    await dev.info();
    await dismissPopups(dev);
    for (let i = 0; i < REALISTIC_ROUNDS; i++) {
      await time("sense", () => Promise.all([dev.screenshot(), dev.uiTree(), dev.foreground()]));
      await time("screenshot", () => dev.screenshot());
      await time("uiTree", () => dev.uiTree());
      await time("tap", () => dev.tap({ x: 540, y: 2000 }));
      await time("openApp", () => dev.openApp("com.phoneloop.social"));
      await dismissPopups(dev);
    }
  } finally {
    await dev.close();
    await slow.stop();
  }
  return out;
}

/** The reading calls against a phone the CLI's device spec names; no input is sent to it. */
async function measureAttachedPhone(spec: string): Promise<void> {
  const dev = await connectDevice(parseDeviceSpec(spec));
  const out: Record<string, number[]> = { sense: [], screenshot: [], uiTree: [], foreground: [], info: [], "waitForStable (still screen)": [] };
  const time = async (name: string, fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    out[name]!.push(performance.now() - t0);
  };
  try {
    const info = await dev.info();
    for (let i = 0; i < 2; i++) await Promise.all([dev.screenshot(), dev.uiTree(), dev.foreground()]);
    for (let i = 0; i < ROUNDS; i++) {
      await time("sense", () => Promise.all([dev.screenshot(), dev.uiTree(), dev.foreground()]));
      await time("screenshot", () => dev.screenshot());
      await time("uiTree", () => dev.uiTree());
      await time("foreground", () => dev.foreground());
      await time("info", () => dev.info());
      if (i < Math.min(ROUNDS, 5)) await time("waitForStable (still screen)", () => dev.waitForStable({ timeoutMs: 5_000 }));
    }
    const width = Math.max(...Object.keys(out).map((k) => k.length));
    console.log(`Device against the attached phone ${info.serial} (${info.manufacturer} ${info.model}, Android ${info.androidVersion}, ${info.screen.width}×${info.screen.height}; ${ROUNDS} rounds, reading calls only)`);
    for (const [name, values] of Object.entries(out)) {
      console.log(`${name.padEnd(width)}  p50 ${percentile(values, 50).toFixed(1).padStart(7)} ms  p95 ${percentile(values, 95).toFixed(1).padStart(7)} ms  n=${values.length}`);
    }
    console.log(
      `device=${info.serial} sense_p50_ms=${Math.round(percentile(out.sense!, 50))} sense_p95_ms=${Math.round(percentile(out.sense!, 95))} screenshot_p50_ms=${Math.round(percentile(out.screenshot!, 50))} ui_tree_p50_ms=${Math.round(percentile(out.uiTree!, 50))}`,
    );
  } finally {
    await dev.close();
  }
}
