// The port the agent uses to see and drive a phone. Connections (WebUSB, WebSocket, TCP, adb server) all
// produce an `Adb` from @yume-chan/adb; `AdbDevice` implements this interface over it.

export interface DeviceInfo {
  serial: string;
  model: string;
  manufacturer: string;
  androidVersion: string;
  sdk: number;
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

export interface Point {
  x: number;
  y: number;
}

export interface CallOptions {
  /** Per-call timeout; every call has one (default per method). */
  timeoutMs?: number;
}

export interface StableOptions {
  timeoutMs?: number;
  /** Interval between frames compared. */
  intervalMs?: number;
}

export interface StableResult {
  stable: boolean;
  waitedMs: number;
  frames: number;
}

export interface Device {
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
  close(): Promise<void>;
}
