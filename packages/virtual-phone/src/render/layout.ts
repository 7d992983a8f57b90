// Lays out a screen: turns the scenario's screen + state into a view tree and paint ops. Pure: no canvas, no I/O.
import type { App, Element, Popup, Screen } from "../scenario/schema.ts";
import { evaluatePredicate, interpolate, parseRef, readOperand, ROW_REF, stringify, truthy, type ValueScope } from "../scenario/values.ts";
import { intersect, node, type Handler, type Layer, type PaintOp, type Rect, type ScreenLayout, type ViewNode } from "./view.ts";

export type Measure = (text: string, sizePx: number, bold?: boolean) => number;

export interface LauncherApp {
  id: string;
  label: string;
  color: string;
  icon: string;
  package: string;
}

export interface LayoutInput {
  width: number;
  height: number;
  density: number;
  /** Settings > Display > Font size (system font_scale); scales text, not layout. */
  fontScale?: number;
  clock: string;
  /** e.g. "Sunday, Nov 29" for the launcher's date widget */
  date: string;
  battery: number;
  screenOn: boolean;
  launcher: LauncherApp[];
  launcherPackage: string;
  app?: {
    def: App;
    screen: Screen;
    scroll: Record<string, number>;
    loading: boolean;
    focusedField: string | null;
    scope: ValueScope;
  };
  popup?: { def: Popup; app: App; scope: ValueScope };
  keyboard: { shown: boolean; label: string; adb?: boolean };
  toast?: string;
  usbPrompt?: { fingerprint: string; alwaysAllow: boolean; scroll?: number };
  /** The overview (recent apps), most recent first; shown instead of the app when set. */
  recents?: LauncherApp[];
  /** The pulled-down notification shade with quick settings. */
  shade?: { wifi: boolean; bluetooth: boolean; airplane: boolean };
}

const C = {
  bg: "#ffffff",
  text: "#1c1b1f",
  sub: "#5f6368",
  hint: "#9aa0a6",
  divider: "#e0e0e0",
  skeleton: "#e8eaed",
  chip: "#eef1f6",
  keyboardBg: "#e8eaed",
  key: "#ffffff",
  keyDark: "#c7ccd3",
  navBar: "#f8f9fa",
};

/** System UI colours (Android 14's Material You defaults): system dialogs never take an app's colours. */
const SYS = {
  surface: "#eef2f9",
  title: "#1f1f1f",
  body: "#444746",
  accent: "#0b57d0",
  tonal: "#d3e3fd",
  onTonal: "#041e49",
};

/** How a dialog button is drawn; "tonal" is the system dialogs' own default. */
type ButtonStyle = "filled" | "outlined" | "text" | "danger" | "tonal";

/** Android's minimum touch target for anything tappable. */
const MIN_TOUCH_DP = 48;

/** A text measurer for tests and for layouts without a canvas: ~0.55em Latin, 1em CJK. */
export const approxMeasure: Measure = (text, size) => {
  let w = 0;
  for (const ch of text) w += /[\u2e80-\uffff]/.test(ch) ? size : size * 0.55;
  return w;
};

export function wrapText(text: string, maxW: number, size: number, measure: Measure, bold = false, maxLines = 50): string[] {
  const out: string[] = [];
  for (const para of text.split("\n")) {
    // tokens: latin words keep together, CJK characters break anywhere
    const tokens = para.match(/[\u2e80-\uffff]|[^\s\u2e80-\uffff]+|\s+/g) ?? [""];
    let line = "";
    for (const tok of tokens) {
      const candidate = line + tok;
      if (line && measure(candidate.trimEnd(), size, bold) > maxW) {
        out.push(line.trimEnd());
        line = /^\s+$/.test(tok) ? "" : tok;
        // a single word wider than the line: hard-break it
        while (measure(line, size, bold) > maxW && line.length > 1) {
          let k = line.length - 1;
          while (k > 1 && measure(line.slice(0, k), size, bold) > maxW) k--;
          out.push(line.slice(0, k));
          line = line.slice(k);
        }
      } else line = candidate;
    }
    out.push(line.trimEnd());
  }
  if (out.length > maxLines) {
    const cut = out.slice(0, maxLines);
    cut[maxLines - 1] = cut[maxLines - 1]!.replace(/.$/, "…");
    return cut;
  }
  return out;
}

export function layoutScreen(input: LayoutInput, measure: Measure): ScreenLayout {
  const L = new Layouter(input, measure);
  return L.run();
}

class Layouter {
  readonly ops: PaintOp[] = [];
  readonly layers: Layer[] = [];
  readonly W: number;
  readonly H: number;
  readonly d: number;
  constructor(
    readonly input: LayoutInput,
    readonly measure: Measure,
  ) {
    this.W = input.width;
    this.H = input.height;
    this.d = input.density / 160;
  }

  dp(n: number): number {
    return Math.round(n * this.d);
  }
  sp(n: number): number {
    return n * this.d * (this.input.fontScale ?? 1);
  }

  run(): ScreenLayout {
    const { W, H } = this;
    if (!this.input.screenOn) {
      this.ops.push({ op: "rect", x: 0, y: 0, w: W, h: H, fill: "#000000" });
      const root = node({ cls: "android.widget.FrameLayout", pkg: "com.android.systemui", bounds: [0, 0, W, H] });
      return { width: W, height: H, ops: this.ops, layers: [{ name: "off", area: [0, 0, W, H], root, modal: true, outside: { type: "block" } }], dumpRoot: root };
    }
    const statusH = this.dp(24);
    const navH = this.dp(48);
    // ADBKeyboard draws only a thin "ADB Keyboard {ON}" bar; the stock keyboard is a full QWERTY panel
    // in landscape the keyboard takes at most 60% of what is left between the bars, as Gboard does
    const kbH = !this.input.keyboard.shown ? 0 : this.input.keyboard.adb ? this.dp(44) : Math.min(this.dp(300), Math.round((H - statusH - navH) * 0.6));
    const appArea: Rect = [0, 0, W, H - navH];
    let dumpRoot: ViewNode;
    if (this.input.recents) dumpRoot = this.recents(appArea, statusH);
    else if (this.input.app) dumpRoot = this.appWindow(appArea, statusH, kbH);
    else dumpRoot = this.launcher(appArea, statusH);
    this.layers.push({ name: "app", area: appArea, root: dumpRoot, modal: false });
    // a heads-up notification sits over the app's window (which keeps the focus); any other popup takes the screen
    if (this.input.popup?.def.style === "notification") dumpRoot.children.push(this.notification(statusH));
    else if (this.input.popup) dumpRoot = this.popup(statusH, navH);
    if (this.input.usbPrompt) dumpRoot = this.usbPrompt(statusH, navH);
    if (kbH) this.keyboard(H - navH - kbH, kbH);
    if (this.input.shade) dumpRoot = this.shade(navH);
    this.statusBar(statusH);
    this.navBar(navH);
    if (this.input.toast) this.toast(H - navH - kbH - this.dp(72));
    return { width: W, height: H, ops: this.ops, layers: this.layers.reverse(), dumpRoot };
  }

  // ---------- system chrome ----------
  statusBar(h: number): void {
    const { W } = this;
    const dark = (!this.input.app && !this.input.popup) || !!this.input.shade;
    const fg = dark ? "#ffffff" : C.text;
    if (this.input.shade) this.ops.push({ op: "rect", x: 0, y: 0, w: W, h, fill: "#1f1f24" });
    else if (this.input.app) this.ops.push({ op: "rect", x: 0, y: 0, w: W, h, fill: "#f3f4f6" });
    this.ops.push({ op: "text", x: this.dp(16), y: h - this.dp(7), text: this.input.clock, size: this.sp(13), color: fg, bold: true });
    const right = W - this.dp(16);
    this.ops.push({ op: "icon", name: "battery", cx: right - this.dp(10), cy: h / 2, size: this.dp(14), color: fg });
    this.ops.push({ op: "text", x: right - this.dp(22), y: h - this.dp(7), text: `${this.input.battery}%`, size: this.sp(11), color: fg, align: "right" });
    this.ops.push({ op: "icon", name: "signal", cx: right - this.dp(62), cy: h / 2, size: this.dp(13), color: fg });
    this.ops.push({ op: "icon", name: "wifi", cx: right - this.dp(80), cy: h / 2, size: this.dp(14), color: fg });
  }

  navBar(h: number): void {
    const { W, H } = this;
    const top = H - h;
    this.ops.push({ op: "rect", x: 0, y: top, w: W, h, fill: this.input.app ? C.navBar : "#00000000" });
    const keys: ["back" | "home" | "recents", number][] = [
      ["back", W * 0.25],
      ["home", W * 0.5],
      ["recents", W * 0.75],
    ];
    const root = node({ cls: "android.widget.FrameLayout", pkg: "com.android.systemui", bounds: [0, top, W, H] });
    for (const [key, cx] of keys) {
      const fg = this.input.app ? "#3c4043" : "#ffffff";
      this.ops.push({ op: "icon", name: `nav_${key}`, cx, cy: top + h / 2, size: this.dp(18), color: fg });
      root.children.push(
        node({ cls: "android.widget.ImageView", pkg: "com.android.systemui", bounds: [Math.round(cx - this.dp(40)), top, Math.round(cx + this.dp(40)), this.H], desc: key === "back" ? "Back" : key === "home" ? "Home" : "Overview", clickable: true, onTap: { type: "system", key } }),
      );
    }
    this.layers.push({ name: "navbar", area: [0, top, W, H], root, modal: true, outside: { type: "block" } });
  }

  toast(bottom: number): void {
    const text = this.input.toast!;
    const size = this.sp(14);
    const w = Math.min(this.W - this.dp(64), this.measure(text, size) + this.dp(32));
    const h = this.dp(40);
    const x = (this.W - w) / 2;
    this.ops.push({ op: "rect", x, y: bottom - h, w, h, fill: "#323232", r: h / 2 });
    this.ops.push({ op: "text", x: this.W / 2, y: bottom - h / 2 + size * 0.35, text, size, color: "#ffffff", align: "center" });
  }

