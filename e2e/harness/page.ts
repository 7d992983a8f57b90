// The test page: connects to a phone through navigator.usb with the real WebUSB connection code, shows the user
// what happens (status, and every error with its fix), and exposes `window.harness` for the specs to drive.
import { AdbDevice, BrowserCredentialStore, connectWebUsb, isDeviceError, phashPng, type ConnectStatus, type Device } from "@phoneloop/device";

const statusEl = document.getElementById("status")!;
const errorEl = document.getElementById("error")!;
const connectButton = document.getElementById("connect") as HTMLButtonElement;

const statusLog: ConnectStatus[] = [];
const unhandled: string[] = [];
window.addEventListener("unhandledrejection", (e) => unhandled.push(String((e.reason as Error)?.stack ?? e.reason)));

let device: AdbDevice | undefined;
let connecting: Promise<void> | undefined;

function describeStatus(s: ConnectStatus): string {
  switch (s.kind) {
    case "requesting_device":
      return "Pick your phone in the browser's list…";
    case "opening":
      return `Opening ${s.serial}…`;
    case "handshaking":
      return "Talking to the phone…";
    case "waiting_for_authorization":
      return `Unlock the phone and tap "Allow" on "Allow USB debugging?" (waiting up to ${Math.round(s.timeoutMs / 1000)} s)`;
    case "connected":
      return `Connected to ${s.serial}`;
  }
}

function showError(e: unknown) {
  errorEl.dataset.code = isDeviceError(e) ? e.code : "unexpected";
  errorEl.textContent = e instanceof Error ? e.message : String(e);
  connectButton.textContent = "Retry";
}

async function connect(): Promise<void> {
  errorEl.textContent = "";
  delete errorEl.dataset.code;
  try {
    const adb = await connectWebUsb({
      credentialStore: new BrowserCredentialStore({ database: "phoneloop-e2e" }),
      authorizationTimeoutMs: Number(new URLSearchParams(location.search).get("authTimeoutMs") ?? 60_000),
      onStatus: (s) => {
        statusLog.push(s);
        statusEl.textContent = describeStatus(s);
        statusEl.dataset.kind = s.kind;
      },
    });
    device = new AdbDevice(adb);
    device.onDisconnect((e) => {
      statusEl.textContent = "Disconnected";
      statusEl.dataset.kind = "disconnected";
      showError(e);
    });
  } catch (e) {
    statusEl.dataset.kind = "failed";
    showError(e);
  }
}

connectButton.addEventListener("click", () => {
  connecting = connect();
});

function need(): Device {
  if (!device) throw new Error("not connected");
  return device;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; name: string; code?: string; message: string };

async function outcome<T>(p: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await p };
  } catch (e) {
    return { ok: false, name: (e as Error).name, code: isDeviceError(e) ? e.code : undefined, message: (e as Error).message };
  }
}

const harness = {
  statusLog,
  unhandled,
  connected: () => connecting ?? Promise.resolve(),
  isConnected: () => device?.isConnected ?? false,
  info: () => need().info(),
  async screenshot() {
    const s = await need().screenshot();
    return { width: s.width, height: s.height, bytes: s.png.length, signature: Array.from(s.png.subarray(0, 8)), phash: await phashPng(s.png), capturedAt: s.capturedAt };
  },
  uiTree: () => need().uiTree(),
  foreground: () => need().foreground(),
  tap: (x: number, y: number) => need().tap({ x, y }),
  doubleTap: (x: number, y: number) => need().doubleTap({ x, y }),
  longPress: (x: number, y: number, ms?: number) => need().longPress({ x, y }, ms),
  swipe: (x1: number, y1: number, x2: number, y2: number, ms?: number) => need().swipe({ x: x1, y: y1 }, { x: x2, y: y2 }, ms),
  drag: (x1: number, y1: number, x2: number, y2: number, ms?: number) => need().drag({ x: x1, y: y1 }, { x: x2, y: y2 }, ms),
  scroll: (d: "up" | "down" | "left" | "right") => need().scroll(d),
  typeText: (t: string) => need().typeText(t),
  key: (k: Parameters<Device["key"]>[0]) => need().key(k),
  openApp: (p: string) => need().openApp(p),
  openDeeplink: (u: string) => need().openDeeplink(u),
  async waitForStable(timeoutMs?: number) {
    const r = await need().waitForStable({ timeoutMs });
    return { stable: r.stable, waitedMs: r.waitedMs, frames: r.frames, phash: r.phash, width: r.screenshot.width, bytes: r.screenshot.png.length };
  },
  close: () => need().close(),
  /** Pulls the cable once `afterBytes` bytes of the screenshot have arrived, and reports how every pending call ended. */
  async screenshotThenUnplug(afterBytes = 4_096, giveUpMs = 2_000) {
    const standIn = (window as unknown as { __webUsbStandIn: { unplugAfterBytesIn(n: number): void } }).__webUsbStandIn;
    standIn.unplugAfterBytesIn(afterBytes);
    const shot = outcome(need().screenshot());
    // A second transfer on the same connection, also in flight when the cable comes out.
    const second = outcome(need().screenshot());
    const hung = new Promise<"hung">((r) => setTimeout(() => r("hung"), giveUpMs));
    const [a, b] = await Promise.all([Promise.race([shot, hung]), Promise.race([second, hung])]);
    return { screenshot: a, second: b };
  },
  outcome: <K extends keyof Device>(method: K, ...args: unknown[]) => outcome((need()[method] as (...a: unknown[]) => Promise<unknown>)(...args)),
};

declare global {
  interface Window {
    harness: typeof harness;
  }
}
window.harness = harness;
document.body.dataset.ready = "true";
