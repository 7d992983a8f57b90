// `Device` over an `Adb` from @yume-chan/adb: every call is a shell command with a timeout, raced against the
// connection so a lost phone fails every pending call with one DeviceDisconnected.
import type { Adb } from "@yume-chan/adb";
import type { ReadableStream } from "@yume-chan/stream-extra";
import type {
  CallOptions,
  Device,
  DrainOptions,
  DrainResult,
  DeviceInfo,
  Direction,
  Foreground,
  KeyName,
  Point,
  PackageManagerQuery,
  Screenshot,
  StableOptions,
  StableResult,
  UiNode,
} from "./device.ts";
import {
  AdbKeyboardMissing,
  DeviceClosed,
  DeviceCommandFailed,
  DeviceDisconnected,
  DeviceTimeout,
  isDeviceError,
  type DeviceError,
} from "./errors.ts";
import {
  ADB_KEYBOARD_IME,
  adbKeyboardTypeCommand,
  canUseInputText,
  inputTextCommands,
  KEYCODE,
  parseDefaultIme,
  parseImeList,
  shellCommand,
  shellQuote,
} from "./input-text.ts";
import { hammingDistance, phashPng } from "./phash.ts";
import { isPng, readPngHeader, sameBytes } from "./png.ts";
import { flattenUiTree, parseUiTree, UiTreeParseError } from "./ui-tree.ts";
import { inputCommandsIn, RUNNING_COMMANDS_PS } from "./drain.ts";

/**
 * Every Device call has a timeout, in ms; these are the defaults, each overridable per call with `timeoutMs`.
 * A call that runs out fails with DeviceTimeout. Callers need no timeout layer of their own.
 */
export interface DeviceTimeouts {
  /** `info()`: getprop, wm size/density, dumpsys battery. */
  info: number;
  /** `screenshot()`: one `screencap -p` transfer; also the most one frame of `waitForStable` may take. */
  screenshot: number;
  /** `uiTree()`: `uiautomator dump` (slow on busy screens; retried once inside this budget). */
  uiTree: number;
  /** `foreground()`: dumpsys window. */
  foreground: number;
  /** `tap`, `doubleTap`, `scroll`; `longPress`, `swipe` and `drag` get this plus their gesture's duration. */
  input: number;
  /** `typeText()`, including switching to ADBKeyboard and back for non-ASCII text. */
  typeText: number;
  /** How long `typeText` waits for the phone to report ADBKeyboard as the current keyboard (within `typeText`). */
  keyboardSwitch: number;
  /** `key()`. */
  key: number;
  /** `openApp()`: monkey launching the app. */
  openApp: number;
  /** `openDeeplink()`: am start. */
  openDeeplink: number;
  /** `waitForStable()`: how long to wait for the screen to settle before answering `stable: false`. */
  waitForStable: number;
  /** `close()`: how long to wait for the connection to close before letting go of it. */
  close: number;
}

export const DEFAULT_TIMEOUTS: DeviceTimeouts = {
  info: 10_000,
  screenshot: 10_000,
  uiTree: 15_000,
  foreground: 5_000,
  input: 5_000,
  typeText: 15_000,
  keyboardSwitch: 2_000,
  key: 5_000,
  openApp: 10_000,
  openDeeplink: 10_000,
  waitForStable: 5_000,
  close: 2_000,
};

export interface StableDefaults {
  /** Frames whose pHashes differ by at most this many bits (of 64) count as the same screen. */
  maxDistance: number;
  /** Consecutive matching pairs needed (1 = two frames in a row). */
  requiredMatches: number;
  /** The matching frames must also span at least this long: "unchanged for 200 ms", not "two quick frames". */
  minQuietMs: number;
  intervalMs: number;
  /**
   * Before declaring a still screen stable, look at the UI tree for loading indicators (ProgressBar, shimmer or
   * skeleton placeholders): a static skeleton or a spinner whose pHash hardly moves is not a finished screen.
   */
  checkLoadingIndicators: boolean;
}

