// Sensing and the UI tree: the compact element list the model sees, and resolving an element or a point to a node.
import type { Bounds, Foreground, Screenshot, UiNode } from "../ports.ts";
import type { NormPoint } from "../actions/schema.ts";

export interface ElementRef {
  /** Index shown to the model, e.g. [7]. */
  index: number;
  text: string;
  resourceId: string;
  className: string;
  clickable: boolean;
  scrollable: boolean;
  editable: boolean;
  /** A password field (the UI tree says so): what is typed into it is masked wherever a run is shared. */
  password?: boolean;
  /** Bounds normalised to 0–1000. */
  box: [number, number, number, number];
  /** Bounds in device pixels. */
  bounds: Bounds;
}

export interface Observation {
  screenshot: Screenshot;
  tree: UiNode | null;
  foreground: Foreground | null;
  elements: ElementRef[];
}

const MAX_ELEMENTS = 40;
/** Labels of controls are short; text blocks keep more, since reading them is often the task. */
const MAX_LABEL = 48;
const MAX_TEXT = 160;

function label(n: UiNode): string {
  const own = n.text || n.contentDesc;
  if (own) return own;
  // A clickable container usually carries its label in a child.
  const parts: string[] = [];
  const walk = (x: UiNode, d: number) => {
    if (parts.length >= 3 || d > 3) return;
    for (const c of x.children) {
      const t = c.text || c.contentDesc;
      if (t) parts.push(t);
      else walk(c, d + 1);
    }
  };
  walk(n, 0);
  return parts.join(" ");
}

function clip(s: string, n: number): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > n ? flat.slice(0, n - 1) + "…" : flat;
}

function visible(b: Bounds, w: number, h: number): boolean {
  return b.right > b.left && b.bottom > b.top && b.right > 0 && b.bottom > 0 && b.left < w && b.top < h;
}

/** Visible interactive elements, top-to-bottom, at most 40. */
export function listElements(tree: UiNode | null, width: number, height: number): ElementRef[] {
  if (!tree) return [];
  const out: ElementRef[] = [];
  const seen = new Set<string>();
  const walk = (n: UiNode, insideClickable: boolean) => {
    const editable = /EditText|TextField/i.test(n.className);
    const interactive = n.clickable || n.longClickable || n.scrollable || editable || n.checkable;
    const text = label(n);
    const textOnly = !interactive && !insideClickable && (n.text || n.contentDesc) !== "";
    if ((interactive || textOnly) && n.enabled !== false && visible(n.bounds, width, height)) {
      const key = `${n.bounds.left},${n.bounds.top},${n.bounds.right},${n.bounds.bottom}:${text}`;
      if (!seen.has(key)) {
        seen.add(key);
        const b = n.bounds;
        out.push({
          index: 0,
          text: clip(text, interactive ? MAX_LABEL : MAX_TEXT),
          resourceId: n.resourceId,
          className: n.className.replace(/^.*\./, ""),
          clickable: n.clickable || n.longClickable || editable,
          scrollable: n.scrollable,
          editable,
          ...(n.password ? { password: true } : {}),
          bounds: b,
          box: [
            Math.round((Math.max(0, b.left) * 1000) / width),
            Math.round((Math.max(0, b.top) * 1000) / height),
            Math.round((Math.min(width, b.right) * 1000) / width),
            Math.round((Math.min(height, b.bottom) * 1000) / height),
          ],
        });
      }
    }
    for (const c of n.children) walk(c, insideClickable || n.clickable);
  };
  walk(tree, false);
  const picked = out.slice(0, MAX_ELEMENTS);
  picked.forEach((e, i) => (e.index = i + 1));
  return picked;
}

/** One line per element: `[3] Button "Search" id=search @[10,40,120,80]` (bounds 0–1000). */
export function formatElements(elements: ElementRef[]): string {
  return elements
    .map((e) => {
      const flags = [e.editable ? "editable" : "", e.scrollable ? "scrollable" : "", !e.clickable && !e.editable && !e.scrollable ? "text" : ""].filter(Boolean).join(",");
      const id = e.resourceId ? ` id=${e.resourceId.replace(/^.*:id\//, "")}` : "";
      return `[${e.index}] ${e.className}${flags ? `(${flags})` : ""} ${JSON.stringify(e.text)}${id} @[${e.box.join(",")}]`;
    })
    .join("\n");
}

export type ResolveResult = { ok: true; px: { x: number; y: number }; norm: NormPoint; element?: ElementRef } | { ok: false; message: string };

export function toPx(p: NormPoint, width: number, height: number): { x: number; y: number } {
  return { x: Math.round((p.x / 1000) * (width - 1)), y: Math.round((p.y / 1000) * (height - 1)) };
}

/** An element reference (listed index, resource id, or text) → its centre. */
export function resolveTarget(t: { x?: number; y?: number; element?: string }, elements: ElementRef[], width: number, height: number): ResolveResult {
  if (t.x !== undefined && t.y !== undefined) return { ok: true, norm: { x: t.x, y: t.y }, px: toPx({ x: t.x, y: t.y }, width, height) };
  const ref = (t.element ?? "").trim();
  let el: ElementRef | undefined;
  if (/^\d+$/.test(ref)) el = elements.find((e) => e.index === Number(ref));
  el ??= elements.find((e) => e.resourceId && (e.resourceId === ref || e.resourceId.endsWith(`/${ref}`)));
  if (!el) {
    const lower = ref.toLowerCase();
    const exact = elements.filter((e) => e.text.toLowerCase() === lower);
    const loose = exact.length ? exact : elements.filter((e) => lower.length >= 2 && e.text.toLowerCase().includes(lower));
    if (loose.length > 1 && !exact.length)
      return { ok: false, message: `Element "${ref}" is ambiguous (${loose.map((e) => `[${e.index}]`).join(", ")}); name it by its index.` };
    el = loose[0];
  }
  if (!el) return { ok: false, message: `No element "${ref}" on this screen; use an index from the element list or a point.` };
  const b = el.bounds;
  const px = { x: Math.round((b.left + b.right) / 2), y: Math.round((b.top + b.bottom) / 2) };
  return { ok: true, px, norm: { x: Math.round((px.x * 1000) / width), y: Math.round((px.y * 1000) / height) }, element: el };
}

/** The node an action at this pixel lands on: the deepest containing node, lifted to its clickable ancestor. */
export function nodeAt(tree: UiNode | null, px: { x: number; y: number }): UiNode | undefined {
  if (!tree) return undefined;
  const inside = (b: Bounds) => px.x >= b.left && px.x < b.right && px.y >= b.top && px.y < b.bottom;
  let best: UiNode | undefined;
  let bestClickable: UiNode | undefined;
  const walk = (n: UiNode, clickableAncestor: UiNode | undefined) => {
    if (!inside(n.bounds)) return;
    const ca = n.clickable || n.longClickable ? n : clickableAncestor;
    best = n;
    bestClickable = ca;
    // Later siblings are drawn on top (dialogs): visit in order and let the last hit win.
    for (const c of n.children) walk(c, ca);
  };
  walk(tree, undefined);
  return bestClickable ?? best;
}

/** The focused (or first editable) field, for keyboard_enter's permission check. */
export function focusedNode(tree: UiNode | null): UiNode | undefined {
  if (!tree) return undefined;
  let found: UiNode | undefined;
  const walk = (n: UiNode) => {
    if (found) return;
    if (n.focused) found = n;
    n.children.forEach(walk);
  };
  walk(tree);
  return found;
}
