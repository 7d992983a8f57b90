// startVirtualPhone: the engine plus its ADB daemon (TCP + WebSocket) and the control API, wired together.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AdbKeyStore, parseAdbKeys, type AdbTrust } from "./adb/auth.ts";
import type { AdbDaemonInit } from "./adb/daemon.ts";
import { createServiceRouter } from "./adb/services.ts";
import { startControlServer } from "./control/server.ts";
import { PhoneEngine } from "./engine.ts";
import type { Clock } from "./scenario/runtime.ts";
import type { LatencyProfile } from "./latency.ts";
import type { Perturbation } from "./scenario/perturb.ts";
import { PRODUCT } from "./device/properties.ts";
import { PowerCycle, type BootTimings } from "./device/power.ts";
import { createCommandRegistry } from "./shell/commands/index.ts";
import { listenTcp, type Listening } from "./transport/tcp.ts";
import { listenWebSocket } from "./transport/websocket.ts";

export interface VirtualPhoneOptions {
  /** Built-in scenario name or a file path; default "social". */
  scenario?: string;
  seed?: number;
  /** 0 = ephemeral (the default). */
  adbPort?: number;
  wsPort?: number;
  controlPort?: number;
  /**
   * "ask" (default, as a real phone): a key not in adb_keys gets no shell until "Allow USB debugging?" is allowed.
   * "any-key": every key is allowed at once — only for tests that exercise something else.
   */
  trust?: AdbTrust;
  /** Public keys already in the phone's adb_keys (adbkey.pub lines, "<base64> user@host"): they connect with no prompt. */
  adbKeys?: string[];
  /** Keeps adb_keys (the keys allowed with "Always allow from this computer") in <stateDir>/adb_keys across restarts. */
  stateDir?: string;
  /** Browser origins (e.g. http://127.0.0.1:3000) that may open the WebSocket and call the control API. Default: none. */
  allowOrigins?: string[];
  /** The control API's bearer token (default: 32 random bytes, base64url). */
  controlToken?: string;
  /** Default 127.0.0.1. */
  host?: string;
  serial?: string;
  /** Logs protocol problems (default: silent). */
  log?: (line: string) => void;
  /** Time source for loading skeletons, toasts and the status-bar clock (default: the system clock). */
  clock?: Clock;
  /** "realistic": screencap, uiautomator dump, input and app launches take a mid-range phone's time, with seeded jitter (default "none"). */
  latency?: LatencyProfile;
  /** How long `adb reboot` keeps the phone offline and then booting (default 1.5 s + 2 s). */
  bootTimings?: BootTimings;
  /** Perturbations (popup, permission, slow, zh, rotate, notification, network) added to its scenarios, from the seed. */
  perturb?: readonly Perturbation[];
}

export interface VirtualPhone {
  serial: string;
  adbPort: number;
  wsPort: number;
  controlPort: number;
  /** ws://127.0.0.1:<wsPort>/ */
  wsUrl: string;
  /** http://127.0.0.1:<controlPort> */
  controlUrl: string;
  /** In-process access: state, load scenario, reset, evaluate, faults. */
  engine: PhoneEngine;
  /** adb_keys and the keys waiting on the "Allow USB debugging?" prompt. */
  keyStore: AdbKeyStore;
  /** Send as `Authorization: Bearer <controlToken>` to the control API. */
  controlToken: string;
  /** Reboots (`adb reboot`, `reboot`, `svc power reboot`). */
  power: PowerCycle;
  stop(): Promise<void>;
}

export const DEVICE_FEATURES = ["shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir", "abb", "abb_exec", "sendrecv_v2", "sendrecv_v2_dry_run_send", "delayed_ack"] as const;

export function deviceBanner(props: Record<string, string>, features: readonly string[] = DEVICE_FEATURES): string {
  return `device::ro.product.name=${props["ro.product.name"]};ro.product.model=${props["ro.product.model"]};ro.product.device=${props["ro.product.device"]};features=${features.join(",")}`;
}

