// startVirtualPhone: the engine plus its ADB daemon (TCP + WebSocket) and the control API, wired together.
import { AdbKeyStore } from "./adb/auth.ts";
import type { AdbDaemonInit } from "./adb/daemon.ts";
import { createServiceRouter } from "./adb/services.ts";
import { startControlServer } from "./control/server.ts";
import { PhoneEngine } from "./engine.ts";
import type { Clock } from "./scenario/runtime.ts";
import type { LatencyProfile } from "./latency.ts";
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
  /** Require ADB RSA authentication. New keys wait on the "Allow USB debugging?" prompt. */
  auth?: boolean;
  /** With auth: accept new keys at once instead of waiting for the prompt to be answered. */
  authAutoAccept?: boolean;
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
  /** The accepted and pending ADB keys (auth mode). */
  keyStore: AdbKeyStore | null;
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
  const engine = new PhoneEngine({ scenario: opts.scenario, seed: opts.seed ?? 1, serial, clock: opts.clock, latency: opts.latency });
  const keyStore = opts.auth ? new AdbKeyStore(opts.authAutoAccept ? "auto" : "prompt") : null;
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
    keyStore: keyStore ?? undefined,
    log: opts.log,
    isOffline: () => power.offline,
  });
  if (keyStore) {
    // Show the prompt on the phone's screen while a key waits, like Android's system dialog.
    keyStore.onPendingChange = () => engine.setUsbPrompt([...keyStore.pending.values()][0]?.key.fingerprint ?? null);
    engine.systemUi.onUsbPrompt = (allow, alwaysAllow) => {
      const waiting = [...keyStore.pending.values()].map((p) => p.key.base64);
      keyStore.answer(allow ? "accept" : "reject");
      // without "Always allow from this computer" the key is good for this connection only, as on Android
      if (allow && !alwaysAllow) for (const k of waiting) keyStore.accepted.delete(k);
    };
  }
  const listeners: Listening[] = [];
  try {
    const tcp = await listenTcp(host, opts.adbPort ?? 0, init);
    listeners.push(tcp);
    const ws = await listenWebSocket(host, opts.wsPort ?? 0, init);
    listeners.push(ws);
    engine.on("drop-connections", () => {
      tcp.dropAll();
      ws.dropAll();
    });
    // The control API can reset the phone and inject faults: it stays on loopback even when ADB listens wider.
    const controlHost = host === "localhost" || host === "::1" || host.startsWith("127.") ? host : "127.0.0.1";
    const control = await startControlServer({ host: controlHost, port: opts.controlPort ?? 0, engine, keyStore, adb: { tcp, ws } });
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
      power,
      async stop() {
        power.dispose();
        engine.removeAllListeners();
        for (const keyWaiting of keyStore?.pending.values() ?? []) keyWaiting.resolve("reject");
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

export { PRODUCT };
