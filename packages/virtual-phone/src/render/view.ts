// The laid-out screen: a view tree (what uiautomator dumps and taps hit) and paint ops (what screencap draws).
import type { Action } from "../scenario/schema.ts";

export type Rect = [left: number, top: number, right: number, bottom: number];

export type Handler =
  | { type: "actions"; actions: Action[]; item?: unknown }
  | { type: "focus"; field: string; bind: string; item?: unknown; submit?: Action[] }
  | { type: "toggle"; bind: string; item?: unknown; actions?: Action[] }
  | { type: "launch"; app: string }
  | { type: "tab"; screen: string }
  | { type: "system"; key: "back" | "home" | "recents" }
  | { type: "key"; key: string }
  | { type: "wheel"; bind: string; values: string[]; delta: number; item?: unknown }
  | { type: "dismiss" }
  | { type: "usb"; allow: boolean }
  | { type: "usbAlwaysAllow" }
  | { type: "quickSetting"; key: "wifi_on" | "bluetooth_on" | "airplane_mode_on" }
  | { type: "closeShade" }
  | { type: "clearRecents" }
  | { type: "block" };

export interface ViewNode {
  cls: string;
  pkg: string;
  text: string;
  desc: string;
  resId: string;
  bounds: Rect;
  clickable: boolean;
  longClickable: boolean;
  checkable: boolean;
  checked: boolean;
  enabled: boolean;
  focusable: boolean;
  focused: boolean;
  scrollable: boolean;
  password: boolean;
  selected: boolean;
  children: ViewNode[];
  onTap?: Handler;
  onLongPress?: Handler;
  /** Drawn over the flowing content at a fixed place (a floating action button, an element with `bounds`): it may cover what scrolls under it. */
  overlay?: boolean;
  /** A scroll container: swipes inside it scroll this far at most. */
  scroll?: { key: string; max: number };
  /** Its children are drawn and take touches but uiautomator does not see them (a WebView without accessibility nodes). */
  hidden?: boolean;
  /** A wheel picker: vertical swipes inside it step through values. */
  wheel?: { bind: string; values: string[]; item?: unknown; step: number };
}

export type PaintOp =
  | { op: "rect"; x: number; y: number; w: number; h: number; fill?: string; stroke?: string; lw?: number; r?: number | [number, number, number, number] }
  | { op: "text"; x: number; y: number; text: string; size: number; color: string; bold?: boolean; align?: "left" | "center" | "right" }
  | { op: "circle"; cx: number; cy: number; r: number; fill?: string; stroke?: string; lw?: number }
  | { op: "line"; x1: number; y1: number; x2: number; y2: number; color: string; lw: number }
  | { op: "icon"; name: string; cx: number; cy: number; size: number; color: string }
  | { op: "gradient"; x: number; y: number; w: number; h: number; from: string; to: string }
  | { op: "clip"; x: number; y: number; w: number; h: number }
  | { op: "unclip" };

export interface Layer {
  name: string;
  /** Area that swallows touches even where no node handles them (dialogs, keyboard, bars). */
  area: Rect;
  root: ViewNode;
  /** Where a touch outside every node of a modal layer goes (e.g. the scrim around a dialog). */
  outside?: Handler;
  modal: boolean;
}

export interface ScreenLayout {
  width: number;
  height: number;
  ops: PaintOp[];
  /** Top-most first, for hit testing. */
  layers: Layer[];
  /** The window uiautomator dumps (the focused one). */
  dumpRoot: ViewNode;
}

export function node(partial: Partial<ViewNode> & { cls: string; pkg: string; bounds: Rect }): ViewNode {
  return {
    text: "",
    desc: "",
    resId: "",
    clickable: false,
    longClickable: false,
    checkable: false,
    checked: false,
    enabled: true,
    focusable: false,
    focused: false,
    scrollable: false,
    password: false,
    selected: false,
    children: [],
    ...partial,
  };
}

export function contains(r: Rect, x: number, y: number): boolean {
  return x >= r[0] && x < r[2] && y >= r[1] && y < r[3];
}

export function intersect(a: Rect, b: Rect): Rect | null {
  const r: Rect = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  return r[0] < r[2] && r[1] < r[3] ? r : null;
}

/** The deepest node under (x, y) that handles a tap, searching children last-drawn first. */
export function hitTest(root: ViewNode, x: number, y: number, want: "onTap" | "onLongPress" | "scroll" | "wheel" = "onTap"): ViewNode | null {
  if (!contains(root.bounds, x, y)) return null;
  for (let i = root.children.length - 1; i >= 0; i--) {
    const hit = hitTest(root.children[i]!, x, y, want);
    if (hit) return hit;
  }
  return root[want] && root.enabled ? root : null;
}

/** Layers that swallow a touch outside themselves (a dialog's scrim, the shade, the screen turned off). */
const CAPTURING_LAYERS = new Set(["popup", "usb", "off", "shade"]);

/**
 * Where a touch at (x, y) goes, as the window manager routes it: the node of the top-most layer under it that handles
 * the touch, or the handler for a touch outside a capturing layer, or nothing.
 */
export function touchTarget(layout: ScreenLayout, x: number, y: number, long = false): { node: ViewNode } | { outside: Handler } | null {
  for (const layer of layout.layers) {
    if (contains(layer.area, x, y)) {
      const hit = hitTest(layer.root, x, y, long ? "onLongPress" : "onTap") ?? (long ? hitTest(layer.root, x, y, "onTap") : null);
      if (hit) return { node: hit };
      if (layer.modal) return null;
    } else if (CAPTURING_LAYERS.has(layer.name)) {
      return layer.outside ? { outside: layer.outside } : null;
    }
  }
  return null;
}