  // ---------- launcher ----------
  launcher(area: Rect, statusH: number): ViewNode {
    const pkg = this.input.launcherPackage;
    const { W } = this;
    this.ops.push({ op: "gradient", x: 0, y: 0, w: W, h: this.H, from: "#3949ab", to: "#00897b" });
    const root = node({ cls: "android.widget.FrameLayout", pkg, bounds: [0, 0, W, this.H] });
    const workspace = node({ cls: "android.view.ViewGroup", pkg, bounds: [0, statusH, W, area[3]], resId: `${pkg}:id/workspace` });
    root.children.push(workspace);
    const cols = Math.max(4, Math.floor(W / this.dp(100)));
    const cellW = Math.floor(W / cols);
    const cellH = this.dp(104);
    const top = statusH + this.dp(56);
    // a date widget above the grid, like a stock launcher
    this.ops.push({ op: "text", x: this.dp(24), y: statusH + this.dp(40), text: this.input.date, size: this.sp(22), color: "#ffffff" });
    this.input.launcher.forEach((app, i) => {
      const cx = (i % cols) * cellW + cellW / 2;
      const y = top + Math.floor(i / cols) * cellH;
      const r = this.dp(28);
      this.ops.push({ op: "circle", cx, cy: y + this.dp(12) + r, r, fill: app.color });
      this.ops.push({ op: "text", x: cx, y: y + this.dp(12) + r + this.sp(8), text: app.icon, size: this.sp(24), color: "#ffffff", align: "center" });
      this.ops.push({ op: "text", x: cx, y: y + this.dp(88), text: app.label, size: this.sp(12), color: "#ffffff", align: "center" });
      workspace.children.push(
        node({ cls: "android.widget.TextView", pkg, text: app.label, desc: app.label, bounds: [Math.round(cx - cellW / 2), y, Math.round(cx + cellW / 2), y + cellH], clickable: true, longClickable: true, focusable: true, onTap: { type: "launch", app: app.id } }),
      );
    });
    // search pill in the dock
    const sy = area[3] - this.dp(72);
    this.ops.push({ op: "rect", x: this.dp(24), y: sy, w: W - this.dp(48), h: this.dp(52), fill: "#ffffff", r: this.dp(26) });
    this.ops.push({ op: "icon", name: "search", cx: this.dp(52), cy: sy + this.dp(26), size: this.dp(20), color: C.sub });
    this.ops.push({ op: "text", x: this.dp(76), y: sy + this.dp(32), text: "Search", size: this.sp(16), color: C.sub });
    return root;
  }

  // ---------- overview (recent apps) ----------
  recents(area: Rect, statusH: number): ViewNode {
    const pkg = this.input.launcherPackage;
    const { W } = this;
    const d = (n: number) => this.dp(n);
    this.ops.push({ op: "rect", x: 0, y: 0, w: W, h: this.H, fill: "#2b2d31" });
    const root = node({ cls: "android.widget.FrameLayout", pkg, bounds: [0, 0, W, this.H] });
    const list = node({ cls: "android.widget.ScrollView", pkg, resId: `${pkg}:id/overview_panel`, bounds: [0, statusH, W, area[3]] });
    root.children.push(list);
    const apps = this.input.recents!;
    if (apps.length === 0) {
      this.ops.push({ op: "text", x: W / 2, y: (statusH + area[3]) / 2, text: "No recent items", size: this.sp(16), color: "#e3e3e3", align: "center" });
      list.children.push(node({ cls: "android.widget.TextView", pkg, text: "No recent items", bounds: [Math.round(W / 2 - d(80)), Math.round((statusH + area[3]) / 2 - d(20)), Math.round(W / 2 + d(80)), Math.round((statusH + area[3]) / 2 + d(6))] }));
    }
    let y = statusH + d(24);
    const cardH = d(120);
    for (const app of apps.slice(0, 6)) {
      const x = d(24);
      const w = W - d(48);
      this.ops.push({ op: "rect", x, y, w, h: cardH, fill: "#ffffff", r: d(24) });
      this.ops.push({ op: "circle", cx: x + d(40), cy: y + cardH / 2, r: d(22), fill: app.color });
      this.ops.push({ op: "text", x: x + d(40), y: y + cardH / 2 + this.sp(18) * 0.36, text: app.icon, size: this.sp(18), color: "#ffffff", align: "center" });
      this.ops.push({ op: "text", x: x + d(76), y: y + cardH / 2 + this.sp(18) * 0.36, text: app.label, size: this.sp(18), color: C.text, bold: true });
      list.children.push(node({ cls: "android.widget.FrameLayout", pkg, resId: `${pkg}:id/snapshot`, desc: app.label, bounds: [x, y, x + w, y + cardH], clickable: true, focusable: true, onTap: { type: "launch", app: app.id } }));
      y += cardH + d(16);
    }
    if (apps.length) {
      const bw = d(120);
      const by = area[3] - d(72);
      this.ops.push({ op: "rect", x: (W - bw) / 2, y: by, w: bw, h: d(44), fill: "#44474f", r: d(22) });
      this.ops.push({ op: "text", x: W / 2, y: by + d(22) + this.sp(14) * 0.36, text: "Clear all", size: this.sp(14), color: "#ffffff", align: "center", bold: true });
      root.children.push(node({ cls: "android.widget.Button", pkg, resId: `${pkg}:id/clear_all`, text: "Clear all", bounds: [Math.round((W - bw) / 2), by, Math.round((W + bw) / 2), by + d(44)], clickable: true, focusable: true, onTap: { type: "clearRecents" } }));
    }
    return root;
  }

  // ---------- app window ----------
  appWindow(area: Rect, statusH: number, kbH: number): ViewNode {
    const a = this.input.app!;
    const pkg = a.def.package;
    const { W } = this;
    const bg = a.screen.background ?? C.bg;
    this.ops.push({ op: "rect", x: 0, y: 0, w: W, h: area[3], fill: bg });
    const root = node({ cls: "android.widget.FrameLayout", pkg, bounds: [0, 0, W, area[3]] });
    const content = node({ cls: "android.widget.LinearLayout", pkg, bounds: [0, statusH, W, area[3]], resId: "android:id/content" });
    root.children.push(content);
    let top = statusH;
    if (a.screen.appBar) top = this.appBar(content, top, a.def, a.screen);
    let bottom = area[3] - kbH;
    let nav: ViewNode | null = null;
    if (a.screen.bottomNav && !kbH) {
      const h = this.dp(80);
      bottom -= h;
      nav = this.bottomNav(bottom, h, a.def, a.screen);
    }
    const viewport: Rect = [0, top, W, bottom];
    const body = this.body(viewport, a.screen.body, a, pkg);
    content.children.push(body);
    if (nav) content.children.push(nav);
    if (a.screen.fab && !a.loading) {
      const f = a.screen.fab;
      const s = this.dp(56);
      const x = W - this.dp(16) - s;
      const y = bottom - this.dp(16) - s;
      this.ops.push({ op: "rect", x, y: y + 3, w: s, h: s, fill: "#00000022", r: this.dp(16) });
      this.ops.push({ op: "rect", x, y, w: s, h: s, fill: a.def.color, r: this.dp(16) });
      this.ops.push({ op: "icon", name: f.icon, cx: x + s / 2, cy: y + s / 2, size: this.dp(24), color: "#ffffff" });
      content.children.push(node({ cls: "android.widget.ImageButton", pkg, resId: `${pkg}:id/${f.id}`, desc: f.desc, bounds: [x, y, x + s, y + s], clickable: true, focusable: true, overlay: true, onTap: { type: "actions", actions: f.onTap } }));
    }
    return root;
  }

  appBar(parent: ViewNode, top: number, app: App, screen: Screen): number {
    const bar = screen.appBar!;
    const pkg = app.package;
    const { W } = this;
    const h = this.dp(64);
    const scope = this.input.app!.scope;
    this.ops.push({ op: "rect", x: 0, y: top, w: W, h, fill: "#ffffff" });
    this.ops.push({ op: "line", x1: 0, y1: top + h - 1, x2: W, y2: top + h - 1, color: C.divider, lw: 1 });
    const group = node({ cls: "android.view.ViewGroup", pkg, resId: `${pkg}:id/toolbar`, bounds: [0, top, W, top + h] });
    parent.children.push(group);
    let x = this.dp(16);
    const cy = top + h / 2;
    if (bar.back) {
      this.ops.push({ op: "icon", name: "arrow_back", cx: this.dp(28), cy, size: this.dp(24), color: C.text });
      group.children.push(node({ cls: "android.widget.ImageButton", pkg, desc: "Navigate up", bounds: [0, top, this.dp(56), top + h], clickable: true, focusable: true, onTap: { type: "system", key: "back" } }));
      x = this.dp(64);
    }
    let right = W - this.dp(4);
    const actions = bar.actions ?? [];
    for (let i = actions.length - 1; i >= 0; i--) {
      const act = actions[i]!;
      const bx = right - this.dp(48);
      this.ops.push({ op: "icon", name: act.icon, cx: bx + this.dp(24), cy, size: this.dp(24), color: C.text });
      group.children.push(node({ cls: "android.widget.ImageButton", pkg, resId: `${pkg}:id/${act.id}`, desc: act.desc, bounds: [bx, top, right, top + h], clickable: true, focusable: true, onTap: { type: "actions", actions: act.onTap } }));
      right = bx;
    }
    if (bar.search) {
      const s = bar.search;
      const fx = x;
      const fw = right - x - this.dp(8);
      const fh = this.dp(44);
      const fy = cy - fh / 2;
      const focused = this.input.app!.focusedField === s.id;
      const value = stringify(readOperand({ var: s.bind }, scope));
      this.ops.push({ op: "rect", x: fx, y: fy, w: fw, h: fh, fill: "#f1f3f4", r: fh / 2, stroke: focused ? app.color : undefined, lw: focused ? this.dp(2) : undefined });
      this.ops.push({ op: "icon", name: "search", cx: fx + this.dp(22), cy, size: this.dp(18), color: C.sub });
      const tx = fx + this.dp(40);
      const size = this.sp(16);
      const shown = value || s.hint;
      this.ops.push({ op: "text", x: tx, y: cy + size * 0.35, text: this.fit(shown, fw - this.dp(56), size), size, color: value ? C.text : C.hint });
      if (focused) this.cursor(tx + (value ? this.measure(this.fit(value, fw - this.dp(56), size), size) : 0), cy, size);
      group.children.push(
        node({ cls: "android.widget.EditText", pkg, resId: `${pkg}:id/${s.id}`, text: shown, bounds: [fx, fy, fx + fw, fy + fh], clickable: true, focusable: true, focused, longClickable: true, onTap: { type: "focus", field: s.id, bind: s.bind, submit: s.onSubmit } }),
      );
    } else if (bar.title) {
      const size = this.sp(20);
      const title = interpolate(bar.title, scope);
      this.ops.push({ op: "text", x, y: cy + size * 0.35, text: this.fit(title, right - x, size, true), size, color: C.text, bold: true });
      group.children.push(node({ cls: "android.widget.TextView", pkg, text: title, bounds: [x, Math.round(cy - size * 0.7), Math.round(Math.min(right, x + this.measure(title, size, true))), Math.round(cy + size * 0.7)] }));
    }
    group.children.sort((a, b) => a.bounds[0] - b.bounds[0]); // views appear in layout order, left to right
    return top + h;
  }

