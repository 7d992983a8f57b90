// A person's input on the live mirror, read as the phone's own actions: where a pointer on the shown screenshot
// lands in the screenshot's pixels (the device pixels `input tap` takes) at any zoom, which gesture a press was (tap,
// long press, swipe), and the action carried out through the tab's own device connection. Pure but for `perform`.
import type { Device, UiNode } from "@phoneloop/device";

/** A point in the screenshot's pixels: the phone's own coordinates. */
export interface DevicePoint {
  x: number;
  y: number;
}

/** What a person does on the phone, in device pixels; `type` with `secret` is masked before it leaves the tab. */
export type PersonAction =
  | { type: "tap"; x: number; y: number }
  | { type: "long_press"; x: number; y: number; durationMs: number }
  | { type: "swipe"; from: DevicePoint; to: DevicePoint; durationMs: number }
  | { type: "type"; text: string; secret: boolean }
  | { type: "back" }
  | { type: "home" };

/** The shown image's box on the page (getBoundingClientRect), in CSS pixels. */
export interface ShownBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * The device pixel under a pointer at (clientX, clientY) on an image of `frame` size shown in `box`. The image keeps
 * its aspect ratio (object-fit: contain, the same as a box of the image's own shape), so any empty band around it is
 * left out. Null when the point is outside the picture itself.
 */
export function toDevicePoint(clientX: number, clientY: number, box: ShownBox, frame: { width: number; height: number }): DevicePoint | null {
  if (box.width <= 0 || box.height <= 0 || frame.width <= 0 || frame.height <= 0) return null;
  const scale = Math.min(box.width / frame.width, box.height / frame.height);
  const shownW = frame.width * scale;
  const shownH = frame.height * scale;
  const x = (clientX - box.left - (box.width - shownW) / 2) / scale;
  const y = (clientY - box.top - (box.height - shownH) / 2) / scale;
  if (x < 0 || y < 0 || x > frame.width || y > frame.height) return null;
  return { x: Math.min(frame.width - 1, Math.round(x)), y: Math.min(frame.height - 1, Math.round(y)) };
}

/** A press held at least this long without moving is a long press. */
export const LONG_PRESS_MS = 500;
/** A pointer that moved more than this many CSS pixels between down and up swiped. */
export const SWIPE_SLOP_PX = 10;

/** A press as the mirror saw it: where it went down and up, on the page (CSS px) and on the phone, and when (ms). */
export interface Press {
  down: { client: DevicePoint; device: DevicePoint; at: number };
  up: { client: DevicePoint; device: DevicePoint; at: number };
}

/** Which gesture a press was: moved → swipe (as long as the finger took, 100 ms–3 s); held → long press; else tap. */
export function gestureOf(p: Press): PersonAction {
  const held = Math.max(0, p.up.at - p.down.at);
  const moved = Math.hypot(p.up.client.x - p.down.client.x, p.up.client.y - p.down.client.y);
  if (moved > SWIPE_SLOP_PX) return { type: "swipe", from: p.down.device, to: p.up.device, durationMs: Math.round(Math.min(3000, Math.max(100, held))) };
  if (held >= LONG_PRESS_MS) return { type: "long_press", ...p.down.device, durationMs: Math.round(Math.min(10_000, held)) };
  return { type: "tap", ...p.down.device };
}

/** The focused field of a UI tree is a password field (its `password` attribute): typing there is secret. */
export function focusedIsPassword(tree: UiNode | null): boolean {
  if (!tree) return false;
  const stack = [tree];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.focused && n.password) return true;
    stack.push(...n.children);
  }
  return false;
}

/** An element a person may tap with the keyboard: a clickable node with a name, and the centre of its box. */
export interface TapTarget {
  label: string;
  x: number;
  y: number;
  password: boolean;
}

/** The clickable, named elements of a UI tree (in reading order), for tapping from a list instead of a pointer. */
export function tapTargets(tree: UiNode | null): TapTarget[] {
  if (!tree) return [];
  const out: TapTarget[] = [];
  const walk = (n: UiNode) => {
    const own = (n.text || n.contentDesc || "").trim();
    const b = n.bounds;
    if ((n.clickable || n.focusable) && n.enabled && b.right > b.left && b.bottom > b.top) {
      const label = own || childText(n) || n.resourceId.split("/").pop() || n.className.split(".").pop() || "element";
      out.push({ label: n.password ? `${label} (password field)` : label, x: Math.round((b.left + b.right) / 2), y: Math.round((b.top + b.bottom) / 2), password: n.password });
    }
    for (const c of n.children) walk(c);
  };
  walk(tree);
  return out;
}

function childText(n: UiNode): string {
  for (const c of n.children) {
    const t = (c.text || c.contentDesc || "").trim() || childText(c);
    if (t) return t;
  }
  return "";
}

/** Carries the action out on the phone through the tab's own connection. */
export async function perform(device: Device, a: PersonAction): Promise<void> {
  switch (a.type) {
    case "tap":
      return device.tap({ x: a.x, y: a.y });
    case "long_press":
      return device.longPress({ x: a.x, y: a.y }, a.durationMs);
    case "swipe":
      return device.swipe(a.from, a.to, a.durationMs);
    case "type":
      return device.typeText(a.text);
    case "back":
      return device.key("back");
    case "home":
      return device.key("home");
  }
}

/** The action in words for the person's own list of what they did (a secret text never shown). */
export function describePersonAction(a: PersonAction): string {
  switch (a.type) {
    case "tap":
      return `Tapped at ${a.x}, ${a.y}`;
    case "long_press":
      return `Pressed and held at ${a.x}, ${a.y} for ${(a.durationMs / 1000).toFixed(1)} s`;
    case "swipe":
      return `Swiped from ${a.from.x}, ${a.from.y} to ${a.to.x}, ${a.to.y}`;
    case "type":
      return a.secret ? `Typed ${"•".repeat(6)} (secret)` : `Typed “${a.text}”`;
    case "back":
      return "Pressed Back";
    case "home":
      return "Pressed Home";
  }
}