export interface AdbDeviceOptions {
  /** Default timeout of each method (ms); the ones not given keep DEFAULT_TIMEOUTS. */
  timeouts?: Partial<DeviceTimeouts>;
  stable?: Partial<StableDefaults>;
  /** Injected time, so tests never sleep. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface ShellResult {
  stdout: Uint8Array;
  stderr: string;
  /** Undefined when the phone lacks shell v2 and the exit status cannot be known. */
  exitCode: number | undefined;
}

const UI_DUMP_PATH = "/data/local/tmp/phoneloop-ui.xml";

const decoder = new TextDecoder();
const text = (b: Uint8Array) => decoder.decode(b);

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

function pngComplete(png: Uint8Array): boolean {
  // The last chunk of a whole PNG is IEND (length 0, "IEND", CRC).
  return png.length >= 12 && text(png.subarray(png.length - 8, png.length - 4)) === "IEND";
}

function checkPoint(p: Point, what: string): { x: number; y: number } {
  if (!Number.isFinite(p.x) || !Number.isFinite(p.y) || p.x < 0 || p.y < 0) {
    throw new RangeError(`${what}: point (${p.x}, ${p.y}) is not on the screen`);
  }
  return { x: Math.round(p.x), y: Math.round(p.y) };
}

function checkDuration(ms: number, what: string): number {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`${what}: duration ${ms} ms is invalid`);
  return Math.round(ms);
}

/** Parses `wm size` (Physical/Override size: WxH); the override wins, as it is what apps see. */
export function parseWmSize(out: string): { width: number; height: number } | null {
  const override = /Override size:\s*(\d+)x(\d+)/.exec(out);
  const physical = /Physical size:\s*(\d+)x(\d+)/.exec(out);
  const m = override ?? physical;
  return m ? { width: Number(m[1]), height: Number(m[2]) } : null;
}

export function parseWmDensity(out: string): number | null {
  const m = /Override density:\s*(\d+)/.exec(out) ?? /Physical density:\s*(\d+)/.exec(out);
  return m ? Number(m[1]) : null;
}

/** Parses `dumpsys battery`. status 2 = charging, 5 = full; any powered source also counts as charging. */
export function parseBattery(out: string): { level: number; charging: boolean } | null {
  const level = /^\s*level:\s*(\d+)/m.exec(out);
  if (!level) return null;
  const scale = /^\s*scale:\s*(\d+)/m.exec(out);
  const status = /^\s*status:\s*(\d+)/m.exec(out);
  const powered = /^\s*(AC|USB|Wireless|Dock) powered:\s*true/im.test(out);
  const pct = scale && Number(scale[1]) > 0 ? Math.round((Number(level[1]) * 100) / Number(scale[1])) : Number(level[1]);
  return { level: pct, charging: powered || status?.[1] === "2" || status?.[1] === "5" };
}

function expandActivity(pkg: string, activity: string): string {
  return activity.startsWith(".") ? pkg + activity : activity;
}

/**
 * Parses `dumpsys window` for the focused window, falling back to the focused app (dialogs, system windows). The
 * focused window's flags (its `fl=` list in mAttrs) say whether it is secure (FLAG_SECURE: screenshots are black).
 */
export function parseForeground(out: string): Foreground | null {
  const focus = /mCurrentFocus=Window\{(\S+) \S+ ([A-Za-z0-9_.]+)\/([^\s}]+)\}/.exec(out);
  if (focus) return { packageName: focus[2]!, activity: expandActivity(focus[2]!, focus[3]!), ...(windowSecure(out, focus[1]!) ? { secure: true } : {}) };
  const app = /mFocusedApp=.*?ActivityRecord\{\S+ \S+ ([A-Za-z0-9_.]+)\/([^\s}]+)/.exec(out);
  if (app) return { packageName: app[1]!, activity: expandActivity(app[1]!, app[2]!) };
  const resumed = /mResumedActivity:?\s*ActivityRecord\{\S+ \S+ ([A-Za-z0-9_.]+)\/([^\s}]+)/.exec(out);
  if (resumed) return { packageName: resumed[1]!, activity: expandActivity(resumed[1]!, resumed[2]!) };
  return null;
}