  bottomNav(top: number, h: number, app: App, screen: Screen): ViewNode {
    const pkg = app.package;
    const items = screen.bottomNav!;
    const { W } = this;
    this.ops.push({ op: "rect", x: 0, y: top, w: W, h, fill: "#f7f7fb" });
    this.ops.push({ op: "line", x1: 0, y1: top, x2: W, y2: top, color: C.divider, lw: 1 });
    const group = node({ cls: "android.widget.FrameLayout", pkg, resId: `${pkg}:id/bottom_navigation`, bounds: [0, top, W, top + h] });
    const w = W / items.length;
    items.forEach((it, i) => {
      const x = Math.round(i * w);
      const selected = it.screen === screen.id;
      const cx = x + w / 2;
      if (selected) this.ops.push({ op: "rect", x: cx - this.dp(32), y: top + this.dp(12), w: this.dp(64), h: this.dp(32), fill: this.tint(app.color), r: this.dp(16) });
      this.ops.push({ op: "icon", name: it.icon, cx, cy: top + this.dp(28), size: this.dp(22), color: selected ? app.color : C.sub });
      this.ops.push({ op: "text", x: cx, y: top + this.dp(64), text: it.text, size: this.sp(12), color: selected ? C.text : C.sub, align: "center", bold: selected });
      const item = node({ cls: "android.widget.FrameLayout", pkg, resId: `${pkg}:id/${it.id}`, desc: it.text, bounds: [x, top, Math.round(x + w), top + h], clickable: true, focusable: true, selected, onTap: { type: "tab", screen: it.screen } });
      item.children.push(node({ cls: "android.widget.TextView", pkg, resId: `${pkg}:id/navigation_bar_item_large_label_view`, text: it.text, selected, bounds: [Math.round(cx - w / 2 + this.dp(8)), top + this.dp(50), Math.round(cx + w / 2 - this.dp(8)), top + this.dp(70)] }));
      group.children.push(item);
    });
    return group;
  }

  /** The scrolling body. Everything flows top to bottom; absolute-bounds elements stay put. */
  body(viewport: Rect, elements: Element[], a: NonNullable<LayoutInput["app"]>, pkg: string): ViewNode {
    const scrollKey = "body";
    const offset = a.scroll[scrollKey] ?? 0;
    const container = node({ cls: "android.widget.FrameLayout", pkg, bounds: viewport, resId: `${pkg}:id/content_frame` });
    if (a.loading) {
      this.skeleton(viewport, container, pkg);
      return container;
    }
    // First pass: measure content height with scroll 0, then lay out for real at the clamped offset.
    const probe = new Layouter(this.input, this.measure);
    const contentH = probe.flow(elements, viewport[1], a.scope, pkg).height;
    const viewH = viewport[3] - viewport[1];
    // with a floating action button the content can scroll clear of it (88 dp of bottom padding, as Material lists add)
    const fabRoom = a.screen.fab ? this.dp(88) : this.dp(16);
    const max = Math.max(0, contentH - viewH + fabRoom);
    const scroll = Math.min(Math.max(0, offset), max);
    const list = max > 0;
    const scroller = list
      ? node({ cls: elements.some((e) => e.type === "list") ? "androidx.recyclerview.widget.RecyclerView" : "android.widget.ScrollView", pkg, resId: `${pkg}:id/${elements.find((e) => e.type === "list")?.id ?? "scroll_view"}`, bounds: viewport, scrollable: true, focusable: true, scroll: { key: scrollKey, max } })
      : container;
    if (list) container.children.push(scroller);
    this.ops.push({ op: "clip", x: viewport[0], y: viewport[1], w: viewport[2] - viewport[0], h: viewport[3] - viewport[1] });
    const flowed = this.flow(elements, viewport[1] - scroll, a.scope, pkg);
    this.ops.push({ op: "unclip" });
    for (const n of flowed.nodes) {
      const clipped = clipTree(n, viewport);
      if (clipped) scroller.children.push(clipped);
    }
    if (list && scroll < max) {
      // a hint of more content: the scrollbar thumb
      const thumbH = Math.max(this.dp(32), (viewH * viewH) / contentH);
      const ty = viewport[1] + ((viewH - thumbH) * scroll) / max;
      this.ops.push({ op: "rect", x: this.W - this.dp(5), y: ty, w: this.dp(3), h: thumbH, fill: "#00000033", r: this.dp(2) });
    }
    return container;
  }

  skeleton(viewport: Rect, parent: ViewNode, pkg: string): void {
    const { W } = this;
    const pb = this.dp(36);
    const cx = W / 2;
    const top = viewport[1] + this.dp(16);
    this.ops.push({ op: "circle", cx, cy: top + pb / 2, r: pb / 2 - this.dp(3), stroke: "#c4c7c5", lw: this.dp(4) });
    this.ops.push({ op: "line", x1: cx, y1: top + this.dp(3), x2: cx + pb / 2 - this.dp(3), y2: top + pb / 2, color: this.input.app!.def.color, lw: this.dp(4) });
    parent.children.push(node({ cls: "android.widget.ProgressBar", pkg, resId: `${pkg}:id/loading`, bounds: [Math.round(cx - pb / 2), top, Math.round(cx + pb / 2), top + pb] }));
    let y = top + pb + this.dp(16);
    let i = 0;
    while (y + this.dp(96) < viewport[3]) {
      const x = this.dp(16);
      this.ops.push({ op: "circle", cx: x + this.dp(20), cy: y + this.dp(20), r: this.dp(20), fill: C.skeleton });
      this.ops.push({ op: "rect", x: x + this.dp(52), y: y + this.dp(6), w: this.dp(140), h: this.dp(12), fill: C.skeleton, r: this.dp(6) });
      this.ops.push({ op: "rect", x: x + this.dp(52), y: y + this.dp(30), w: W - this.dp(100), h: this.dp(12), fill: C.skeleton, r: this.dp(6) });
      this.ops.push({ op: "rect", x: x + this.dp(52), y: y + this.dp(52), w: W - this.dp(100) - (i % 2) * this.dp(90), h: this.dp(12), fill: C.skeleton, r: this.dp(6) });
      parent.children.push(node({ cls: "android.view.View", pkg, resId: `${pkg}:id/shimmer_placeholder`, bounds: [0, y, W, y + this.dp(88)] }));
      y += this.dp(96);
      i++;
    }
  }

  /** Lays elements out top to bottom starting at y; returns the nodes and the content height. */
  flow(elements: Element[], y0: number, scope: ValueScope, pkg: string, x0 = 0, width = this.W): { nodes: ViewNode[]; height: number } {
    let y = y0;
    const nodes: ViewNode[] = [];
    for (const el of elements) {
      if (el.visibleIf && !evaluatePredicate(el.visibleIf, scope)) continue;
      if (el.bounds) {
        const [l, t, r, b] = el.bounds.map((v) => this.dp(v)) as [number, number, number, number];
        const placed = this.element(el, l, t, r - l, scope, pkg, b - t).node;
        placed.overlay = true;
        nodes.push(placed);
        continue;
      }
      if (el.type === "web") {
        // A WebView: the page is laid out and drawn like the app's own views, and taps reach it, but the dump shows
        // only the WebView.
        const page = this.flow(el.items ?? [], y, scope, pkg, x0, width);
        const h = el.height !== undefined ? this.dp(el.height) : page.height;
        nodes.push(node({ cls: el.class ?? "android.webkit.WebView", pkg, resId: el.id ? `${pkg}:id/${el.id}` : "", bounds: [x0, y, x0 + width, y + h], focusable: true, scrollable: false, children: page.nodes, hidden: true }));
        y += h;
        continue;
      }
      if (el.type === "list") {
        const rows = this.listRows(el, scope);
        const group = node({ cls: "android.widget.LinearLayout", pkg, resId: el.id ? `${pkg}:id/${el.id}_content` : "", bounds: [x0, y, x0 + width, y] });
        if (rows.length === 0 && el.empty) {
          const r = this.element({ type: "text", text: el.empty, style: "caption" }, x0, y, width, scope, pkg);
          group.children.push(r.node);
          y += r.height;
        }
        for (const [rowEl, rowScope] of rows) {
          const r = this.element(rowEl, x0, y, width, rowScope, pkg);
          group.children.push(r.node);
          y += r.height;
        }
        group.bounds[3] = y;
        nodes.push(group);
        continue;
      }
      const r = this.element(el, x0, y, width, scope, pkg);
      nodes.push(r.node);
      y += r.height;
    }
    return { nodes, height: y - y0 };
  }

  listRows(el: Element, scope: ValueScope): [Element, ValueScope][] {
    if (el.items) return el.items.filter((it) => !it.visibleIf || evaluatePredicate(it.visibleIf, scope)).map((it) => [it, scope]);
    if (!el.itemsFrom || !el.template) return [];
    const arr = readOperand({ var: el.itemsFrom }, scope);
    if (!Array.isArray(arr)) return [];
    const [ns, path] = parseRef(el.itemsFrom, scope.app);
    const out: [Element, ValueScope][] = [];
    arr.forEach((item, index) => {
      let rowItem = item;
      if (item && typeof item === "object") {
        // per-row state lives in the entry: writes to "item.x" go to this entry
        rowItem = { ...(item as object), index };
        Object.defineProperty(rowItem, ROW_REF, { value: `${ns}:${[...path, String(index)].join(".")}`, enumerable: false });
      }
      const s: ValueScope = { ...scope, item: rowItem };
      if (el.where && !evaluatePredicate(el.where, s)) return;
      if (el.template!.visibleIf && !evaluatePredicate(el.template!.visibleIf, s)) return;
      out.push([el.template!, s]);
    });
    return out;
  }

