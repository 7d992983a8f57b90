// The port the agent uses to see and drive a phone. Connections (WebUSB, WebSocket, TCP, adb server) all
// produce an `Adb` from @yume-chan/adb; `AdbDevice` implements this interface over it.

export interface DeviceInfo {
  serial: string;
  model: string;
  manufacturer: string;
  androidVersion: string;
  sdk: number;
  /** The phone's language (BCP 47, e.g. "de-DE"): persist.sys.locale, else ro.product.locale; null when neither is set. */
  locale: string | null;
  screen: { width: number; height: number; density: number };
  battery: { level: number; charging: boolean } | null;
}

export interface Screenshot {
  png: Uint8Array;
  width: number;
  height: number;
  /** Milliseconds since epoch when the frame was captured. */
  capturedAt: number;
}

export interface Bounds {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface UiNode {
  index: number;
  text: string;
  resourceId: string;
  className: string;
  packageName: string;
  contentDesc: string;
  checkable: boolean;
  checked: boolean;
  clickable: boolean;
  enabled: boolean;
  focusable: boolean;
  focused: boolean;
  scrollable: boolean;
  longClickable: boolean;
  password: boolean;
  selected: boolean;
  bounds: Bounds;
  children: UiNode[];
}

export interface Foreground {
  packageName: string;
  activity: string;
  /** The focused window forbids screenshots (FLAG_SECURE): its screenshot is black. Absent when not known. */
  secure?: boolean;
}

export type Direction = "up" | "down" | "left" | "right";

export type KeyName =
  | "back"
  | "home"
  | "enter"
  | "delete"
  | "tab"
  | "app_switch"
  | "menu"
  | "power"
  | "volume_up"
  | "volume_down"
  | "space"
  | "escape";

/** The read-only package-manager questions a Device answers. */
export type PackageManagerQuery = ["dump", string] | ["query-activities", ...string[]];

export interface Point {
  x: number;
  y: number;
}

export interface CallOptions {
  /** Per-call timeout in ms; without it the method's entry in `DeviceTimeouts` applies. */
  timeoutMs?: number;
}

export interface StableOptions {
  /** Give up after this many ms (default `DeviceTimeouts.waitForStable`); the result then says `stable: false`. */
  timeoutMs?: number;
  /** Pause between frames compared, in ms. */
  intervalMs?: number;
  /** Also ask the UI tree for loading indicators before calling a still screen stable. */
  checkLoadingIndicators?: boolean;
  /** Frames whose pHashes differ by at most this many bits (of 64) count as the same screen. */
  maxDistance?: number;
  /** Consecutive matching pairs needed (1 = two frames in a row). */
  requiredMatches?: number;
  /** The matching frames must also span at least this long (0: two matching frames in a row are enough). */
  minQuietMs?: number;
}

export interface StableResult {
  /** True when the screen settled; false when the timeout came first (the frame is then the last one seen). */
  stable: boolean;
  waitedMs: number;
  frames: number;
  /** The last frame taken: the settled screen when `stable`. Reuse it as the observation instead of another screenshot. */
  screenshot: Screenshot;
  /**
   * pHash of `screenshot` (`phashPng`), when the comparison computed one: frames are compared by their bytes first
   * (an unchanged screen gives byte-identical PNGs), and only frames that differ are decoded and hashed.
   */
  phash?: string;
  /**
   * The UI tree read after the settled frame for the loading-indicator check, when `stable` and one was read:
   * reuse it as the observation's tree instead of dumping it again.
   */
  tree?: UiNode;
}

export interface DrainOptions {
  /** How long to wait for input commands still running on the phone to end (default 15 s). */
  timeoutMs?: number;
  /** How often the phone is asked (default 250 ms). */
  intervalMs?: number;
  /** The settle that follows once no input command is left. */
  stable?: StableOptions;
}

export interface DrainResult {
  /** True when no input command was left running on the phone within the timeout. */
  drained: boolean;
  /** False when the phone could not say what it runs (no toybox ps): then only the settle stands for the drain. */
  checked: boolean;
  /** The input commands (command lines) still running when it gave up; empty when drained. */
  running: string[];
  /** How long it waited for input commands of earlier connections to end. */
  waitedMs: number;
  /** The screen settled after the drain (null when it did not drain). */
  settled: StableResult | null;
}

export interface Device {
  /** Registers a listener for the loss of the phone; returns a function that removes it (a loss aborts what waits on it). */
  onDisconnect?(listener: (e: Error) => void): () => void;
  info(opts?: CallOptions): Promise<DeviceInfo>;
  screenshot(opts?: CallOptions): Promise<Screenshot>;
  uiTree(opts?: CallOptions): Promise<UiNode>;
  foreground(opts?: CallOptions): Promise<Foreground>;
  tap(p: Point, opts?: CallOptions): Promise<void>;
  doubleTap(p: Point, opts?: CallOptions): Promise<void>;
  longPress(p: Point, durationMs?: number, opts?: CallOptions): Promise<void>;
  swipe(from: Point, to: Point, durationMs?: number, opts?: CallOptions): Promise<void>;
  drag(from: Point, to: Point, durationMs?: number, opts?: CallOptions): Promise<void>;
  scroll(direction: Direction, opts?: CallOptions): Promise<void>;
  typeText(text: string, opts?: CallOptions): Promise<void>;
  key(key: KeyName, opts?: CallOptions): Promise<void>;
  openApp(packageName: string, opts?: CallOptions): Promise<void>;
  openDeeplink(uri: string, opts?: CallOptions): Promise<void>;
  waitForStable(opts?: StableOptions): Promise<StableResult>;
  /**
   * Waits until no input command is running on the phone any more (one an earlier connection sent may still be
   * carrying out on a lagging phone), then for a settled screen: what a resumed run reads after an action whose
   * outcome is unknown. Optional for a device that cannot be asked what it runs.
   */
  drain?(opts?: DrainOptions): Promise<DrainResult>;
  /**
   * Asks the package manager (`cmd package <args>`), read-only: `dump <package>` (activities, intent filters,
   * version) or `query-activities …`. Where deeplink shortcuts and app versions come from; optional for a device
   * that cannot answer it.
   */
  packageManager?(args: PackageManagerQuery, opts?: CallOptions): Promise<string>;
  close(): Promise<void>;
}