/** The window with this token has FLAG_SECURE among its flags (`fl=… SECURE …` in its mAttrs). */
function windowSecure(out: string, token: string): boolean {
  const start = out.indexOf(`Window{${token} `);
  const header = start >= 0 ? out.lastIndexOf("Window #", start) : -1;
  if (header < 0 || out.slice(header, start).includes("\n")) return false;
  const next = out.indexOf("\n  Window #", start);
  const block = out.slice(start, next < 0 ? undefined : next);
  return /\bfl=[^\n}]*\bSECURE\b/.test(block);
}

/** Where a finger moves to scroll content in `direction` ("down" shows what is below: the finger moves up). */
export function scrollGesture(direction: Direction, screen: { width: number; height: number }): { from: Point; to: Point } {
  const cx = Math.round(screen.width / 2);
  const cy = Math.round(screen.height / 2);
  const dy = Math.round(screen.height * 0.25);
  const dx = Math.round(screen.width * 0.3);
  switch (direction) {
    case "down":
      return { from: { x: cx, y: cy + dy }, to: { x: cx, y: cy - dy } };
    case "up":
      return { from: { x: cx, y: cy - dy }, to: { x: cx, y: cy + dy } };
    case "right":
      return { from: { x: cx + dx, y: cy }, to: { x: cx - dx, y: cy } };
    case "left":
      return { from: { x: cx - dx, y: cy }, to: { x: cx + dx, y: cy } };
  }
}

/** A visible ProgressBar, or a placeholder whose id says it is loading, shimmer or skeleton. */
export function hasLoadingIndicator(root: UiNode): boolean {
  const visible = (n: UiNode) => n.bounds.right > n.bounds.left && n.bounds.bottom > n.bounds.top;
  const loading = (n: UiNode) => /ProgressBar$/.test(n.className) || /(^|[:/_.])(loading|shimmer|skeleton|placeholder_loading)/i.test(n.resourceId);
  return flattenUiTree(root).some((n) => visible(n) && loading(n));
}

type Pending = (e: DeviceError) => void;

export class AdbDevice implements Device {
  readonly adb: Adb;
  readonly timeouts: DeviceTimeouts;
  readonly stableDefaults: StableDefaults;
  /** Resolves with the error every pending call received when the phone went away (never on close()). */
  readonly disconnected: Promise<DeviceDisconnected>;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #pending = new Set<Pending>();
  #lost: DeviceDisconnected | undefined;
  #closed = false;
  #screen: { width: number; height: number } | undefined;
  /** The newest screenshot's size: the screen as it is turned now (`wm size` gives the natural, portrait size). */
  #frame: { width: number; height: number } | undefined;
  #sdk: number | undefined;
  #resolveDisconnected!: (e: DeviceDisconnected) => void;

  constructor(adb: Adb, opts: AdbDeviceOptions = {}) {
    this.adb = adb;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
    this.stableDefaults = { maxDistance: 2, requiredMatches: 1, minQuietMs: 200, intervalMs: 100, checkLoadingIndicators: true, ...opts.stable };
    this.#now = opts.now ?? (() => Date.now());
    this.#sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.disconnected = new Promise((resolve) => (this.#resolveDisconnected = resolve));
    adb.disconnected.then(
      () => this.#onLost(undefined),
      (e: unknown) => this.#onLost(e),
    );
  }

  get isConnected(): boolean {
    return !this.#lost && !this.#closed;
  }

  get serial(): string {
    return this.adb.serial;
  }

  /** Registers a listener for the loss of the phone; returns a function that removes it. */
  onDisconnect(listener: (e: DeviceDisconnected) => void): () => void {
    let active = true;
    void this.disconnected.then((e) => active && listener(e));
    return () => {
      active = false;
    };
  }