  t(text: string | undefined, scope: ValueScope): string {
    return text ? interpolate(text, scope) : "";
  }

  fit(text: string, maxW: number, size: number, bold = false): string {
    if (this.measure(text, size, bold) <= maxW) return text;
    let s = text;
    while (s.length > 1 && this.measure(s + "…", size, bold) > maxW) s = s.slice(0, -1);
    return s + "…";
  }

  tint(hex: string): string {
    const n = Number.parseInt(hex.slice(1), 16);
    const mix = (c: number) => Math.round(c + (255 - c) * 0.82);
    const r = mix((n >> 16) & 255);
    const g = mix((n >> 8) & 255);
    const b = mix(n & 255);
    return `#${((r << 16) | (g << 8) | b).toString(16).padStart(6, "0")}`;
  }

  cursor(x: number, cy: number, size: number): void {
    this.ops.push({ op: "rect", x: x + 2, y: cy - size * 0.62, w: Math.max(2, this.dp(1.5)), h: size * 1.24, fill: this.input.app?.def.color ?? "#1a73e8" });
  }

  isEnabled(el: Element, scope: ValueScope): boolean {
    if (el.enabled === undefined) return true;
    if (typeof el.enabled === "boolean") return el.enabled;
    return evaluatePredicate(el.enabled, scope);
  }

  handlerFor(el: Element, scope: ValueScope): Handler | undefined {
    return el.onTap ? { type: "actions", actions: el.onTap, item: scope.item } : undefined;
  }

  /** Lays out one element at (x, y) with the given width; `flags` in the scenario override what the dump reports. */
  element(el: Element, x: number, y: number, width: number, scope: ValueScope, pkg: string, fixedH?: number): { node: ViewNode; height: number } {
    let h = fixedH ?? (el.height !== undefined ? this.dp(el.height) : undefined);
    // a tappable element is never shorter than the minimum touch target
    if (h !== undefined && (el.onTap || el.onLongPress || ["button", "input", "switch", "checkbox", "item"].includes(el.type))) h = Math.max(h, this.dp(MIN_TOUCH_DP));
    const r = this.elementBody(el, x, y, width, scope, pkg, h);
    if (el.flags) Object.assign(r.node, el.flags);
    return r;
  }