export async function startVirtualPhone(opts: VirtualPhoneOptions = {}): Promise<VirtualPhone> {
  const host = opts.host ?? "127.0.0.1";
  const serial = opts.serial ?? `vphone-${Math.random().toString(16).slice(2, 8)}`;
  const engine = new PhoneEngine({ scenario: opts.scenario, seed: opts.seed ?? 1, serial, clock: opts.clock, latency: opts.latency, ...(opts.perturb ? { perturb: opts.perturb } : {}) });
  const keyStore = openKeyStore(opts);
  const controlToken = opts.controlToken ?? randomBytes(32).toString("base64url");
  if (controlToken.length < 22) throw new Error("cannot start the virtual phone: controlToken must carry at least 128 bits (22 base64url characters); leave it out for a random one");
  const commands = createCommandRegistry();
  const power = new PowerCycle(engine, opts.bootTimings);
  const router = createServiceRouter({
    host: { fs: engine.fs, phone: engine, beforeCommand: (argv) => engine.beforeCommand(argv), reboot: (reason) => power.reboot(reason) },
    commands,
    takeCloseFault: () => {
      if (engine.faults.failNext !== "close") return false;
      engine.faults.failNext = null;
      return true;
    },
  });
  const init = (): AdbDaemonInit => ({
    banner: deviceBanner(engine.props),
    features: DEVICE_FEATURES,
    router,
    keyStore,
    log: opts.log,
    isOffline: () => power.offline,
  });
  // Android keeps the allowed keys here (0640, group shell: `adb shell cat` reads it)
  engine.fs.generated("/data/misc/adb/adb_keys", () => Buffer.from(keyStore.adbKeysText()));
  engine.fs.lookup("/data/misc/adb/adb_keys")!.mode = 0o640;
  // Show the prompt on the phone's screen while a key waits, like Android's system dialog.
  keyStore.onPendingChange = () => engine.setUsbPrompt([...keyStore.pending.values()][0]?.key.fingerprint ?? null);
  // without "Always allow from this computer" the key is good for this connection only, as on Android
  engine.systemUi.onUsbPrompt = (allow, alwaysAllow) => void keyStore.answer(allow ? "accept" : "reject", { always: alwaysAllow });
  const listeners: Listening[] = [];
  try {
    const tcp = await listenTcp(host, opts.adbPort ?? 0, init);
    listeners.push(tcp);
    const ws = await listenWebSocket(host, opts.wsPort ?? 0, init, opts.allowOrigins ?? []);
    listeners.push(ws);
    engine.on("drop-connections", () => {
      tcp.dropAll();
      ws.dropAll();
    });
    // The control API can reset the phone and inject faults: it stays on loopback even when ADB listens wider.
    const controlHost = host === "localhost" || host === "::1" || host.startsWith("127.") ? host : "127.0.0.1";
    const control = await startControlServer({ host: controlHost, port: opts.controlPort ?? 0, engine, keyStore, adb: { tcp, ws }, token: controlToken, allowOrigins: opts.allowOrigins ?? [] });
    listeners.push(control);
    const shown = host === "0.0.0.0" ? "127.0.0.1" : host;
    return {
      serial,
      adbPort: tcp.port,
      wsPort: ws.port,
      controlPort: control.port,
      wsUrl: `ws://${shown}:${ws.port}/`,
      controlUrl: `http://${controlHost === "::1" ? "[::1]" : controlHost}:${control.port}`,
      engine,
      keyStore,
      controlToken,
      power,
      async stop() {
        power.dispose();
        engine.removeAllListeners();
        for (const keyWaiting of keyStore.pending.values()) keyWaiting.resolve("reject");
        await Promise.all(listeners.map((l) => l.close()));
      },
    };
  } catch (e) {
    await Promise.all(listeners.map((l) => l.close()));
    const err = e as NodeJS.ErrnoException;
    if (err.code === "EADDRINUSE") throw new Error(`cannot start the virtual phone: ${err.message}; pick another port or pass 0 for an ephemeral one`);
    throw e;
  }
}

/** adb_keys = the given keys plus those remembered in the state dir; "Always allow" and revoke rewrite the file. */
function openKeyStore(opts: VirtualPhoneOptions): AdbKeyStore {
  const given = parseAdbKeys((opts.adbKeys ?? []).join("\n"), "adbKeys");
  if (!opts.stateDir) return new AdbKeyStore({ trust: opts.trust, adbKeys: given });
  const file = join(opts.stateDir, "adb_keys");
  const remembered = existsSync(file) ? parseAdbKeys(readFileSync(file, "utf8"), file) : [];
  mkdirSync(opts.stateDir, { recursive: true, mode: 0o700 });
  const store = new AdbKeyStore({ trust: opts.trust, adbKeys: [...remembered, ...given], onAdbKeysChange: (text) => writeFileSync(file, text, { mode: 0o600 }) });
  if (given.some((k) => !remembered.some((r) => r.base64 === k.base64))) writeFileSync(file, store.adbKeysText(), { mode: 0o600 });
  return store;
}

export { PRODUCT };