  #onLost(cause: unknown): void {
    if (this.#closed || this.#lost) return;
    const detail = cause instanceof Error ? cause.message : "connection closed";
    this.#lost = cause instanceof DeviceDisconnected ? cause : new DeviceDisconnected(detail, { cause });
    for (const fail of this.#pending) fail(this.#lost);
    this.#pending.clear();
    this.#resolveDisconnected(this.#lost);
  }

  /** Runs `fn` with a timeout, failing with DeviceDisconnected the moment the connection is lost. */
  async #call<T>(operation: string, timeoutMs: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.#closed) throw new DeviceClosed();
    if (this.#lost) throw this.#lost;
    const abort = new AbortController();
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = (error: DeviceError | undefined, value?: T) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.#pending.delete(fail);
        if (error) {
          abort.abort(error);
          reject(error);
        } else resolve(value as T);
      };
      const fail: Pending = (e) => finish(e);
      const timer = setTimeout(() => finish(new DeviceTimeout(operation, timeoutMs)), timeoutMs);
      this.#pending.add(fail);
      fn(abort.signal).then(
        // A stream cut by a disconnect ends "normally" with partial data: the lost flag wins over the value.
        (value) => finish(this.#lost ?? (this.#closed ? new DeviceClosed() : undefined), value),
        (e: unknown) => finish(this.#lost ?? (this.#closed ? new DeviceClosed() : this.#mapError(e, operation))),
      );
    });
  }