  elementBody(el: Element, x: number, y: number, width: number, scope: ValueScope, pkg: string, fixedH?: number): { node: ViewNode; height: number } {
    const d = (n: number) => this.dp(n);
    const color = el.color ?? this.input.app?.def.color ?? "#1a73e8";
    const enabled = this.isEnabled(el, scope);
    const resId = el.id ? `${pkg}:id/${el.id}` : "";
    const text = this.t(el.text, scope);
    const desc = this.t(el.desc, scope);
    const selected = el.selected ? evaluatePredicate(el.selected, scope) : false;
    const onTap = enabled ? this.handlerFor(el, scope) : undefined;
    const onLongPress = el.onLongPress ? { type: "actions" as const, actions: el.onLongPress, item: scope.item } : undefined;
    const base = { pkg, resId, desc, enabled, selected, onLongPress, longClickable: !!onLongPress };
    const pad = d(16);
    switch (el.type) {
      case "spacer": {
        const h = fixedH ?? d(16);
        return { node: node({ cls: "android.view.View", ...base, bounds: [x, y, x + width, y + h] }), height: h };
      }
      case "divider": {
        const h = fixedH ?? d(1);
        this.ops.push({ op: "rect", x: x + pad, y, w: width - 2 * pad, h, fill: C.divider });
        return { node: node({ cls: "android.view.View", ...base, bounds: [x, y, x + width, y + h] }), height: h };
      }
      case "text": {
        const style = el.style ?? "body";
        const size = this.sp(style === "headline" ? 28 : style === "title" ? 20 : style === "caption" ? 13 : 16);
        const bold = style === "headline" || style === "title";
        const fg = style === "caption" ? C.sub : style === "link" ? color : C.text;
        // a narrow cell (a small close button in a row) keeps a quarter of its width as padding, never more
        const hp = Math.min(pad, Math.floor(width / 4));
        const lineH = Math.round(size * 1.4);
        // a fixed height shows the lines that fit, the last one ellipsised, as a TextView with maxLines does
        const lines = wrapText(text, Math.max(1, width - 2 * hp), size, this.measure, bold, fixedH === undefined ? 50 : Math.max(1, Math.floor(fixedH / lineH)));
        const tappable = !!onTap || !!onLongPress;
        const natural = lines.length * lineH + 2 * d(style === "caption" ? 4 : 8);
        const h = fixedH ?? (tappable ? Math.max(natural, d(MIN_TOUCH_DP)) : natural);
        const top = y + Math.max(0, Math.round((h - lines.length * lineH) / 2));
        lines.forEach((ln, i) => this.ops.push({ op: "text", x: x + hp, y: top + i * lineH + size * 1.05, text: ln, size, color: fg, bold }));
        const tw = Math.min(width - 2 * hp, Math.max(...lines.map((l) => this.measure(l, size, bold)), 1));
        // a tappable text reports its whole touch area (at least 48 dp, or the cell), like a Material text button
        const bounds: Rect = tappable
          ? [Math.max(x, Math.round(x + hp + tw / 2 - d(MIN_TOUCH_DP) / 2)), y, Math.min(x + width, Math.round(x + hp + tw / 2 + d(MIN_TOUCH_DP) / 2)), y + h]
          : [x + hp, top, Math.max(x + hp + 1, Math.round(x + hp + tw)), Math.min(y + h, top + lines.length * lineH)];
        if (tappable && bounds[2] - bounds[0] < tw) [bounds[0], bounds[2]] = [x + hp, Math.round(x + hp + tw)];
        return {
          node: node({ cls: el.class ?? "android.widget.TextView", ...base, text, bounds, clickable: !!onTap, focusable: !!onTap, onTap }),
          height: h,
        };
      }
      case "button": {
        const style = el.style ?? "filled";
        const h = fixedH ?? d(MIN_TOUCH_DP);
        const mv = Math.min(d(6), Math.floor(h / 8));
        const size = this.sp(15);
        const hp = Math.min(pad, Math.floor(width / 4));
        const bx = x + hp;
        const bw = width - 2 * hp;
        const fill = style === "filled" ? (enabled ? color : "#dadce0") : style === "danger" ? "#d93025" : undefined;
        const fg = style === "filled" || style === "danger" ? "#ffffff" : enabled ? color : C.hint;
        if (style === "outlined") this.ops.push({ op: "rect", x: bx, y: y + mv, w: bw, h: h - 2 * mv, stroke: enabled ? "#79747e" : C.divider, lw: d(1), r: (h - 2 * mv) / 2 });
        if (fill) this.ops.push({ op: "rect", x: bx, y: y + mv, w: bw, h: h - 2 * mv, fill, r: (h - 2 * mv) / 2 });
        this.ops.push({ op: "text", x: bx + bw / 2, y: y + h / 2 + size * 0.36, text: this.fit(text, bw - d(16), size, true), size, color: fg, bold: true, align: "center" });
        return {
          // the view spans the whole 48 dp touch target; the pill is drawn inset inside it, as Material buttons are
          node: node({ cls: el.class ?? "android.widget.Button", ...base, text, bounds: [bx, y, bx + bw, y + h], clickable: enabled, focusable: true, onTap }),
          height: h,
        };
      }
      case "chip": {
        const size = this.sp(14);
        const h = d(32);
        const touch = fixedH ?? d(MIN_TOUCH_DP);
        const w = Math.max(1, Math.min(width - d(8), this.measure(text, size) + d(32)));
        const on = selected;
        const top = y + Math.round((touch - h) / 2);
        this.ops.push({ op: "rect", x: x + d(4), y: top, w, h, fill: on ? this.tint(color) : C.chip, stroke: on ? color : undefined, lw: d(1), r: d(8) });
        this.ops.push({ op: "text", x: x + d(4) + w / 2, y: top + h / 2 + size * 0.35, text, size, color: C.text, align: "center" });
        return {
          // 32 dp drawn, 48 dp touch target reported, like a Material chip
          node: node({ cls: el.class ?? "android.widget.Button", ...base, text, bounds: [x + d(4), y, Math.round(x + d(4) + w), y + touch], clickable: !!onTap, focusable: true, checkable: true, checked: on, onTap }),
          height: touch,
        };
      }
      case "input": {
        const label = el.label ? this.t(el.label, scope) : "";
        const labelH = label ? d(22) : 0;
        // `height` is the whole field: label, box and margin; the box keeps a 48 dp touch target
        const boxH = fixedH !== undefined ? Math.max(d(MIN_TOUCH_DP), fixedH - labelH - d(12)) : el.multiline ? d(120) : d(56);
        const h = labelH + boxH + d(12);
        const bx = x + pad;
        const bw = width - 2 * pad;
        const by = y + d(6) + labelH;
        const bind = el.bind ?? el.id ?? "";
        const value = stringify(readOperand({ var: bind }, scope));
        const focused = this.input.app?.focusedField === el.id && !!el.id;
        const size = this.sp(16);
        if (label) this.ops.push({ op: "text", x: bx + d(4), y: y + d(20), text: label, size: this.sp(13), color: focused ? color : C.sub, bold: true });
        this.ops.push({ op: "rect", x: bx, y: by, w: bw, h: boxH, fill: "#ffffff", stroke: focused ? color : "#79747e", lw: focused ? d(2) : d(1), r: d(6) });
        const shown = el.password ? "•".repeat([...value].length) : value;
        const lines = el.multiline ? wrapText(shown, bw - d(32), size, this.measure).slice(-3) : [this.fitTail(shown, bw - d(32), size)];
        const lineH = Math.round(size * 1.4);
        if (value) lines.forEach((ln, i) => this.ops.push({ op: "text", x: bx + d(16), y: by + (el.multiline ? d(28) + i * lineH : boxH / 2 + size * 0.36), text: ln, size, color: C.text }));
        else if (el.hint) this.ops.push({ op: "text", x: bx + d(16), y: by + (el.multiline ? d(28) : boxH / 2 + size * 0.36), text: this.fit(this.t(el.hint, scope), bw - d(32), size), size, color: C.hint });
        if (focused) {
          const last = value ? lines[lines.length - 1]! : "";
          const cyLine = el.multiline ? by + d(28) + (Math.max(lines.length, 1) - 1) * lineH - size * 0.36 : by + boxH / 2;
          this.cursor(bx + d(16) + this.measure(last, size), cyLine, size);
        }
        return {
          node: node({
            cls: el.class ?? "android.widget.EditText",
            ...base,
            // Android reports the hint as the text of an empty EditText
            text: value ? (el.password ? shown : value) : this.t(el.hint, scope),
            bounds: [bx, by, bx + bw, by + boxH],
            clickable: enabled,
            focusable: true,
            focused,
            longClickable: true,
            password: !!el.password,
            onTap: enabled && el.id ? { type: "focus", field: el.id, bind, item: scope.item, submit: el.onSubmit } : undefined,
          }),
          height: h,
        };
      }
      case "switch":
      case "checkbox": {
        const bind = el.bind ?? el.id ?? "";
        const on = truthy(readOperand({ var: bind }, scope));
        const sub = this.t(el.subtitle, scope);
        const h = fixedH ?? (sub ? d(72) : d(56));
        const size = this.sp(16);
        const cy = y + h / 2;
        this.ops.push({ op: "text", x: x + pad, y: sub ? cy - d(4) : cy + size * 0.36, text: this.fit(text, width - d(110), size), size, color: enabled ? C.text : C.hint });
        if (sub) this.ops.push({ op: "text", x: x + pad, y: cy + d(18), text: this.fit(sub, width - d(110), this.sp(14)), size: this.sp(14), color: C.sub });
        const rowNode = node({ cls: "android.widget.LinearLayout", ...base, resId: "", bounds: [x, y, x + width, y + h], clickable: enabled, focusable: true, onTap: enabled ? { type: "toggle", bind, item: scope.item, actions: el.onTap } : undefined });
        rowNode.children.push(node({ cls: "android.widget.TextView", pkg, resId: "android:id/title", text, bounds: [x + pad, Math.round(cy - size), Math.round(x + pad + this.measure(text, size)), Math.round(cy + size * 0.4)] }));
        if (el.type === "switch") {
          const tw = d(52);
          const th = d(32);
          const tx = x + width - pad - tw;
          this.ops.push({ op: "rect", x: tx, y: cy - th / 2, w: tw, h: th, fill: on ? color : "#e7e0ec", stroke: on ? undefined : "#79747e", lw: d(2), r: th / 2 });
          this.ops.push({ op: "circle", cx: on ? tx + tw - th / 2 : tx + th / 2, cy, r: on ? d(12) : d(8), fill: on ? "#ffffff" : "#79747e" });
          rowNode.children.push(node({ cls: "android.widget.Switch", pkg, resId: resId || `${pkg}:id/switch_widget`, text: on ? "ON" : "OFF", bounds: [tx, Math.round(cy - th / 2), tx + tw, Math.round(cy + th / 2)], checkable: true, checked: on, enabled, focusable: true, clickable: enabled, onTap: rowNode.onTap }));
        } else {
          const s = d(18);
          const bx = x + width - pad - s - d(4);
          this.ops.push({ op: "rect", x: bx, y: cy - s / 2, w: s, h: s, fill: on ? color : undefined, stroke: on ? color : "#49454f", lw: d(2), r: d(2) });
          if (on) this.ops.push({ op: "icon", name: "check", cx: bx + s / 2, cy, size: s, color: "#ffffff" });
          rowNode.children.push(node({ cls: "android.widget.CheckBox", pkg, resId: resId || `${pkg}:id/checkbox`, bounds: [bx - d(12), Math.round(cy - s / 2 - d(12)), bx + s + d(12), Math.round(cy + s / 2 + d(12))], checkable: true, checked: on, enabled, focusable: true, clickable: enabled, onTap: rowNode.onTap }));
        }
        if (selected) rowNode.selected = true;
        return { node: rowNode, height: h };
      }
      case "item": {
        const sub = this.t(el.subtitle, scope);
        const trailing = this.t(el.trailing, scope);
        const icon = this.t(el.icon, scope);
        const h = fixedH ?? (sub ? d(72) : d(56));
        const cy = y + h / 2;
        let tx = x + pad;
        if (selected) this.ops.push({ op: "rect", x, y, w: width, h, fill: this.tint(color) });
        if (icon) {
          const r = d(20);
          this.ops.push({ op: "circle", cx: x + pad + r, cy, r, fill: el.color ?? this.avatarColor(text) });
          this.ops.push({ op: "text", x: x + pad + r, y: cy + this.sp(16) * 0.36, text: icon, size: this.sp(16), color: "#ffffff", align: "center", bold: true });
          tx = x + pad + 2 * r + d(16);
        }
        const trailingW = trailing ? this.measure(trailing, this.sp(12)) + d(8) : 0;
        const maxW = x + width - pad - tx - trailingW;
        const size = this.sp(16);
        this.ops.push({ op: "text", x: tx, y: sub ? cy - d(4) : cy + size * 0.36, text: this.fit(text, maxW, size, !!sub && el.style === "bold"), size, color: enabled ? C.text : C.hint, bold: el.style === "bold" });
        if (sub) this.ops.push({ op: "text", x: tx, y: cy + d(18), text: this.fit(sub, maxW, this.sp(14)), size: this.sp(14), color: C.sub });
        if (trailing) this.ops.push({ op: "text", x: x + width - pad, y: sub ? cy - d(4) : cy + this.sp(12) * 0.36, text: trailing, size: this.sp(12), color: C.sub, align: "right" });
        if (onTap && !trailing && el.style !== "plain") this.ops.push({ op: "icon", name: "chevron", cx: x + width - pad - d(6), cy, size: d(16), color: C.hint });
        this.ops.push({ op: "line", x1: tx, y1: y + h - 0.5, x2: x + width, y2: y + h - 0.5, color: "#f0f0f0", lw: 1 });
        const row = node({ cls: el.class ?? "android.widget.LinearLayout", ...base, bounds: [x, y, x + width, y + h], clickable: !!onTap, focusable: !!onTap, onTap });
        row.children.push(node({ cls: "android.widget.TextView", pkg, resId: "android:id/title", text, bounds: [tx, Math.round(cy - (sub ? d(26) : size * 0.7)), Math.round(tx + Math.min(maxW, this.measure(text, size))), Math.round(sub ? cy + d(2) : cy + size * 0.7)] }));
        if (sub) row.children.push(node({ cls: "android.widget.TextView", pkg, resId: "android:id/summary", text: sub, bounds: [tx, cy + d(4), Math.round(tx + Math.min(maxW, this.measure(sub, this.sp(14)))), cy + d(24)] }));
        if (trailing) row.children.push(node({ cls: "android.widget.TextView", pkg, text: trailing, bounds: [Math.round(x + width - pad - trailingW), cy - d(10), x + width - pad, cy + d(10)] }));
        return { node: row, height: h };
      }
      case "post": {
        const author = this.t(el.author, scope);
        const handle = this.t(el.handle, scope);
        const stats = this.t(el.stats, scope);
        const size = this.sp(15);
        const lineH = Math.round(size * 1.45);
        const tx = x + pad + d(52);
        const lines = wrapText(text, x + width - pad - tx, size, this.measure, false, 8);
        const h = d(12) + d(24) + lines.length * lineH + (stats ? d(30) : 0) + d(14);
        const r = d(20);
        this.ops.push({ op: "circle", cx: x + pad + r, cy: y + d(12) + r, r, fill: el.color ?? this.avatarColor(author) });
        this.ops.push({ op: "text", x: x + pad + r, y: y + d(12) + r + this.sp(16) * 0.36, text: [...author][0] ?? "?", size: this.sp(16), color: "#ffffff", align: "center", bold: true });
        this.ops.push({ op: "text", x: tx, y: y + d(30), text: author, size: this.sp(15), color: C.text, bold: true });
        if (handle) this.ops.push({ op: "text", x: tx + this.measure(author, this.sp(15), true) + d(6), y: y + d(30), text: handle, size: this.sp(14), color: C.sub });
        lines.forEach((ln, i) => this.ops.push({ op: "text", x: tx, y: y + d(36) + i * lineH + size * 1.05, text: ln, size, color: C.text }));
        const statsY = y + d(36) + lines.length * lineH + d(22);
        if (stats) this.ops.push({ op: "text", x: tx, y: statsY, text: stats, size: this.sp(13), color: C.sub });
        this.ops.push({ op: "line", x1: x, y1: y + h - 0.5, x2: x + width, y2: y + h - 0.5, color: C.divider, lw: 1 });
        const post = node({ cls: el.class ?? "android.widget.LinearLayout", ...base, bounds: [x, y, x + width, y + h], clickable: !!onTap, focusable: !!onTap, onTap });
        post.children.push(node({ cls: "android.widget.TextView", pkg, resId: `${pkg}:id/author`, text: author, bounds: [tx, y + d(12), Math.round(tx + this.measure(author, this.sp(15), true)), y + d(36)] }));
        if (handle) post.children.push(node({ cls: "android.widget.TextView", pkg, resId: `${pkg}:id/handle`, text: handle, bounds: [Math.round(tx + this.measure(author, this.sp(15), true) + d(6)), y + d(12), Math.round(tx + this.measure(author, this.sp(15), true) + d(6) + this.measure(handle, this.sp(14))), y + d(36)] }));
        post.children.push(node({ cls: "android.widget.TextView", pkg, resId: `${pkg}:id/body`, text, bounds: [tx, y + d(36), x + width - pad, y + d(36) + lines.length * lineH] }));
        if (stats) post.children.push(node({ cls: "android.widget.TextView", pkg, resId: `${pkg}:id/stats`, text: stats, bounds: [tx, statsY - d(16), Math.round(tx + this.measure(stats, this.sp(13))), statsY + d(6)] }));
        return { node: post, height: h };
      }
      case "image": {
        const h = fixedH ?? d(180);
        this.ops.push({ op: "rect", x: x + pad, y: y + d(8), w: width - 2 * pad, h: h - d(16), fill: el.color ?? "#cfd8dc", r: d(12) });
        if (el.icon) this.ops.push({ op: "text", x: x + width / 2, y: y + h / 2 + this.sp(40) * 0.36, text: this.t(el.icon, scope), size: this.sp(40), color: "#ffffff", align: "center" });
        return { node: node({ cls: el.class ?? "android.widget.ImageView", ...base, bounds: [x + pad, y + d(8), x + width - pad, y + h - d(8)], clickable: !!onTap, focusable: !!onTap, onTap }), height: h };
      }
      case "row": {
        const kids = (el.children ?? []).filter((c) => !c.visibleIf || evaluatePredicate(c.visibleIf, scope));
        const group = node({ cls: el.class ?? "android.widget.LinearLayout", ...base, bounds: [x, y, x + width, y], clickable: !!onTap, onTap });
        let h = 0;
        if (kids.every((k) => k.type === "chip")) {
          // chips flow and wrap like a ChipGroup
          let cx = x + pad - d(4);
          let cy = y + d(4);
          for (const k of kids) {
            const size = this.sp(14);
            const w = this.measure(this.t(k.text, scope), size) + d(40);
            if (cx + w > x + width - pad && cx > x + pad - d(4)) {
              cx = x + pad - d(4);
              cy += d(MIN_TOUCH_DP);
            }
            const r = this.element(k, cx, cy, Math.min(w, x + width - cx), scope, pkg);
            group.children.push(r.node);
            cx += w;
            h = Math.max(h, cy - y + r.height);
          }
        } else {
          const w = width / Math.max(1, kids.length);
          kids.forEach((k, i) => {
            const r = this.element(k, Math.round(x + i * w), y, Math.round(w), scope, pkg);
            group.children.push(r.node);
            h = Math.max(h, r.height);
          });
        }
        if (fixedH !== undefined) h = Math.max(h, fixedH);
        group.bounds[3] = y + h;
        return { node: group, height: h };
      }
      case "wheel": {
        const values = (el.values ?? []).map((v) => this.t(v, scope));
        const bind = el.bind ?? el.id ?? "";
        const current = stringify(readOperand({ var: bind }, scope));
        let idx = values.indexOf(current);
        if (idx < 0) idx = 0;
        const rowH = d(48);
        const label = this.t(el.label, scope);
        const labelH = label ? d(24) : 0;
        const h = labelH + rowH * 3 + d(8);
        const cx = x + width / 2;
        if (label) this.ops.push({ op: "text", x: cx, y: y + d(18), text: label, size: this.sp(13), color: C.sub, align: "center", bold: true });
        const top = y + labelH;
        this.ops.push({ op: "rect", x: x + d(8), y: top + rowH, w: width - d(16), h: rowH, fill: this.tint(color), r: d(10) });
        const wheel = node({ cls: "android.widget.NumberPicker", ...base, bounds: [x, top, x + width, top + rowH * 3], scrollable: true, focusable: true, wheel: { bind, values, item: scope.item, step: rowH } });
        for (const k of [-1, 0, 1]) {
          const v = values[(idx + k + values.length) % values.length]!;
          const size = this.sp(k === 0 ? 26 : 18);
          const ry = top + (k + 1) * rowH;
          this.ops.push({ op: "text", x: cx, y: ry + rowH / 2 + size * 0.36, text: v, size, color: k === 0 ? C.text : C.hint, align: "center", bold: k === 0 });
          wheel.children.push(
            node(
              k === 0
                ? { cls: "android.widget.EditText", pkg, resId: "android:id/numberpicker_input", text: v, bounds: [x, ry, x + width, ry + rowH], focusable: true, clickable: true, longClickable: true }
                : { cls: "android.widget.Button", pkg, text: v, bounds: [x, ry, x + width, ry + rowH], clickable: true, onTap: { type: "wheel", bind, values, delta: k, item: scope.item } },
            ),
          );
        }
        return { node: wheel, height: h };
      }
      case "list":
      case "web": {
        const r = this.flow([el], y, scope, pkg, x, width);
        return { node: r.nodes[0] ?? node({ cls: "android.widget.LinearLayout", pkg, bounds: [x, y, x + width, y] }), height: r.height };
      }
    }
  }

