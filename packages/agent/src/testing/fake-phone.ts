// A small in-memory phone for the agent's unit tests (Node only): screens of elements, transitions on tap,
// real PNG screenshots (so pHash and image preparation run for real), a log of every device command, and
// faults (disconnect after N commands, transient failures). Scenario-level acceptance tests use
// @phoneloop/virtual-phone over ADB instead.
import { createCanvas } from "@napi-rs/canvas";
import { phashPng, type Bounds, type Device, type DeviceInfo, type Direction, type Foreground, type KeyName, type Point, type Screenshot, type StableOptions, type StableResult, type UiNode } from "@phoneloop/device";

export interface FakeElement {
  id: string;
  text?: string;
  desc?: string;
  bounds: Bounds;
  clickable?: boolean;
  editable?: boolean;
  /** Screen to go to when tapped, or a handler. */
  onTap?: string | ((phone: FakePhone) => void);
  color?: string;
}

export interface FakeScreen {
  app: string;
  activity?: string;
  background: string;
  elements: FakeElement[];
  /** Screen on back; undefined = stays. */
  back?: string;
  onScroll?: (phone: FakePhone, direction: Direction) => void;
}

export interface FakeCommand {
  op: string;
  args: unknown[];
  screen: string;
}

export class FakeDisconnect extends Error {
  readonly code = "DEVICE_DISCONNECTED";
}

const W = 1080;
const H = 2400;

export class FakePhone implements Device {
  current: string;
  readonly log: FakeCommand[] = [];
  readonly typed: Record<string, string> = {};
  focused: string | undefined;
  /** Throw a disconnect on every call once this many commands ran. */
  disconnectAfter: number | undefined;
  /** Fail this many upcoming commands with a transient error. */
  transientFailures = 0;
  private pngCache = new Map<string, Uint8Array>();
  private calls = 0;

  constructor(
    readonly screens: Record<string, FakeScreen>,
    start: string,
  ) {
    this.current = start;
  }

  get screen(): FakeScreen {
    const s = this.screens[this.current];
    if (!s) throw new Error(`fake phone: no screen ${this.current}`);
    return s;
  }

  go(screen: string): void {
    this.current = screen;
    this.focused = undefined;
  }

  /** Device commands that changed the phone (taps, keys, text, gestures). */
  actions(): FakeCommand[] {
    return this.log.filter((c) => !["screenshot", "uiTree", "foreground", "info", "waitForStable"].includes(c.op));
  }

  private enter(op: string, args: unknown[]): void {
    this.calls++;
    if (this.disconnectAfter !== undefined && this.calls > this.disconnectAfter) throw new FakeDisconnect("The phone disconnected (fake).");
    if (this.transientFailures > 0 && !["screenshot", "uiTree", "foreground"].includes(op)) {
      this.transientFailures--;
      throw Object.assign(new Error(`${op}: transient failure (fake)`), { code: "DEVICE_TIMEOUT" });
    }
    this.log.push({ op, args, screen: this.current });
  }

  async info(): Promise<DeviceInfo> {
    this.enter("info", []);
    return { serial: "fake-1", model: "FakePhone", manufacturer: "PhoneLoop", androidVersion: "14", sdk: 34, locale: "en-US", screen: { width: W, height: H, density: 420 }, battery: null };
  }

  async screenshot(): Promise<Screenshot> {
    this.enter("screenshot", []);
    return this.frame();
  }

  /** The current screen as a PNG, without logging a command. */
  private frame(): Screenshot {
    const s = this.screen;
    const key = `${this.current}|${JSON.stringify(this.typed)}`;
    let png = this.pngCache.get(key);
    if (!png) {
      const c = createCanvas(W, H);
      const g = c.getContext("2d");
      g.fillStyle = s.background;
      g.fillRect(0, 0, W, H);
      s.elements.forEach((e, i) => {
        g.fillStyle = e.color ?? ["#222", "#e33", "#3a3", "#33e", "#fa0", "#0aa", "#a0a"][i % 7]!;
        g.fillRect(e.bounds.left, e.bounds.top, e.bounds.right - e.bounds.left, e.bounds.bottom - e.bounds.top);
      });
      png = new Uint8Array(c.toBuffer("image/png"));
      this.pngCache.set(key, png);
    }
    return { png, width: W, height: H, capturedAt: 0 };
  }

