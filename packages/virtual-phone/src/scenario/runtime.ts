// The phone's app world: which app is in front, its screen stack, variables, popups, focus — and the
// transitions that touches, keys and intents cause. Time comes from an injected clock.
import type { Action, App, Json, Popup, Scenario, Screen } from "./schema.ts";
import { evaluatePredicate, readOperand, resolveJson, getPath, stringify, truthy, parseRef, rowFieldRef, type ValueScope } from "./values.ts";
import { layoutScreen, type LayoutInput, type Measure } from "../render/layout.ts";
import { contains, hitTest, touchTarget, type Handler, type ScreenLayout } from "../render/view.ts";

export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

export interface Frame {
  screen: string;
  scroll: Record<string, number>;
  loadingUntil: number;
}
export interface AppRuntime {
  vars: Record<string, unknown>;
  stack: Frame[];
  actions: number;
  popup: string | null;
}
export interface LogEntry {
  t: number;
  app: string | null;
  event: string;
  [k: string]: unknown;
}
export interface Focus {
  app: string;
  field: string;
  bind: string;
  submit?: Action[];
  item?: unknown;
}
export interface PhoneState {
  seed: number;
  foreground: string | null;
  apps: Record<string, AppRuntime>;
  focus: Focus | null;
  settings: { system: Record<string, unknown>; secure: Record<string, unknown>; global: Record<string, unknown> };
  log: LogEntry[];
  shownPopups: string[];
  actionCount: number;
  draws: Record<string, number>;
  toast: { text: string; until: number } | null;
  screenOn: boolean;
  /** The notification shade is pulled down. */
  shade: boolean;
  /** The overview (recent apps) is showing. */
  recentsOpen: boolean;
  clipboard: string;
  recents: string[];
  /** BCP 47 tag: the scenario's locale, or the seed's pick from its list. */
  locale: string;
  /** Popups whose trigger fired with a delay: shown at `at` (the phone's clock) when their app is in front. */
  pendingPopups: { app: string; popup: string; at: number }[];
}

export const DEFAULT_IME = "com.android.inputmethod.latin/.LatinIME";
export const ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME";
export const LAUNCHER_PACKAGE = "com.google.android.apps.nexuslauncher";
export const LAUNCHER_ACTIVITY = "com.google.android.apps.nexuslauncher.NexusLauncherActivity";

export class ScenarioError extends Error {
  readonly code = "SCENARIO_ERROR";
}