  fitTail(text: string, maxW: number, size: number): string {
    if (this.measure(text, size) <= maxW) return text;
    let s = text;
    while (s.length > 1 && this.measure("…" + s, size) > maxW) s = s.slice(1);
    return "…" + s;
  }

  avatarColor(seed: string): string {
    const palette = ["#e57373", "#64b5f6", "#81c784", "#ffb74d", "#ba68c8", "#4db6ac", "#f06292", "#7986cb"];
    let h = 0;
    for (const ch of seed) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    return palette[h % palette.length]!;
  }

  /** Whether dialog buttons fit side by side on one line (Android stacks them when they don't). */
  buttonsFit(labels: string[], innerW: number): boolean {
    const size = this.sp(14);
    const total = labels.reduce((acc, l) => acc + this.measure(l, size, true) + this.dp(24), 0) + this.dp(8) * (labels.length - 1);
    return total <= innerW;
  }

  /** Dialog buttons: right-aligned on one line, or stacked full width; each reports its 48 dp touch target. */
  dialogButtons(
    buttons: { resId: string; label: string; style: ButtonStyle; onTap: Handler }[],
    pkg: string,
    innerX: number,
    innerW: number,
    top: number,
    sideBySide: boolean,
    accent: string,
  ): { nodes: ViewNode[]; height: number } {
    const d = (n: number) => this.dp(n);
    const btnH = d(MIN_TOUCH_DP);
    const size = this.sp(14);
    const nodes: ViewNode[] = [];
    const draw = (b: (typeof buttons)[number], bx: number, by: number, bw: number) => {
      const vy = by + d(4);
      const vh = btnH - d(8);
      const pill = { x: bx, y: vy, w: bw, h: vh, r: vh / 2 };
      const fill = b.style === "filled" ? accent : b.style === "danger" ? "#d93025" : b.style === "tonal" ? SYS.tonal : undefined;
      const fg = b.style === "filled" || b.style === "danger" ? "#ffffff" : b.style === "tonal" ? SYS.onTonal : accent;
      if (fill) this.ops.push({ op: "rect", ...pill, fill });
      else if (b.style === "outlined") this.ops.push({ op: "rect", ...pill, stroke: "#79747e", lw: d(1) });
      this.ops.push({ op: "text", x: bx + bw / 2, y: by + btnH / 2 + size * 0.36, text: this.fit(b.label, Math.max(1, bw - d(16)), size, true), size, color: fg, bold: true, align: "center" });
      nodes.push(node({ cls: "android.widget.Button", pkg, resId: b.resId, text: b.label, bounds: [Math.round(bx), Math.round(by), Math.round(bx + bw), Math.round(by + btnH)], clickable: true, focusable: true, onTap: b.onTap }));
    };
    if (sideBySide) {
      let right = innerX + innerW;
      const placed: ViewNode[] = [];
      for (let i = buttons.length - 1; i >= 0; i--) {
        const b = buttons[i]!;
        const bw = Math.round(this.measure(b.label, size, true) + d(24));
        draw(b, right - bw, top, bw);
        placed.unshift(nodes.pop()!);
        right -= bw + d(8);
      }
      return { nodes: placed, height: btnH };
    }
    buttons.forEach((b, i) => draw(b, innerX, top + i * (btnH + d(8)), innerW));
    return { nodes, height: buttons.length * btnH + (buttons.length - 1) * d(8) };
  }

  // ---------- popups ----------
  /**
   * The middle of a dialog (message, extra rows, checkbox) between its fixed title and buttons. When the dialog would be
   * taller than the screen allows, the middle is clipped and scrolls, as AlertDialog's scrollView does.
   */
  dialogMiddle(
    parent: ViewNode,
    pkg: string,
    area: { x: number; w: number; top: number; height: number },
    contentH: number,
    scroll: { key: string; offset: number },
    draw: (y: number) => ViewNode[],
  ): void {
    const max = Math.max(0, contentH - area.height);
    const offset = Math.min(Math.max(0, scroll.offset), max);
    const viewport: Rect = [area.x, area.top, area.x + area.w, area.top + area.height];
    this.ops.push({ op: "clip", x: area.x, y: area.top, w: area.w, h: area.height });
    const nodes = draw(area.top - offset);
    this.ops.push({ op: "unclip" });
    const holder = max > 0 ? node({ cls: "android.widget.ScrollView", pkg, resId: "android:id/scrollView", bounds: viewport, scrollable: true, focusable: true, scroll: { key: scroll.key, max } }) : parent;
    for (const n of nodes) {
      const clipped = clipTree(n, viewport);
      if (clipped) holder.children.push(clipped);
    }
    if (holder !== parent) parent.children.push(holder);
  }