  #mapError(e: unknown, operation: string): DeviceError {
    if (isDeviceError(e)) return e;
    if (e instanceof UiTreeParseError) return new DeviceCommandFailed(operation, e.message, "The screen may be animating or protected; try again in a moment.", { cause: e });
    const message = e instanceof Error ? e.message : String(e);
    if (/Socket (ended|closed)|Connection closed|disconnected|NetworkError|transfer error/i.test(message)) {
      return new DeviceDisconnected(message, { cause: e });
    }
    return new DeviceCommandFailed(operation, message, undefined, { cause: e });
  }

  /** Runs one shell command line verbatim (quote arguments with `shellCommand`). */
  async shell(command: string, signal?: AbortSignal): Promise<ShellResult> {
    const v2 = this.adb.subprocess.shellProtocol;
    if (v2) {
      const process = await v2.spawn([command], signal);
      const [stdout, stderr, exitCode] = await Promise.all([readAll(process.stdout), readAll(process.stderr), process.exited]);
      return { stdout, stderr: text(stderr), exitCode };
    }
    const process = await this.adb.subprocess.noneProtocol.spawn([command], signal);
    const output = await readAll(process.output);
    return { stdout: output, stderr: "", exitCode: undefined };
  }

  /** Runs a command; a non-zero exit or a known failure line in its output is a DeviceCommandFailed. */
  async #run(command: string, signal: AbortSignal, failsOn?: RegExp, fix?: string): Promise<string> {
    const r = await this.shell(command, signal);
    const out = text(r.stdout);
    const all = `${out}${r.stderr}`;
    if ((r.exitCode !== undefined && r.exitCode !== 0) || (failsOn && failsOn.test(all))) {
      if (this.#lost) throw this.#lost;
      throw new DeviceCommandFailed(command, all || `exit status ${r.exitCode}`, fix);
    }
    return out;
  }

  async #screenSize(signal: AbortSignal): Promise<{ width: number; height: number }> {
    if (!this.#screen) {
      const size = parseWmSize(await this.#run("wm size", signal));
      if (!size) throw new DeviceCommandFailed("wm size", "unrecognised output");
      this.#screen = size;
    }
    return this.#screen;
  }

  /**
   * The screen size in the coordinates input events use now: `input swipe` takes them as the screen is turned, while
   * `wm size` answers the natural size. A landscape newest frame on a portrait screen (or the reverse) swaps them.
   */
  async #turnedScreenSize(signal: AbortSignal): Promise<{ width: number; height: number }> {
    const size = await this.#screenSize(signal);
    const frame = this.#frame;
    if (frame && frame.width !== frame.height && frame.width > frame.height !== size.width > size.height) return { width: size.height, height: size.width };
    return size;
  }

  async #sdkLevel(signal: AbortSignal): Promise<number> {
    this.#sdk ??= Number((await this.#run("getprop ro.build.version.sdk", signal)).trim()) || 0;
    return this.#sdk;
  }

  info(opts?: CallOptions): Promise<DeviceInfo> {
    return this.#call("info", opts?.timeoutMs ?? this.timeouts.info, async (signal) => {
      const prop = (k: string) => this.#run(`getprop ${k}`, signal).then((s) => s.trim());
      const [model, manufacturer, release, sdk, serialno, size, density, battery, chosenLocale, productLocale] = await Promise.all([
        prop("ro.product.model"),
        prop("ro.product.manufacturer"),
        prop("ro.build.version.release"),
        prop("ro.build.version.sdk"),
        prop("ro.serialno"),
        this.#run("wm size", signal),
        this.#run("wm density", signal),
        this.shell("dumpsys battery", signal).then((r) => text(r.stdout)),
        // The language the owner chose in Settings, else the one the phone shipped with.
        prop("persist.sys.locale"),
        prop("ro.product.locale"),
      ]);
      const screen = parseWmSize(size);
      if (!screen) throw new DeviceCommandFailed("wm size", size);
      this.#screen = screen;
      this.#sdk = Number(sdk) || 0;
      return {
        serial: serialno || this.adb.serial,
        model,
        manufacturer,
        androidVersion: release,
        sdk: this.#sdk,
        locale: chosenLocale || productLocale || null,
        screen: { ...screen, density: parseWmDensity(density) ?? 0 },
        battery: parseBattery(battery),
      };
    });
  }

  screenshot(opts?: CallOptions): Promise<Screenshot> {
    return this.#call("screenshot", opts?.timeoutMs ?? this.timeouts.screenshot, async (signal) => {
      const r = await this.shell("screencap -p", signal);
      const png = r.stdout;
      if (this.#lost) throw this.#lost;
      if (!isPng(png)) {
        throw new DeviceCommandFailed("screencap -p", `${text(png.subarray(0, 300))}${r.stderr}`, "The screen may be off or showing protected content (e.g. a banking app); unlock the phone and try again.");
      }
      if (!pngComplete(png)) throw new DeviceDisconnected("the screenshot was cut off");
      const { width, height } = readPngHeader(png);
      this.#frame = { width, height };
      return { png, width, height, capturedAt: this.#now() };
    });
  }

  uiTree(opts?: CallOptions): Promise<UiNode> {
    return this.#call("uiTree", opts?.timeoutMs ?? this.timeouts.uiTree, async (signal) => {
      const dump = `uiautomator dump ${UI_DUMP_PATH} >/dev/null && cat ${UI_DUMP_PATH}`;
      // uiautomator refuses while the screen animates ("could not get idle state"); one retry covers most cases.
      for (let attempt = 0; ; attempt++) {
        const r = await this.shell(dump, signal);
        const out = text(r.stdout);
        if (out.includes("<hierarchy")) return parseUiTree(out);
        if (this.#lost) throw this.#lost;
        if (attempt >= 1) throw new DeviceCommandFailed("uiautomator dump", out + r.stderr, "The screen may be animating or protected; try again in a moment.");
      }
    });
  }

  foreground(opts?: CallOptions): Promise<Foreground> {
    return this.#call("foreground", opts?.timeoutMs ?? this.timeouts.foreground, async (signal) => {
      const out = await this.#run("dumpsys window", signal);
      const fg = parseForeground(out);
      if (!fg) throw new DeviceCommandFailed("dumpsys window", "no focused window found", "Unlock the phone: the lock screen hides the foreground app.");
      return fg;
    });
  }

  packageManager(args: PackageManagerQuery, opts?: CallOptions): Promise<string> {
    if ((args[0] !== "dump" && args[0] !== "query-activities") || args.some((a) => typeof a !== "string")) throw new TypeError("packageManager answers only `dump <package>` and `query-activities …`.");
    return this.#call("packageManager", opts?.timeoutMs ?? this.timeouts.foreground, (signal) => this.#run(shellCommand(["cmd", "package", ...args]), signal, /^Error:|Exception/m));
  }

  tap(p: Point, opts?: CallOptions): Promise<void> {
    const { x, y } = checkPoint(p, "tap");
    return this.#call("tap", opts?.timeoutMs ?? this.timeouts.input, async (signal) => {
      await this.#run(`input tap ${x} ${y}`, signal, /Exception|Error:/);
    });
  }

  doubleTap(p: Point, opts?: CallOptions): Promise<void> {
    const { x, y } = checkPoint(p, "doubleTap");
    // One shell line so the two taps land within Android's double-tap window.
    return this.#call("doubleTap", opts?.timeoutMs ?? this.timeouts.input, async (signal) => {
      await this.#run(`input tap ${x} ${y} && input tap ${x} ${y}`, signal, /Exception|Error:/);
    });
  }

  longPress(p: Point, durationMs = 800, opts?: CallOptions): Promise<void> {
    const { x, y } = checkPoint(p, "longPress");
    const d = checkDuration(durationMs, "longPress");
    return this.#call("longPress", (opts?.timeoutMs ?? this.timeouts.input) + d, async (signal) => {
      await this.#run(`input swipe ${x} ${y} ${x} ${y} ${d}`, signal, /Exception|Error:/);
    });
  }

  swipe(from: Point, to: Point, durationMs = 300, opts?: CallOptions): Promise<void> {
    const a = checkPoint(from, "swipe");
    const b = checkPoint(to, "swipe");
    const d = checkDuration(durationMs, "swipe");
    return this.#call("swipe", (opts?.timeoutMs ?? this.timeouts.input) + d, async (signal) => {
      await this.#run(`input swipe ${a.x} ${a.y} ${b.x} ${b.y} ${d}`, signal, /Exception|Error:/);
    });
  }

  drag(from: Point, to: Point, durationMs = 1_000, opts?: CallOptions): Promise<void> {
    const a = checkPoint(from, "drag");
    const b = checkPoint(to, "drag");
    const d = checkDuration(durationMs, "drag");
    return this.#call("drag", (opts?.timeoutMs ?? this.timeouts.input) + d, async (signal) => {
      // `input draganddrop` (Android 7+) long-presses before moving, which is what picks an item up.
      const command = (await this.#sdkLevel(signal)) >= 24 ? "draganddrop" : "swipe";
      await this.#run(`input ${command} ${a.x} ${a.y} ${b.x} ${b.y} ${d}`, signal, /Exception|Error:/);
    });
  }

  scroll(direction: Direction, opts?: CallOptions): Promise<void> {
    if (!["up", "down", "left", "right"].includes(direction)) throw new RangeError(`scroll: unknown direction ${String(direction)}`);
    return this.#call("scroll", opts?.timeoutMs ?? this.timeouts.input, async (signal) => {
      const { from, to } = scrollGesture(direction, await this.#turnedScreenSize(signal));
      await this.#run(`input swipe ${from.x} ${from.y} ${to.x} ${to.y} 400`, signal, /Exception|Error:/);
    });
  }

  key(key: KeyName, opts?: CallOptions): Promise<void> {
    const code = KEYCODE[key];
    if (code === undefined) throw new RangeError(`key: unknown key ${String(key)}`);
    return this.#call(`key ${key}`, opts?.timeoutMs ?? this.timeouts.key, async (signal) => {
      await this.#run(`input keyevent ${code}`, signal, /Exception|Error:/);
    });
  }

  openApp(packageName: string, opts?: CallOptions): Promise<void> {
    if (!/^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$/.test(packageName)) throw new RangeError(`openApp: "${packageName}" is not a package name`);
    return this.#call(`openApp ${packageName}`, opts?.timeoutMs ?? this.timeouts.openApp, async (signal) => {
      await this.#run(
        shellCommand(["monkey", "-p", packageName, "-c", "android.intent.category.LAUNCHER", "1"]),
        signal,
        /No activities found|monkey aborted|Error:/i,
        `Check that ${packageName} is installed and has a launcher icon.`,
      );
    });
  }

  openDeeplink(uri: string, opts?: CallOptions): Promise<void> {
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) throw new RangeError(`openDeeplink: "${uri}" is not a URI`);
    return this.#call("openDeeplink", opts?.timeoutMs ?? this.timeouts.openDeeplink, async (signal) => {
      await this.#run(
        shellCommand(["am", "start", "-a", "android.intent.action.VIEW", "-d", uri]),
        signal,
        /^Error|unable to resolve Intent|Exception/m,
        "No app on the phone handles this link; install the app or check the link.",
      );
    });
  }

  typeText(value: string, opts?: CallOptions): Promise<void> {
    const timeoutMs = opts?.timeoutMs ?? this.timeouts.typeText;
    return this.#call("typeText", timeoutMs, async (signal) => {
      if (value === "") return;
      if (canUseInputText(value)) {
        for (const command of inputTextCommands(value)) await this.#run(command, signal, /Exception|Error:/);
        return;
      }
      await this.#typeWithAdbKeyboard(value, signal);
    });
  }

  async #typeWithAdbKeyboard(value: string, signal: AbortSignal): Promise<void> {
    const installed = parseImeList(await this.#run("ime list -a -s", signal));
    if (!installed.includes(ADB_KEYBOARD_IME)) throw new AdbKeyboardMissing(value);
    const previous = parseDefaultIme(await this.#run("settings get secure default_input_method", signal));
    const switched = previous !== ADB_KEYBOARD_IME;
    if (switched) {
      await this.#run(`ime enable ${shellQuote(ADB_KEYBOARD_IME)}`, signal);
      await this.#run(`ime set ${shellQuote(ADB_KEYBOARD_IME)}`, signal, /Unknown input method|Error/);
      await this.#waitForIme(ADB_KEYBOARD_IME, signal);
    }
    try {
      await this.#run(adbKeyboardTypeCommand(value), signal, /Exception|Error:/);
    } finally {
      // Give the user their keyboard back even when typing failed (but not when the phone is gone).
      if (switched && previous && !this.#lost) await this.#run(`ime set ${shellQuote(previous)}`, new AbortController().signal).catch(() => undefined);
    }
  }

  async #waitForIme(ime: string, signal: AbortSignal): Promise<void> {
    const deadline = this.#now() + this.timeouts.keyboardSwitch;
    while (parseDefaultIme(await this.#run("settings get secure default_input_method", signal)) !== ime) {
      if (this.#now() > deadline) throw new DeviceCommandFailed(`ime set ${ime}`, "the keyboard did not switch", "Enable ADBKeyboard in Settings → System → Keyboards, then try again.");
      await this.#sleep(50);
    }
  }

  /**
   * Takes frames until two pHashes match over `minQuietMs` with no loading indicator on screen, and returns the
   * last frame with its pHash (and the UI tree it read for the indicator check) so the caller need not take another
   * screenshot or dump the tree again. Each criterion can be set per call; the device's defaults apply otherwise.
   */
  async waitForStable(opts?: StableOptions): Promise<StableResult> {
    if (this.#closed) throw new DeviceClosed();
    if (this.#lost) throw this.#lost;
    const timeoutMs = opts?.timeoutMs ?? this.timeouts.waitForStable;
    const intervalMs = opts?.intervalMs ?? this.stableDefaults.intervalMs;
    const checkLoading = opts?.checkLoadingIndicators ?? this.stableDefaults.checkLoadingIndicators;
    const maxDistance = opts?.maxDistance ?? this.stableDefaults.maxDistance;
    const requiredMatches = opts?.requiredMatches ?? this.stableDefaults.requiredMatches;
    const minQuietMs = opts?.minQuietMs ?? this.stableDefaults.minQuietMs;
    const start = this.#now();
    const elapsed = () => this.#now() - start;
    // Each frame gets the time left (at least 1 s, at most the screenshot default): a hung phone still times out.
    const budget = () => Math.min(this.timeouts.screenshot, Math.max(1_000, timeoutMs - elapsed()));
    // Frames are compared by their bytes first: an unchanged screen gives byte-identical PNGs, so a still screen is
    // settled without decoding a frame. Only frames that differ are decoded and compared by pHash (within maxDistance).
    let previousPng: Uint8Array | undefined;
    /** pHash of the previous frame, once one was needed. */
    let previousHash: string | undefined;
    let matches = 0;
    let quietSince = 0;
    let frames = 0;
    // A still screen already seen with a loading indicator: keep polling frames, skip asking the UI tree again.
    let loadingHash: string | undefined;
    let finished = false;
    // The next frame is captured while this one is compared; once the answer is known no further frame is taken.
    /** When the newest capture was asked for: a screencap grabs the screen early and spends the rest encoding. */
    let capturedFrom = start;
    const capture = (): Promise<Screenshot | undefined> => {
      if (finished) return Promise.resolve(undefined);
      capturedFrom = this.#now();
      const p: Promise<Screenshot | undefined> = this.screenshot({ timeoutMs: budget() });
      p.catch(() => undefined); // awaited below, or dropped when the loop ends
      return p;
    };
    const result = (stable: boolean, shot: Screenshot, hash: string | undefined, tree?: UiNode): StableResult => ({
      stable,
      waitedMs: elapsed(),
      frames,
      screenshot: shot,
      ...(hash !== undefined ? { phash: hash } : {}),
      ...(tree ? { tree } : {}),
    });
    let next = capture();
    try {
      for (;;) {
        const shot = await next;
        if (!shot) throw new DeviceClosed();
        const at = this.#now();
        // Every pair of frames compared is at least the interval apart, the first pair too: an app may answer a tap
        // a moment later (a delayed transition with no spinner), and two frames taken back to back would both show
        // the screen before it. The interval runs from when the frame was asked for (the time its transfer took
        // counts towards it), so a still screen settles in one interval plus one transfer, not two transfers.
        const more = elapsed() + intervalMs < timeoutMs;
        if (more) {
          const pause = Math.max(0, capturedFrom + intervalMs - this.#now());
          next = (pause > 0 ? this.#sleep(pause) : Promise.resolve()).then(capture);
          next.catch(() => undefined);
        }
        let hash: string | undefined;
        let same = false;
        if (previousPng && sameBytes(previousPng, shot.png)) {
          same = true;
          hash = previousHash;
        } else if (previousPng) {
          previousHash ??= await phashPng(previousPng);
          hash = await phashPng(shot.png);
          same = hammingDistance(previousHash, hash) <= maxDistance;
        }
        previousPng = shot.png;
        previousHash = hash;
        frames++;
        if (same) matches++;
        else {
          matches = 0;
          quietSince = at;
        }
        if (matches >= requiredMatches && at - quietSince >= minQuietMs && (loadingHash === undefined || hash !== loadingHash)) {
          if (!checkLoading) return result(true, shot, hash);
          const tree = await this.#treeUnlessLoading(budget());
          if (tree) return result(true, shot, hash, tree);
          // Hashed now, so every later frame carries a hash to tell this still skeleton from the finished screen.
          loadingHash = previousHash = hash ?? (await phashPng(shot.png));
        }
        if (!more) return result(false, shot, hash);
      }
    } finally {
      finished = true;
    }
  }

  async drain(opts?: DrainOptions): Promise<DrainResult> {
    const timeoutMs = opts?.timeoutMs ?? 15_000;
    const intervalMs = opts?.intervalMs ?? 250;
    const start = this.#now();
    const waited = () => this.#now() - start;
    let checked = true;
    for (;;) {
      let running: string[];
      try {
        running = await this.#call(RUNNING_COMMANDS_PS, this.timeouts.foreground, async (signal) => inputCommandsIn(await this.#run(RUNNING_COMMANDS_PS, signal)));
      } catch (e) {
        // A phone without toybox ps cannot say what it runs: the settle alone stands for the drain.
        if (!(e instanceof DeviceCommandFailed)) throw e;
        checked = false;
        running = [];
      }
      if (!running.length) break;
      if (waited() + intervalMs > timeoutMs) return { drained: false, checked, running, waitedMs: waited(), settled: null };
      await this.#sleep(intervalMs);
    }
    const waitedMs = waited();
    return { drained: true, checked, running: [], waitedMs, settled: await this.waitForStable(opts?.stable) };
  }

  /** The UI tree of a still screen, or null while it shows a loading indicator. */
  async #treeUnlessLoading(timeoutMs: number): Promise<UiNode | null> {
    try {
      const tree = await this.uiTree({ timeoutMs });
      return hasLoadingIndicator(tree) ? null : tree;
    } catch (e) {
      // uiautomator cannot dump a screen that keeps animating: that is not a stable screen either.
      if (e instanceof DeviceCommandFailed) return null;
      throw e;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const closed = new DeviceClosed();
    for (const fail of this.#pending) fail(closed);
    this.#pending.clear();
    if (this.#lost) return;
    await Promise.race([Promise.resolve(this.adb.close()).catch(() => undefined), this.#sleep(this.timeouts.close)]);
  }
}