function hash32(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** mulberry32 of (seed, key, n): the same seed gives the same popups in the same order. */
export function seededRandom(seed: number, key: string, n: number): number {
  let a = (seed ^ hash32(key) ^ Math.imul(n + 1, 0x9e3779b1)) >>> 0;
  a = (a + 0x6d2b79f5) >>> 0;
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** "settings:system.x" is the Android settings table; "settings:other" is the Settings app's own state. */
function isSettingsTable(ns: string, path: string[]): boolean {
  return ns === "settings" && (path[0] === "system" || path[0] === "secure" || path[0] === "global");
}

export interface SystemUi {
  /** The "Allow USB debugging?" prompt; `alwaysAllow` is its checkbox, `scroll` how far its middle is scrolled. */
  usbPrompt: { fingerprint: string; alwaysAllow: boolean; scroll?: number } | null;
  onUsbPrompt: ((allow: boolean, alwaysAllow: boolean) => void) | null;
}

export const USB_PROMPT_WINDOW = { package: "com.android.systemui", activity: "com.android.systemui.usb.UsbDebuggingActivity" } as const;
export const DEFAULT_LOCALE = "en-US";

/** The scenario's locale; with a list, the seed picks one (same seed, same locale). */
export function localeFor(scenario: Scenario, seed: number): string {
  const l = scenario.locale;
  if (!l) return DEFAULT_LOCALE;
  if (typeof l === "string") return l;
  return l[Math.floor(seededRandom(seed, "locale", 0) * l.length)]!;
}

/** The language the stock keyboard's space bar shows: "English (US)", "Deutsch", "日本語", "中文". */
export function keyboardLanguage(locale: string): string {
  if (locale === DEFAULT_LOCALE) return "English (US)";
  const language = new Intl.Locale(locale).language;
  return new Intl.DisplayNames([locale], { type: "language" }).of(language) ?? locale;
}

/** Surface rotation 0-3 from the settings Android reads: user_rotation applies while auto-rotate is off. */
export function rotationOf(system: Record<string, unknown>): 0 | 1 | 2 | 3 {
  if (String(system.accelerometer_rotation ?? "0") !== "0") return 0; // auto-rotate follows the (upright) sensor
  const n = Number(system.user_rotation ?? 0);
  return (Number.isInteger(n) && n >= 0 && n <= 3 ? n : 0) as 0 | 1 | 2 | 3;
}

export interface DeviceSpec {
  width: number;
  height: number;
  density: number;
}

export class ScenarioRuntime {
  state!: PhoneState;
  readonly apps = new Map<string, App>();
  #byPackage = new Map<string, App>();
  #version = 0;
  #layoutCache: { key: string; layout: ScreenLayout } | null = null;
  battery = 85;

  constructor(
    readonly scenario: Scenario,
    readonly device: DeviceSpec,
    readonly clock: Clock,
    readonly measure: Measure,
    seed: number,
    /** System UI shared across scenario loads: the "Allow USB debugging?" prompt and who answers it. */
    readonly system: SystemUi = { usbPrompt: null, onUsbPrompt: null },
  ) {
    for (const a of scenario.apps) {
      this.apps.set(a.id, a);
      this.#byPackage.set(a.package, a);
    }
    this.reset(seed);
  }

  /** Bumped on every state change; part of the screenshot cache key. */
  get version(): number {
    return this.#version;
  }
  touch(): void {
    this.#version++;
  }

  reset(seed: number): void {
    const apps: Record<string, AppRuntime> = {};
    for (const a of this.scenario.apps) apps[a.id] = { vars: structuredClone(a.state) as Record<string, unknown>, stack: [], actions: 0, popup: null };
    this.state = {
      seed,
      foreground: null,
      apps,
      focus: null,
      settings: {
        system: { font_scale: "1.0", screen_brightness: "128", screen_off_timeout: "60000", accelerometer_rotation: "0", user_rotation: "0", ...(this.scenario.settings?.system as object) },
        secure: { default_input_method: DEFAULT_IME, enabled_input_methods: `${DEFAULT_IME}:${ADB_KEYBOARD_IME}`, android_id: (seed >>> 0).toString(16).padStart(16, "0"), ...(this.scenario.settings?.secure as object) },
        global: { wifi_on: "1", bluetooth_on: "0", airplane_mode_on: "0", adb_enabled: "1", development_settings_enabled: "1", ...(this.scenario.settings?.global as object) },
      },
      log: [],
      shownPopups: [],
      actionCount: 0,
      draws: {},
      toast: null,
      screenOn: true,
      shade: false,
      recentsOpen: false,
      clipboard: "",
      recents: [],
      locale: localeFor(this.scenario, seed),
      pendingPopups: [],
    };
    this.#layoutCache = null;
    this.touch();
    if (this.scenario.start) this.launch(this.scenario.start.app, this.scenario.start.screen, { silent: true });
  }

  appById(id: string): App {
    const a = this.apps.get(id);
    if (!a) throw new ScenarioError(`unknown app "${id}"; installed apps: ${[...this.apps.keys()].join(", ")}`);
    return a;
  }
  appByPackage(pkg: string): App | undefined {
    return this.#byPackage.get(pkg);
  }

  // ---------------- reading ----------------
  #computing = 0;
  readRef = (ns: string, path: string[]): unknown => {
    if (isSettingsTable(ns, path)) return getPath(this.state.settings, path);
    if (ns === "device") return getPath(this.deviceInfo(), path);
    const app = this.state.apps[ns];
    if (!app) return undefined;
    const computed = path[0] !== undefined && !(path[0] in app.vars) ? this.apps.get(ns)?.computed[path[0]] : undefined;
    if (computed !== undefined) {
      if (this.#computing > 32) throw new ScenarioError(`computed value "${ns}:${path[0]}" refers to itself; make it depend on state only`);
      this.#computing++;
      try {
        return getPath(readOperand(computed, this.scope(ns)), path.slice(1));
      } finally {
        this.#computing--;
      }
    }
    return getPath(app.vars, path);
  };

  /** The display as it is now: the physical size, turned by the rotation. */
  get screen(): DeviceSpec & { rotation: 0 | 1 | 2 | 3 } {
    const rotation = rotationOf(this.state.settings.system);
    const turned = rotation % 2 === 1;
    return { width: turned ? this.device.height : this.device.width, height: turned ? this.device.width : this.device.height, density: this.device.density, rotation };
  }

  deviceInfo(): Record<string, unknown> {
    this.#showDuePopups();
    const fg = this.state.foreground;
    const frame = fg ? this.state.apps[fg]?.stack.at(-1) : undefined;
    return {
      foreground: fg ?? "launcher",
      screen: frame?.screen ?? null,
      ime: this.state.settings.secure.default_input_method,
      keyboard: this.state.focus !== null,
      popup: fg ? this.state.apps[fg]?.popup ?? null : null,
      focused: this.state.focus?.field ?? null,
      actions: this.state.actionCount,
      log: this.state.log,
      clipboard: this.state.clipboard,
      locale: this.state.locale,
      rotation: rotationOf(this.state.settings.system),
    };
  }

  scope(app: string | null, extra: Partial<ValueScope> = {}): ValueScope {
    return { readRef: this.readRef, app, device: this.deviceInfo(), locale: this.state.locale, ...extra };
  }

  /** A row's own field ("item.qty") becomes the reference of that entry; other refs stay as they are. */
  #ref(ref: string, item: unknown): string {
    return rowFieldRef(ref, item) ?? ref;
  }
  #read(ref: string, app: string): unknown {
    return this.readRef(...parseRef(ref, app));
  }

  writeRef(ref: string, app: string | null, value: unknown): void {
    const [ns, path] = parseRef(ref, app);
    if (path.length === 0) throw new ScenarioError(`cannot write to "${ref}": no variable name`);
    let root: Record<string, unknown>;
    if (ns === "device" && path.join(".") === "clipboard") {
      this.state.clipboard = stringify(value);
      this.touch();
      return;
    }
    if (isSettingsTable(ns, path)) root = this.state.settings as unknown as Record<string, unknown>;
    else if (this.state.apps[ns]) root = this.state.apps[ns]!.vars;
    else throw new ScenarioError(`cannot write to "${ref}": no app or namespace "${ns}"`);
    let cur: Record<string, unknown> = root;
    for (const p of path.slice(0, -1)) {
      if (cur[p] === null || typeof cur[p] !== "object") cur[p] = {};
      cur = cur[p] as Record<string, unknown>;
    }
    cur[path.at(-1)!] = value;
    this.touch();
  }

  current(): { app: App; rt: AppRuntime; frame: Frame; screen: Screen } | null {
    const fg = this.state.foreground;
    if (!fg) return null;
    const app = this.appById(fg);
    const rt = this.state.apps[fg]!;
    const frame = rt.stack.at(-1);
    if (!frame) return null;
    const screen = app.screens.find((s) => s.id === frame.screen)!;
    return { app, rt, frame, screen };
  }

  /** package/activity of the focused window, as dumpsys reports it. */
  focusedWindow(): { package: string; activity: string } {
    if (this.system.usbPrompt) return USB_PROMPT_WINDOW;
    if (this.state.shade) return { package: "com.android.systemui", activity: "NotificationShade" };
    if (this.state.recentsOpen) return { package: LAUNCHER_PACKAGE, activity: LAUNCHER_ACTIVITY };
    const cur = this.current();
    if (!cur) return { package: LAUNCHER_PACKAGE, activity: LAUNCHER_ACTIVITY };
    const popup = cur.rt.popup ? cur.app.popups.find((p) => p.id === cur.rt.popup) : undefined;
    if (popup?.package) return { package: popup.package, activity: `${popup.package}.permission.ui.GrantPermissionsActivity` };
    return this.activityOf(cur.app, cur.screen);
  }

  resumedActivity(): { package: string; activity: string } {
    const cur = this.current();
    if (!cur) return { package: LAUNCHER_PACKAGE, activity: LAUNCHER_ACTIVITY };
    return this.activityOf(cur.app, cur.screen);
  }

  activityOf(app: App, screen?: Screen): { package: string; activity: string } {
    const a = screen?.activity ?? app.activity;
    return { package: app.package, activity: a.startsWith(".") ? app.package + a : a };
  }

  isLoading(): boolean {
    const cur = this.current();
    return !!cur && cur.frame.loadingUntil > this.clock.now();
  }

  /** The time the screen next changes by itself (loading ends, toast hides, a delayed popup shows), or null. */
  nextTimedChange(): number | null {
    this.#showDuePopups();
    const now = this.clock.now();
    const fg = this.state.foreground;
    const popups = this.state.pendingPopups.filter((p) => p.app === fg).map((p) => p.at);
    const times = [this.current()?.frame.loadingUntil ?? 0, this.state.toast?.until ?? 0, ...popups].filter((t) => t > now);
    return times.length ? Math.min(...times) : null;
  }

  /** Shows a delayed popup once its time has come and its app is in front (the first due one; the rest wait their turn). */
  #showDuePopups(): void {
    const fg = this.state.foreground;
    if (!fg || this.state.apps[fg]!.popup) return;
    const now = this.clock.now();
    const i = this.state.pendingPopups.findIndex((p) => p.app === fg && p.at <= now);
    if (i < 0) return;
    const [due] = this.state.pendingPopups.splice(i, 1);
    this.showPopup(due!.app, due!.popup);
  }

  // ---------------- layout ----------------
  layout(): ScreenLayout {
    this.#showDuePopups();
    const now = this.clock.now();
    const cur = this.current();
    const loading = !!cur && cur.frame.loadingUntil > now;
    const toast = this.state.toast && this.state.toast.until > now ? this.state.toast.text : undefined;
    const d = new Date(now);
    const locale = this.state.locale;
    // the status bar shows the locale's own clock without AM/PM: "9:41" in en-US, "09:41" where the day has 24 hours
    const h12 = new Intl.DateTimeFormat(locale, { hour: "numeric" }).resolvedOptions().hourCycle === "h12";
    const clock = new Intl.DateTimeFormat(locale, { hour: h12 ? "numeric" : "2-digit", minute: "2-digit", hourCycle: h12 ? "h12" : "h23", timeZone: "UTC" })
      .format(d)
      .replace(/\s?[AP]M$/i, "");
    const usb = this.system.usbPrompt;
    const key = `${this.#version}|${loading}|${toast ?? ""}|${clock}|${usb ? `${usb.fingerprint}:${usb.alwaysAllow}:${usb.scroll ?? 0}` : ""}|${this.battery}`;
    if (this.#layoutCache?.key === key) return this.#layoutCache.layout;
    const ime = String(this.state.settings.secure.default_input_method);
    const { width, height, density } = this.screen;
    const input: LayoutInput = {
      width,
      height,
      density,
      clock,
      fontScale: Math.min(2, Math.max(0.5, Number(this.state.settings.system.font_scale) || 1)),
      date: new Intl.DateTimeFormat(locale, { weekday: "long", month: "short", day: "numeric", timeZone: "UTC" }).format(d),
      battery: this.battery,
      screenOn: this.state.screenOn,
      launcherPackage: LAUNCHER_PACKAGE,
      launcher: this.scenario.apps.map((a) => ({ id: a.id, label: a.label, color: a.color, icon: a.icon, package: a.package })),
      keyboard: { shown: this.state.focus !== null && !!cur, label: ime === ADB_KEYBOARD_IME ? "ADB Keyboard {ON}" : keyboardLanguage(locale), adb: ime === ADB_KEYBOARD_IME },
      toast,
      usbPrompt: usb ?? undefined,
      recents: this.state.recentsOpen
        ? this.state.recents
            .filter((id) => (this.state.apps[id]?.stack.length ?? 0) > 0)
            .map((id) => this.appById(id))
            .map((a) => ({ id: a.id, label: a.label, color: a.color, icon: a.icon, package: a.package }))
        : undefined,
      shade: this.state.shade
        ? { wifi: this.state.settings.global.wifi_on === "1", bluetooth: this.state.settings.global.bluetooth_on === "1", airplane: this.state.settings.global.airplane_mode_on === "1" }
        : undefined,
    };
    if (cur && !this.state.recentsOpen) {
      input.app = { def: cur.app, screen: cur.screen, scroll: cur.frame.scroll, loading, focusedField: this.state.focus?.app === cur.app.id ? this.state.focus.field : null, scope: this.scope(cur.app.id) };
      const popup = cur.rt.popup ? cur.app.popups.find((p) => p.id === cur.rt.popup) : undefined;
      if (popup) input.popup = { def: popup, app: cur.app, scope: this.scope(cur.app.id) };
    }
    const layout = layoutScreen(input, this.measure);
    this.#layoutCache = { key, layout };
    return layout;
  }

  // ---------------- input ----------------
  /** True while a tap's handler runs: keys it presses are part of that one action. */
  #inTap = false;

  #inputAction(): void {
    if (this.#inTap) {
      this.touch();
      return;
    }
    this.state.actionCount++;
    const fg = this.state.foreground;
    if (fg) {
      this.state.apps[fg]!.actions++;
      this.#checkPopups(fg, "actions");
    }
    this.touch();
  }

  tap(x: number, y: number, long = false): void {
    this.#showDuePopups();
    if (!this.state.screenOn) {
      this.#inputAction();
      return;
    }
    const layout = this.layout();
    const handler = this.#hit(layout, x, y, long);
    if (handler) {
      this.#inTap = true;
      try {
        this.#handle(handler);
      } finally {
        this.#inTap = false;
      }
    }
    this.#inputAction();
  }

  #hit(layout: ScreenLayout, x: number, y: number, long: boolean): Handler | null {
    const t = touchTarget(layout, x, y, long);
    if (!t) return null;
    if ("outside" in t) return t.outside;
    return long && t.node.onLongPress ? t.node.onLongPress : t.node.onTap!;
  }


  #handle(h: Handler): void {
    const fg = this.state.foreground;
    switch (h.type) {
      case "actions":
        if (fg) this.run(h.actions, fg, h.item);
        return;
      case "focus":
        if (fg) this.state.focus = { app: fg, field: h.field, bind: this.#ref(h.bind, h.item), submit: h.submit, item: h.item };
        return;
      case "toggle": {
        if (!fg) return;
        const ref = this.#ref(h.bind, h.item);
        this.writeRef(ref, fg, truthy(this.#read(ref, fg)) ? this.#toggleOff(ref, fg) : this.#toggleOn(ref, fg));
        if (h.actions) this.run(h.actions, fg, h.item);
        return;
      }
      case "launch":
        this.launch(h.app);
        return;
      case "tab": {
        if (!fg) return;
        const rt = this.state.apps[fg]!;
        if (rt.stack.at(-1)?.screen === h.screen) return;
        this.state.focus = null;
        rt.stack = [];
        this.navigate(fg, h.screen);
        return;
      }
      case "system":
        if (h.key === "back") this.back();
        else if (h.key === "recents") this.key(187);
        else this.home();
        return;
      case "key":
        if (h.key === "DEL") this.deleteChar();
        else if (h.key === "ENTER") this.enter();
        else if (h.key !== "NOOP") this.typeText(h.key);
        return;
      case "wheel":
        if (fg) this.#stepWheel(this.#ref(h.bind, h.item), h.values, h.delta, fg);
        return;
      case "dismiss":
        this.dismissPopup();
        return;
      case "usb":
        this.system.onUsbPrompt?.(h.allow, this.system.usbPrompt?.alwaysAllow ?? false);
        return;
      case "usbAlwaysAllow":
        if (this.system.usbPrompt) this.system.usbPrompt.alwaysAllow = !this.system.usbPrompt.alwaysAllow;
        this.touch();
        return;
      case "quickSetting": {
        const g = this.state.settings.global;
        g[h.key] = g[h.key] === "1" ? "0" : "1";
        this.log(null, "setting", { key: h.key, value: g[h.key] });
        this.touch();
        return;
      }
      case "closeShade":
        this.setShade(false);
        return;
      case "clearRecents":
        for (const id of this.state.recents) this.forceStop(id);
        this.state.recents = [];
        this.state.recentsOpen = false;
        this.touch();
        return;
      case "block":
        return;
    }
  }

  // Settings stored as "1"/"0" strings toggle as strings; plain booleans stay booleans.
  #toggleOn(ref: string, app: string): unknown {
    return typeof this.readRef(...parseRef(ref, app)) === "string" ? "1" : true;
  }
  #toggleOff(ref: string, app: string): unknown {
    return typeof this.readRef(...parseRef(ref, app)) === "string" ? "0" : false;
  }

  #stepWheel(bind: string, values: string[], delta: number, app: string): void {
    if (values.length === 0 || delta === 0) return;
    const cur = stringify(this.readRef(...parseRef(bind, app)));
    const idx = Math.max(0, values.indexOf(cur));
    const n = values.length;
    this.writeRef(bind, app, values[(((idx + delta) % n) + n) % n]);
  }

  swipe(x1: number, y1: number, x2: number, y2: number, durationMs = 300): void {
    const dist = Math.hypot(x2 - x1, y2 - y1);
    if (dist < 16) {
      this.tap(x1, y1, durationMs >= 500);
      return;
    }
    const layout = this.layout();
    const dy = y1 - y2;
    const statusBar = Math.round((this.device.density / 160) * 24);
    if (!this.state.shade && y1 <= statusBar && y2 - y1 > statusBar * 2 && !this.system.usbPrompt) {
      this.setShade(true);
      this.#inputAction();
      return;
    }
    if (this.state.shade && dy > 0) {
      this.setShade(false);
      this.#inputAction();
      return;
    }
    if (Math.abs(y2 - y1) >= Math.abs(x2 - x1)) {
      for (const layer of layout.layers) {
        if (!contains(layer.area, x1, y1)) {
          if (layer.name === "popup" || layer.name === "usb") break;
          continue;
        }
        const wheel = hitTest(layer.root, x1, y1, "wheel");
        if (wheel?.wheel && this.state.foreground) {
          this.#stepWheel(this.#ref(wheel.wheel.bind, wheel.wheel.item), wheel.wheel.values, Math.round(dy / wheel.wheel.step), this.state.foreground);
          break;
        }
        const sc = hitTest(layer.root, x1, y1, "scroll");
        if (sc?.scroll?.key === "usb" && this.system.usbPrompt) {
          const p = this.system.usbPrompt;
          p.scroll = Math.max(0, Math.min(sc.scroll.max, Math.min(p.scroll ?? 0, sc.scroll.max) + dy));
          break;
        }
        if (sc?.scroll) {
          const cur = this.current();
          if (cur) {
            // a quick flick travels further than the finger, as on a phone
            const fling = durationMs < 200 ? 2 : 1;
            const before = Math.min(cur.frame.scroll[sc.scroll.key] ?? 0, sc.scroll.max);
            cur.frame.scroll[sc.scroll.key] = Math.max(0, Math.min(sc.scroll.max, before + dy * fling));
          }
          break;
        }
        if (layer.modal) break;
      }
    }
    this.#inputAction();
  }

  typeText(text: string): void {
    const f = this.state.focus;
    if (f && this.state.foreground === f.app) {
      const cur = stringify(this.readRef(...parseRef(f.bind, f.app)));
      this.writeRef(f.bind, f.app, cur + text);
    }
    this.#inputAction();
  }

  deleteChar(): void {
    const f = this.state.focus;
    if (f && this.state.foreground === f.app) {
      const cur = [...stringify(this.readRef(...parseRef(f.bind, f.app)))];
      cur.pop();
      this.writeRef(f.bind, f.app, cur.join(""));
    }
    this.#inputAction();
  }

  clearText(): void {
    const f = this.state.focus;
    if (f && this.state.foreground === f.app) this.writeRef(f.bind, f.app, "");
    this.touch();
  }

  enter(): void {
    const f = this.state.focus;
    if (f && this.state.foreground === f.app && f.submit) this.run(f.submit, f.app, f.item);
    this.#inputAction();
  }

  back(): void {
    this.#inputAction();
    if (this.state.recentsOpen) {
      this.state.recentsOpen = false;
      this.touch();
      return;
    }
    if (this.state.shade) {
      this.setShade(false);
      return;
    }
    if (this.state.focus) {
      this.state.focus = null; // the first back closes the keyboard
      return;
    }
    const cur = this.current();
    if (!cur) return;
    const up = cur.rt.popup ? cur.app.popups.find((q) => q.id === cur.rt.popup) : undefined;
    // back passes a heads-up notification by: it goes to the app under it
    if (cur.rt.popup && up?.style !== "notification") {
      if (up?.dismissOnBack) this.dismissPopup();
      return;
    }
    if (cur.screen.onBack) {
      this.run(cur.screen.onBack, cur.app.id);
      return;
    }
    this.#pop(cur.app.id);
  }

  #pop(appId: string): void {
    const rt = this.state.apps[appId]!;
    if (rt.stack.length > 1) rt.stack.pop();
    else {
      rt.stack = [];
      this.state.foreground = null;
    }
    this.touch();
  }

  home(): void {
    this.#inputAction();
    this.state.shade = false;
    this.state.recentsOpen = false;
    this.state.focus = null;
    this.state.foreground = null;
    this.touch();
  }

  key(code: number): boolean {
    switch (code) {
      case 3:
        this.home();
        return true;
      case 4:
      case 111:
        this.back();
        return true;
      case 66:
      case 160:
        this.enter();
        return true;
      case 67:
        this.deleteChar();
        return true;
      case 62:
        this.typeText(" ");
        return true;
      case 187:
        this.#inputAction();
        this.state.focus = null;
        this.state.shade = false;
        this.state.recentsOpen = !this.state.recentsOpen;
        this.touch();
        return true;
      case 26:
      case 223:
      case 224:
        this.state.screenOn = code === 224 ? true : code === 223 ? false : !this.state.screenOn;
        this.touch();
        return true;
      case 279:
        this.typeText(this.state.clipboard);
        return true;
      case 61: {
        this.#inputAction();
        return true;
      }
      default:
        if (code >= 29 && code <= 54) {
          this.typeText(String.fromCharCode(97 + code - 29));
          return true;
        }
        if (code >= 7 && code <= 16) {
          this.typeText(String(code - 7));
          return true;
        }
        this.#inputAction();
        return true;
    }
  }

  // ---------------- apps, screens, popups ----------------
  launch(appId: string, screen?: string, opts: { silent?: boolean } = {}): void {
    const app = this.appById(appId);
    const rt = this.state.apps[appId]!;
    this.state.focus = null;
    this.state.recentsOpen = false;
    this.state.shade = false;
    this.state.foreground = appId;
    this.state.recents = [appId, ...this.state.recents.filter((r) => r !== appId)];
    if (!opts.silent) this.log(appId, "open_app", {});
    if (rt.stack.length === 0 || screen) {
      if (screen) {
        if (!app.screens.some((s) => s.id === screen)) throw new ScenarioError(`app "${appId}" has no screen "${screen}"`);
        rt.stack = [];
      }
      this.navigate(appId, screen ?? app.start);
    }
    this.#checkPopups(appId, "appOpen");
    this.touch();
  }

  setShade(open: boolean): void {
    this.state.shade = open;
    this.touch();
  }

  forceStop(appId: string): void {
    const rt = this.state.apps[appId]!;
    rt.stack = [];
    rt.popup = null;
    if (this.state.focus?.app === appId) this.state.focus = null;
    if (this.state.foreground === appId) this.state.foreground = null;
    this.touch();
  }

  navigate(appId: string, screenId: string, replace = false): void {
    const app = this.appById(appId);
    const screen = app.screens.find((s) => s.id === screenId);
    if (!screen) throw new ScenarioError(`app "${appId}" has no screen "${screenId}"`);
    const rt = this.state.apps[appId]!;
    if (this.state.focus?.app === appId) this.state.focus = null;
    if (replace) rt.stack.pop();
    rt.stack.push({ screen: screenId, scroll: {}, loadingUntil: screen.loadingMs ? this.clock.now() + screen.loadingMs : 0 });
    this.log(appId, "screen", { screen: screenId });
    if (screen.onOpen) this.run(screen.onOpen, appId);
    this.#checkPopups(appId, "screen", screenId);
    this.touch();
  }

  showPopup(appId: string, popupId: string): void {
    const app = this.appById(appId);
    if (!app.popups.some((p) => p.id === popupId)) throw new ScenarioError(`app "${appId}" has no popup "${popupId}"`);
    this.state.apps[appId]!.popup = popupId;
    const frame = this.state.apps[appId]!.stack.at(-1);
    if (frame) delete frame.scroll.popup; // a new dialog opens scrolled to its top
    this.state.pendingPopups = this.state.pendingPopups.filter((p) => !(p.app === appId && p.popup === popupId));
    this.state.shownPopups.push(`${appId}/${popupId}`);
    this.state.focus = null;
    this.log(appId, "popup", { popup: popupId, kind: app.popups.find((p) => p.id === popupId)!.kind });
    this.touch();
  }

  dismissPopup(): void {
    const fg = this.state.foreground;
    if (!fg) return;
    const rt = this.state.apps[fg]!;
    if (rt.popup) this.log(fg, "popup_dismissed", { popup: rt.popup });
    rt.popup = null;
    this.touch();
  }

  #checkPopups(appId: string, on: "appOpen" | "actions" | "screen", screen?: string): void {
    const app = this.appById(appId);
    const rt = this.state.apps[appId]!;
    if (rt.popup) return;
    for (const p of app.popups) {
      const t = p.trigger;
      if (!t || t.on !== on) continue;
      if (t.screen && t.screen !== (screen ?? rt.stack.at(-1)?.screen)) continue;
      if (on === "actions" && rt.actions < (t.after ?? 1)) continue;
      if (on === "screen" && !t.screen) continue;
      const key = `${appId}/${p.id}`;
      if ((t.once ?? true) && this.state.shownPopups.includes(key)) continue;
      if (this.state.pendingPopups.some((q) => q.app === appId && q.popup === p.id)) continue;
      if (t.unless && evaluatePredicate(t.unless, this.scope(appId))) continue;
      if (t.probability !== undefined && t.probability < 1) {
        const n = (this.state.draws[key] = (this.state.draws[key] ?? 0) + 1);
        if (seededRandom(this.state.seed, key, n) >= t.probability) continue;
      }
      if (t.delayMs) {
        this.state.pendingPopups.push({ app: appId, popup: p.id, at: this.clock.now() + t.delayMs });
        continue;
      }
      this.showPopup(appId, p.id);
      return;
    }
  }

  /** Told of each log entry as it is written (logcat streams them). */
  onLog: ((entry: LogEntry) => void) | null = null;

  log(app: string | null, event: string, data: Record<string, unknown>): void {
    const entry: LogEntry = { t: this.clock.now(), app, event, ...data };
    this.state.log.push(entry);
    this.onLog?.(entry);
    if (this.state.log.length > 2000) this.state.log.splice(0, this.state.log.length - 2000);
  }

  /** Opens a URI the way `am start -a VIEW -d` does; false when no app handles it. */
  openUrl(uri: string): boolean {
    for (const app of this.scenario.apps) {
      for (const dl of app.deeplinks) {
        const captured = matchDeeplink(dl.pattern, uri);
        if (!captured) continue;
        const rt = this.state.apps[app.id]!;
        for (const [k, v] of Object.entries(dl.set ?? {})) this.writeRef(k, app.id, resolveJson(v, this.scope(app.id, { params: captured, readRef: (ns, path) => (ns === app.id && path.length === 1 && path[0]! in captured ? captured[path[0]!] : this.readRef(ns, path)) })));
        this.log(app.id, "deeplink", { uri });
        if (rt.stack.length === 0) {
          this.state.foreground = app.id;
          this.navigate(app.id, app.start);
        }
        this.state.foreground = app.id;
        this.state.focus = null;
        if (rt.stack.at(-1)?.screen !== dl.screen) this.navigate(app.id, dl.screen);
        this.#checkPopups(app.id, "appOpen");
        this.touch();
        return true;
      }
    }
    return false;
  }

  /** Runs scenario actions in the context of an app (and a list item, when tapped inside a list). */
  run(actions: Action[], appId: string, item?: unknown, params?: Record<string, unknown>): void {
    for (const a of actions) {
      const scope = this.scope(appId, { item, params });
      switch (a.do) {
        case "navigate":
          for (const [k, v] of Object.entries(a.params ?? {})) this.writeRef(k, appId, resolveJson(v, scope));
          this.navigate(appId, a.screen, a.replace);
          break;
        case "back":
          this.#pop(appId);
          break;
        case "home":
          this.state.foreground = null;
          this.state.focus = null;
          break;
        case "set": {
          const v = a.value !== null && typeof a.value === "object" && !Array.isArray(a.value) && "from" in a.value && Object.keys(a.value).length === 1 ? readOperand((a.value as { from: never }).from, scope) : resolveJson(a.value as Json, scope);
          this.writeRef(this.#ref(a.var, item), appId, structuredClone(v ?? null));
          break;
        }
        case "append": {
          const ref = this.#ref(a.var, item);
          const cur = this.#read(ref, appId);
          const arr = Array.isArray(cur) ? [...cur] : [];
          arr.push(resolveJson(a.value, scope));
          this.writeRef(ref, appId, arr);
          break;
        }
        case "remove": {
          const ref = this.#ref(a.var, item);
          const cur = this.#read(ref, appId);
          if (!Array.isArray(cur)) break;
          const at = a.at !== undefined ? Number(resolveJson(a.at, scope)) : NaN;
          this.writeRef(ref, appId, cur.filter((it, i) => (a.at !== undefined ? i !== at : a.where ? !evaluatePredicate(a.where, { ...scope, item: it }) : true)));
          break;
        }
        case "toggle": {
          const ref = this.#ref(a.var, item);
          this.writeRef(ref, appId, truthy(this.#read(ref, appId)) ? this.#toggleOff(ref, appId) : this.#toggleOn(ref, appId));
          break;
        }
        case "increment": {
          const ref = this.#ref(a.var, item);
          this.writeRef(ref, appId, Number(this.#read(ref, appId) ?? 0) + (a.by ?? 1));
          break;
        }
        case "openApp":
          this.launch(a.app, a.screen);
          return; // the rest belongs to the app that lost focus
        case "openUrl":
          this.openUrl(resolveJson(a.url, scope) as string);
          return;
        case "showPopup":
          this.showPopup(appId, a.popup);
          break;
        case "dismiss":
          this.state.apps[appId]!.popup = null;
          this.log(appId, "popup_dismissed", {});
          break;
        case "toast":
          this.state.toast = { text: resolveJson(a.text, scope) as string, until: this.clock.now() + 2000 };
          break;
        case "focus": {
          const field = this.#findField(appId, a.field);
          if (field) this.state.focus = { app: appId, field: a.field, bind: field.bind, submit: field.submit };
          break;
        }
        case "loading": {
          const frame = this.state.apps[appId]!.stack.at(-1);
          if (frame) frame.loadingUntil = this.clock.now() + a.ms;
          break;
        }
        case "log":
          this.log(appId, a.event, (resolveJson((a.data ?? {}) as Json, scope) ?? {}) as Record<string, unknown>);
          break;
        case "if":
          this.run(evaluatePredicate(a.cond, scope) ? a.then : a.else ?? [], appId, item, params);
          break;
      }
    }
    this.touch();
  }

  #findField(appId: string, id: string): { bind: string; submit?: Action[] } | null {
    const rt = this.state.apps[appId]!;
    const screen = this.appById(appId).screens.find((s) => s.id === rt.stack.at(-1)?.screen);
    if (!screen) return null;
    if (screen.appBar?.search?.id === id) return { bind: screen.appBar.search.bind, submit: screen.appBar.search.onSubmit };
    const walk = (els: typeof screen.body): { bind: string; submit?: Action[] } | null => {
      for (const e of els) {
        if (e.type === "input" && e.id === id) return { bind: e.bind ?? e.id, submit: e.onSubmit };
        const inner = walk([...(e.children ?? []), ...(e.items ?? [])]);
        if (inner) return inner;
      }
      return null;
    };
    return walk(screen.body);
  }

  popupDef(appId: string, id: string): Popup | undefined {
    return this.apps.get(appId)?.popups.find((p) => p.id === id);
  }
}

/** "loop://search?q={query}" against "loop://search?q=mobile%20AI" → { query: "mobile AI" }. */
export function matchDeeplink(pattern: string, uri: string): Record<string, string> | null {
  const names: string[] = [];
  const [pPath, pQuery] = pattern.split("?") as [string, string | undefined];
  const [uPath, uQuery] = uri.split("?") as [string, string | undefined];
  const re = new RegExp("^" + pPath.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{(\w+)\\?\}|\{(\w+)\}/g, (_m, a: string, b: string) => (names.push(a ?? b), "([^/?#]+)")) + "/?$");
  const m = re.exec(uPath);
  if (!m) return null;
  const out: Record<string, string> = {};
  names.forEach((n, i) => (out[n] = decodeURIComponent(m[i + 1]!.replace(/\+/g, " "))));
  if (pQuery) {
    const uParams = new URLSearchParams(uQuery ?? "");
    for (const [k, v] of new URLSearchParams(pQuery)) {
      const got = uParams.get(k);
      const slot = /^\{(\w+)\}$/.exec(v);
      if (slot) {
        if (got === null) return null;
        out[slot[1]!] = got;
      } else if (got !== v) return null;
    }
  }
  return out;
}