  popup(statusH: number, navH: number): ViewNode {
    const { def, app, scope } = this.input.popup!;
    // permission prompts belong to the system: system colours, stacked tonal buttons, centred title
    const system = !!def.package;
    const pkg = def.package ?? app.package;
    const { W, H } = this;
    const d = (n: number) => this.dp(n);
    const accent = system ? SYS.accent : app.color;
    const title = interpolate(def.title, scope);
    const message = def.message ? interpolate(def.message, scope) : "";
    const bottomLimit = H - navH;
    const full = def.style === "fullscreen";
    if (!full) this.ops.push({ op: "rect", x: 0, y: 0, w: W, h: bottomLimit, fill: "#00000080" });
    const titleSize = this.sp(full ? 28 : system ? 20 : 22);
    const msgSize = this.sp(system ? 14 : 15);
    const cardW = def.style === "dialog" ? Math.min(W - d(48), d(560)) : W;
    const cardX = Math.round((W - cardW) / 2);
    const innerX = cardX + d(24);
    const innerW = cardW - d(48);
    const labels = def.buttons.map((b) => interpolate(b.text, scope));
    const sideBySide = def.style === "dialog" && !system && this.buttonsFit(labels, innerW);
    const btnsH = sideBySide ? d(MIN_TOUCH_DP) : def.buttons.length * d(MIN_TOUCH_DP) + (def.buttons.length - 1) * d(8);
    const avail = bottomLimit - statusH - (def.style === "dialog" ? d(32) : 0);
    const headTop = def.style === "sheet" ? d(36) : full ? d(112) : d(24);
    const footH = d(12) + btnsH + d(16);
    // the title keeps to the lines that leave the middle at least 48 dp
    const maxTitle = Math.max(1, Math.min(4, Math.floor((avail - footH - headTop - d(60)) / (titleSize * 1.3))));
    const tl = wrapText(title, innerW, titleSize, this.measure, true, maxTitle);
    const headH = headTop + Math.round(tl.length * titleSize * 1.3);
    const ml = message ? wrapText(message, innerW, msgSize, this.measure) : [];
    const probe = new Layouter(this.input, this.measure);
    const itemsH = def.items ? probe.flow(def.items, 0, scope, pkg, 0, cardW).height : 0;
    const midH = d(12) + Math.round(ml.length * msgSize * 1.5) + itemsH;
    const natural = headH + midH + footH;
    const cardH = full ? bottomLimit - statusH : Math.min(natural, avail);
    const cardY = full ? statusH : def.style === "sheet" ? bottomLimit - cardH : Math.max(statusH + d(16), Math.round((bottomLimit - cardH) / 2));
    const r = d(28);
    this.ops.push({ op: "rect", x: cardX, y: cardY, w: cardW, h: cardH, fill: system ? SYS.surface : def.style === "dialog" ? "#f7f2fa" : "#ffffff", r: def.style === "dialog" ? r : def.style === "sheet" ? [r, r, 0, 0] : 0 });
    const rootBounds: Rect = [cardX, cardY, cardX + cardW, cardY + cardH];
    const root = node({ cls: "android.widget.FrameLayout", pkg, bounds: rootBounds });
    const panel = node({ cls: "android.widget.LinearLayout", pkg, resId: `${pkg}:id/parentPanel`, bounds: rootBounds });
    root.children.push(panel);
    if (def.style === "sheet") this.ops.push({ op: "rect", x: W / 2 - d(16), y: cardY + d(12), w: d(32), h: d(4), fill: "#79747e66", r: d(2) });
    if (full) {
      this.ops.push({ op: "circle", cx: W / 2, cy: cardY + d(48), r: d(28), fill: accent });
      this.ops.push({ op: "text", x: W / 2, y: cardY + d(48) + this.sp(22) * 0.36, text: app.icon, size: this.sp(22), color: "#ffffff", align: "center" });
    }
    const center = full || system;
    const textX = center ? W / 2 : innerX;
    const align = center ? ("center" as const) : ("left" as const);
    const lineBounds = (lines: string[], size: number, bold: boolean, top: number, bottom: number): Rect => {
      const w = Math.min(innerW, Math.max(1, ...lines.map((l) => this.measure(l, size, bold))));
      const left = center ? Math.round(W / 2 - w / 2) : innerX;
      return [left, top, Math.round(left + w), bottom];
    };
    const titleTop = cardY + headTop;
    tl.forEach((ln, i) => this.ops.push({ op: "text", x: textX, y: titleTop + titleSize * 1.05 + i * titleSize * 1.3, text: ln, size: titleSize, color: system ? SYS.title : C.text, bold: true, align }));
    panel.children.push(node({ cls: "android.widget.TextView", pkg, resId: system ? `${pkg}:id/permission_message` : "android:id/alertTitle", text: title, bounds: lineBounds(tl, titleSize, true, titleTop, cardY + headH) }));
    const midTop = cardY + headH;
    const midView = cardH - headH - footH;
    this.dialogMiddle(panel, pkg, { x: cardX, w: cardW, top: midTop, height: midView }, midH, { key: "popup", offset: this.input.app?.scroll.popup ?? 0 }, (y0) => {
      const out: ViewNode[] = [];
      let y = y0 + d(12);
      if (message) {
        const mt = y;
        ml.forEach((ln, i) => this.ops.push({ op: "text", x: textX, y: y + msgSize * 1.05 + i * msgSize * 1.5, text: ln, size: msgSize, color: system ? SYS.body : C.sub, align }));
        y += Math.round(ml.length * msgSize * 1.5);
        out.push(node({ cls: "android.widget.TextView", pkg, resId: "android:id/message", text: message, bounds: lineBounds(ml, msgSize, false, mt, y) }));
      }
      if (def.items) out.push(...this.flow(def.items, y, scope, pkg, cardX, cardW).nodes);
      return out;
    });
    const btnTop = midTop + midView + d(12);
    const styleOf = (i: number): ButtonStyle => def.buttons[i]!.style ?? (system ? "tonal" : def.style === "dialog" ? "text" : i === 0 ? "filled" : "outlined");
    const buttons = def.buttons.map((b, i) => ({ resId: `${pkg}:id/${b.id}`, label: labels[i]!, style: styleOf(i), onTap: { type: "actions" as const, actions: b.onTap } }));
    panel.children.push(...this.dialogButtons(buttons, pkg, innerX, innerW, btnTop, sideBySide, accent).nodes);
    this.layers.push({ name: "popup", area: rootBounds, root, modal: true, outside: def.dismissOnBack && def.style === "dialog" ? { type: "dismiss" } : { type: "block" } });
    return root;
  }

  /**
   * A heads-up notification, drawn by the system UI over the top of the app: the app's name, a bold title, one line of
   * text and its action buttons in a row. It covers what lies under it; touches elsewhere reach the app.
   */
  notification(statusH: number): ViewNode {
    const { def, app, scope } = this.input.popup!;
    const pkg = "com.android.systemui";
    const d = (n: number) => this.dp(n);
    const x = d(8);
    const w = this.W - d(16);
    const top = statusH + d(8);
    const innerX = x + d(16);
    const innerW = w - d(32);
    const small = this.sp(12);
    const titleSize = this.sp(15);
    const msgSize = this.sp(14);
    const btnH = d(MIN_TOUCH_DP);
    const textH = d(12) + Math.round(small * 1.6) + Math.round(titleSize * 1.4) + (def.message ? Math.round(msgSize * 1.5) : 0) + d(4);
    const h = textH + btnH + d(4);
    const title = interpolate(def.title, scope);
    const message = def.message ? interpolate(def.message, scope) : "";
    this.ops.push({ op: "rect", x, y: top, w, h, fill: "#f2f4f8", r: d(20) });
    let y = top + d(12);
    this.ops.push({ op: "circle", cx: innerX + small / 2, cy: y + small * 0.6, r: small * 0.6, fill: app.color });
    this.ops.push({ op: "text", x: innerX + small * 1.6, y: y + small, text: this.fit(app.label, innerW - small * 2, small, false), size: small, color: C.sub });
    y += Math.round(small * 1.6);
    this.ops.push({ op: "text", x: innerX, y: y + titleSize * 1.05, text: this.fit(title, innerW, titleSize, true), size: titleSize, color: C.text, bold: true });
    y += Math.round(titleSize * 1.4);
    if (message) this.ops.push({ op: "text", x: innerX, y: y + msgSize * 1.05, text: this.fit(message, innerW, msgSize, false), size: msgSize, color: C.sub });
    const bounds: Rect = [x, top, x + w, top + h];
    // drawn over the app like a floating button: it may cover what lies under it
    const root = node({ cls: "android.widget.FrameLayout", pkg, resId: `${pkg}:id/notification_headsup`, bounds, overlay: true });
    // tapping the notification runs its first button's actions, as its content intent would
    const body = node({ cls: "android.widget.LinearLayout", pkg, resId: `${pkg}:id/notification_main_column`, text: message ? `${title}: ${message}` : title, desc: `${app.label} notification`, bounds: [x, top, x + w, top + textH], clickable: true, focusable: true, overlay: true, onTap: { type: "actions", actions: def.buttons[0]!.onTap } });
    root.children.push(body);
    let bx = innerX;
    const size = this.sp(14);
    for (const b of def.buttons) {
      const label = interpolate(b.text, scope);
      const bw = Math.min(innerX + innerW - bx, Math.round(this.measure(label, size, true) + d(24)));
      if (bw < d(48)) break;
      this.ops.push({ op: "text", x: bx + bw / 2, y: top + textH + btnH / 2 + size * 0.36, text: this.fit(label, Math.max(1, bw - d(16)), size, true), size, color: app.color, bold: true, align: "center" });
      root.children.push(node({ cls: "android.widget.Button", pkg, resId: `${pkg}:id/${b.id}`, text: label, bounds: [Math.round(bx), top + textH, Math.round(bx + bw), top + textH + btnH], clickable: true, focusable: true, overlay: true, onTap: { type: "actions", actions: b.onTap } }));
      bx += bw + d(8);
    }
    this.layers.push({ name: "notification", area: bounds, root, modal: true });
    return root;
  }