  async uiTree(): Promise<UiNode> {
    this.enter("uiTree", []);
    const s = this.screen;
    const node = (over: Partial<UiNode> & { bounds: Bounds }, index: number): UiNode => uiNode({ index, packageName: s.app, ...over });
    return node(
      {
        bounds: { left: 0, top: 0, right: W, bottom: H },
        className: "android.widget.FrameLayout",
        children: s.elements.map((e, i) =>
          node(
            {
              bounds: e.bounds,
              text: e.editable ? (this.typed[e.id] ?? e.text ?? "") : (e.text ?? ""),
              contentDesc: e.desc ?? "",
              resourceId: `${s.app}:id/${e.id}`,
              className: e.editable ? "android.widget.EditText" : e.clickable ? "android.widget.Button" : "android.widget.TextView",
              clickable: Boolean(e.clickable || e.editable),
              focusable: Boolean(e.editable),
              focused: this.focused === e.id,
            },
            i + 1,
          ),
        ),
      },
      0,
    );
  }

  async foreground(): Promise<Foreground> {
    this.enter("foreground", []);
    return { packageName: this.screen.app, activity: this.screen.activity ?? ".Main" };
  }

  private hit(p: Point): FakeElement | undefined {
    return [...this.screen.elements].reverse().find((e) => p.x >= e.bounds.left && p.x < e.bounds.right && p.y >= e.bounds.top && p.y < e.bounds.bottom);
  }

  async tap(p: Point): Promise<void> {
    this.enter("tap", [p]);
    const e = this.hit(p);
    if (!e) return;
    if (e.editable) this.focused = e.id;
    if (typeof e.onTap === "string") this.go(e.onTap);
    else e.onTap?.(this);
  }
  async doubleTap(p: Point): Promise<void> {
    this.enter("doubleTap", [p]);
  }
  async longPress(p: Point, durationMs?: number): Promise<void> {
    this.enter("longPress", [p, durationMs]);
  }
  async swipe(from: Point, to: Point, durationMs?: number): Promise<void> {
    this.enter("swipe", [from, to, durationMs]);
  }
  async drag(from: Point, to: Point, durationMs?: number): Promise<void> {
    this.enter("drag", [from, to, durationMs]);
  }
  async scroll(direction: Direction): Promise<void> {
    this.enter("scroll", [direction]);
    this.screen.onScroll?.(this, direction);
  }
  async typeText(text: string): Promise<void> {
    this.enter("typeText", [text]);
    if (this.focused) this.typed[this.focused] = (this.typed[this.focused] ?? "") + text;
  }
  async key(key: KeyName): Promise<void> {
    this.enter("key", [key]);
    if (key === "back" && this.screen.back) this.go(this.screen.back);
    if (key === "home" && this.screens.home) this.go("home");
  }
  async openApp(pkg: string): Promise<void> {
    this.enter("openApp", [pkg]);
    const target = Object.entries(this.screens).find(([, s]) => s.app === pkg || s.app.endsWith(`.${pkg.toLowerCase()}`));
    if (target) this.go(target[0]);
  }
  async openDeeplink(uri: string): Promise<void> {
    this.enter("openDeeplink", [uri]);
  }
  async waitForStable(opts?: StableOptions): Promise<StableResult> {
    this.enter("waitForStable", []);
    const screenshot = this.frame();
    // As the device does: the loading check reads the tree, which comes back with the settled frame.
    const tree = opts?.checkLoadingIndicators ? await this.uiTree() : undefined;
    return { stable: true, waitedMs: 0, frames: 2, screenshot, phash: await phashPng(screenshot.png), ...(tree ? { tree } : {}) };
  }
  async close(): Promise<void> {}
}

/** Bounds helper: a box in 0–1000 coordinates → device pixels of the 1080×2400 fake screen. */
/** A UI-tree node with every field at its default (not clickable, enabled, no text), `over` on top. */
export function uiNode(over: Partial<UiNode> & { bounds: Bounds }): UiNode {
  return {
    index: 0,
    text: "",
    resourceId: "",
    className: "android.view.View",
    packageName: "",
    contentDesc: "",
    checkable: false,
    checked: false,
    clickable: false,
    enabled: true,
    focusable: false,
    focused: false,
    scrollable: false,
    longClickable: false,
    password: false,
    selected: false,
    children: [],
    ...over,
  };
}

export function box(l: number, t: number, r: number, b: number): Bounds {
  return { left: Math.round((l * W) / 1000), top: Math.round((t * H) / 1000), right: Math.round((r * W) / 1000), bottom: Math.round((b * H) / 1000) };
}