  /** Android's "Allow USB debugging?" dialog, drawn by the system UI over whatever is on screen. */
  usbPrompt(statusH: number, navH: number): ViewNode {
    const { W, H } = this;
    const d = (n: number) => this.dp(n);
    const pkg = "com.android.systemui";
    const prompt = this.input.usbPrompt!;
    const bottomLimit = H - navH;
    this.ops.push({ op: "rect", x: 0, y: 0, w: W, h: bottomLimit, fill: "#00000080" });
    const cw = Math.min(W - d(48), d(560));
    const cx = Math.round((W - cw) / 2);
    const innerX = cx + d(24);
    const innerW = cw - d(48);
    const title = "Allow USB debugging?";
    const message = `The computer's RSA key fingerprint is:\n${prompt.fingerprint}`;
    const always = "Always allow from this computer";
    const titleSize = this.sp(22);
    const msgSize = this.sp(14);
    const labels = ["Cancel", "Allow"];
    const side = this.buttonsFit(labels, innerW);
    const btnsH = side ? d(MIN_TOUCH_DP) : 2 * d(MIN_TOUCH_DP) + d(8);
    const avail = bottomLimit - statusH - d(32);
    const footH = d(12) + btnsH + d(16);
    const tl = wrapText(title, innerW, titleSize, this.measure, true, Math.max(1, Math.min(3, Math.floor((avail - footH - d(84)) / (titleSize * 1.3)))));
    const headH = d(24) + Math.round(tl.length * titleSize * 1.3);
    const ml = wrapText(message, innerW, msgSize, this.measure);
    const al = wrapText(always, innerW - d(40), msgSize, this.measure);
    const checkH = Math.max(d(MIN_TOUCH_DP), Math.round(al.length * msgSize * 1.4));
    const midH = d(12) + Math.round(ml.length * msgSize * 1.5) + d(8) + checkH;
    const ch = Math.min(headH + midH + footH, avail);
    const cy = Math.max(statusH + d(16), Math.round((bottomLimit - ch) / 2));
    this.ops.push({ op: "rect", x: cx, y: cy, w: cw, h: ch, fill: SYS.surface, r: d(28) });
    const root = node({ cls: "android.widget.FrameLayout", pkg, bounds: [cx, cy, cx + cw, cy + ch] });
    const panel = node({ cls: "android.widget.LinearLayout", pkg, resId: "android:id/parentPanel", bounds: [cx, cy, cx + cw, cy + ch] });
    root.children.push(panel);
    const width = (lines: string[], size: number, bold: boolean) => Math.round(Math.min(innerW, Math.max(1, ...lines.map((l) => this.measure(l, size, bold)))));
    const tTop = cy + d(24);
    tl.forEach((ln, i) => this.ops.push({ op: "text", x: innerX, y: tTop + titleSize * 1.05 + i * titleSize * 1.3, text: ln, size: titleSize, color: SYS.title, bold: true }));
    panel.children.push(node({ cls: "android.widget.TextView", pkg, resId: "android:id/alertTitle", text: title, bounds: [innerX, tTop, innerX + width(tl, titleSize, true), cy + headH] }));
    const midView = ch - headH - footH;
    this.dialogMiddle(panel, pkg, { x: cx, w: cw, top: cy + headH, height: midView }, midH, { key: "usb", offset: prompt.scroll ?? 0 }, (y0) => {
      let y = y0 + d(12);
      const mTop = y;
      ml.forEach((ln, i) => this.ops.push({ op: "text", x: innerX, y: y + msgSize * 1.05 + i * msgSize * 1.5, text: ln, size: msgSize, color: SYS.body }));
      y += Math.round(ml.length * msgSize * 1.5);
      const messageNode = node({ cls: "android.widget.TextView", pkg, resId: "android:id/message", text: message, bounds: [innerX, mTop, innerX + width(ml, msgSize, false), y] });
      y += d(8);
      const box = d(18);
      const boxY = y + Math.round((checkH - box) / 2);
      this.ops.push({ op: "rect", x: innerX + d(3), y: boxY, w: box, h: box, fill: prompt.alwaysAllow ? SYS.accent : undefined, stroke: prompt.alwaysAllow ? SYS.accent : SYS.body, lw: d(2), r: d(2) });
      if (prompt.alwaysAllow) this.ops.push({ op: "icon", name: "check", cx: innerX + d(3) + box / 2, cy: boxY + box / 2, size: box, color: "#ffffff" });
      const aTop = y + Math.round((checkH - al.length * msgSize * 1.4) / 2);
      al.forEach((ln, i) => this.ops.push({ op: "text", x: innerX + d(40), y: aTop + msgSize * 1.05 + i * msgSize * 1.4, text: ln, size: msgSize, color: SYS.title }));
      const checkNode = node({ cls: "android.widget.CheckBox", pkg, resId: "android:id/alwaysUse", text: always, bounds: [innerX, y, innerX + innerW, y + checkH], checkable: true, checked: prompt.alwaysAllow, clickable: true, focusable: true, onTap: { type: "usbAlwaysAllow" } });
      return [messageNode, checkNode];
    });
    const buttons = [
      { resId: "android:id/button2", label: "Cancel", style: "text" as const, onTap: { type: "usb" as const, allow: false } },
      { resId: "android:id/button1", label: "Allow", style: "text" as const, onTap: { type: "usb" as const, allow: true } },
    ];
    panel.children.push(...this.dialogButtons(buttons, pkg, innerX, innerW, cy + headH + midView + d(12), side, SYS.accent).nodes);
    this.layers.push({ name: "usb", area: [0, 0, W, H], root, modal: true, outside: { type: "block" } });
    return root;
  }

  // ---------- notification shade ----------
  shade(navH: number): ViewNode {
    const { W, H } = this;
    const d = (n: number) => this.dp(n);
    const q = this.input.shade!;
    const pkg = "com.android.systemui";
    this.ops.push({ op: "rect", x: 0, y: 0, w: W, h: H - navH, fill: "#000000aa" });
    const panelH = d(300);
    this.ops.push({ op: "rect", x: 0, y: 0, w: W, h: panelH, fill: "#1f1f24", r: [0, 0, d(28), d(28)] });
    this.ops.push({ op: "text", x: d(24), y: d(72), text: this.input.clock, size: this.sp(36), color: "#ffffff" });
    this.ops.push({ op: "text", x: d(24), y: d(100), text: this.input.date, size: this.sp(14), color: "#c4c7c5" });
    const root = node({ cls: "android.widget.FrameLayout", pkg, resId: `${pkg}:id/notification_panel`, bounds: [0, 0, W, panelH] });
    const tiles: [string, "wifi_on" | "bluetooth_on" | "airplane_mode_on", boolean][] = [
      ["Internet", "wifi_on", q.wifi],
      ["Bluetooth", "bluetooth_on", q.bluetooth],
      ["Airplane mode", "airplane_mode_on", q.airplane],
    ];
    const tw = (W - d(24) * 2 - d(12) * 2) / 3;
    tiles.forEach(([label, key, on], i) => {
      const x = d(24) + i * (tw + d(12));
      const y = d(124);
      const h = d(64);
      this.ops.push({ op: "rect", x, y, w: tw, h, fill: on ? "#a8c7fa" : "#333438", r: d(20) });
      this.ops.push({ op: "text", x: x + d(16), y: y + d(28), text: this.fit(label, tw - d(24), this.sp(14), true), size: this.sp(14), color: on ? "#062e6f" : "#e3e3e3", bold: true });
      this.ops.push({ op: "text", x: x + d(16), y: y + d(48), text: on ? "On" : "Off", size: this.sp(12), color: on ? "#062e6f" : "#c4c7c5" });
      root.children.push(node({ cls: "android.widget.Switch", pkg, text: label, desc: label, bounds: [Math.round(x), y, Math.round(x + tw), y + h], clickable: true, focusable: true, checkable: true, checked: on, onTap: { type: "quickSetting", key } }));
    });
    this.ops.push({ op: "text", x: W / 2, y: d(250), text: "No notifications", size: this.sp(14), color: "#c4c7c5", align: "center" });
    root.children.push(node({ cls: "android.widget.TextView", pkg, text: "No notifications", bounds: [Math.round(W / 2 - d(80)), d(234), Math.round(W / 2 + d(80)), d(258)] }));
    this.layers.push({ name: "shade", area: [0, 0, W, panelH], root, modal: true, outside: { type: "closeShade" } });
    return root;
  }

  // ---------- keyboard ----------
  keyboard(top: number, h: number): void {
    const { W } = this;
    const d = (n: number) => this.dp(n);
    this.ops.push({ op: "rect", x: 0, y: top, w: W, h, fill: C.keyboardBg });
    this.ops.push({ op: "text", x: W / 2, y: top + d(28), text: this.input.keyboard.label, size: this.sp(13), color: C.sub, align: "center" });
    if (this.input.keyboard.adb) {
      const bar = node({ cls: "android.widget.FrameLayout", pkg: "com.android.adbkeyboard", bounds: [0, top, W, top + h] });
      this.layers.push({ name: "keyboard", area: [0, top, W, top + h], root: bar, modal: true, outside: { type: "block" } });
      return;
    }
    const root = node({ cls: "android.widget.FrameLayout", pkg: "com.android.inputmethod.latin", bounds: [0, top, W, top + h] });
    const rows = ["qwertyuiop", "asdfghjkl", "⇧zxcvbnm⌫", "?, .⏎"];
    const rowH = Math.min(d(58), Math.floor((h - d(52)) / 4));
    let y = top + d(44);
    const keyW = W / 10;
    rows.forEach((row, ri) => {
      const keys = [...row];
      let x = ri === 1 ? keyW / 2 : 0;
      for (const k of keys) {
        let w = keyW;
        if (ri === 2 && (k === "⇧" || k === "⌫")) w = keyW * 1.5;
        if (ri === 3) w = k === " " ? keyW * 5 : k === "⏎" || k === "?" ? keyW * 1.5 : keyW;
        const dark = "⇧⌫?⏎".includes(k);
        this.ops.push({ op: "rect", x: x + d(3), y: y + d(4), w: w - d(6), h: rowH - d(8), fill: k === "⏎" ? "#1a73e8" : dark ? C.keyDark : C.key, r: d(6) });
        const label = k === "?" ? "?123" : k === " " ? "" : k;
        if (label) this.ops.push({ op: "text", x: x + w / 2, y: y + rowH / 2 + this.sp(20) * 0.36, text: label, size: this.sp(k === "?" ? 14 : 20), color: k === "⏎" ? "#ffffff" : C.text, align: "center" });
        const key = k === "⌫" ? "DEL" : k === "⏎" ? "ENTER" : k === "⇧" || k === "?" ? "NOOP" : k;
        root.children.push(node({ cls: "android.widget.Button", pkg: "com.android.inputmethod.latin", text: key, bounds: [Math.round(x), y, Math.round(x + w), y + rowH], clickable: true, onTap: { type: "key", key } }));
        x += w;
      }
      y += rowH;
    });
    this.layers.push({ name: "keyboard", area: [0, top, W, top + h], root, modal: true, outside: { type: "block" } });
  }
}

/** Clips a subtree to the viewport the way uiautomator reports visible bounds; drops what is off screen. */
export function clipTree(n: ViewNode, viewport: Rect): ViewNode | null {
  const r = intersect(n.bounds, viewport);
  if (!r) return null;
  const children = n.children.map((c) => clipTree(c, viewport)).filter((c): c is ViewNode => c !== null);
  return { ...n, bounds: r, children };
}
