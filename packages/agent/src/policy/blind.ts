// Screens whose UI tree is blind — a WebView or canvas with no nodes, a game, a secure window whose tree is empty —
// and what a person sees on them instead: the words OCR read from the screenshot, laid into the tree as text
// nodes in reading order, the one under the tap point taking the place of the target. The decision then reads
// them like the tree's own text. Pure functions.
import type { OcrReading, UiNode } from "../ports.ts";
import { hasText, isWebView } from "./screen.ts";

type Bounds = UiNode["bounds"];


/** Views that draw their own content, so the tree has no nodes for what they show. */
const DRAWS_ITSELF = /WebView|SurfaceView|TextureView|GLSurfaceView|Canvas|GameView|UnityPlayer|Flutter|ComposeView|ReactRoot/i;

/** The target draws its own content and the tree has no words inside it. */
export function isBlindTarget(target: UiNode | undefined): boolean {
  if (!target || hasText(target)) return false;
  return isWebView(target) || DRAWS_ITSELF.test(target.className);
}

/** The tree shows no words at all (or there is none): a canvas, a secure window, a screen still loading. */
export function isBlindTree(tree: UiNode | null | undefined): boolean {
  return !tree || !hasText(tree);
}

const inside = (b: Bounds, p: { x: number; y: number }) => p.x >= b.left && p.x < b.right && p.y >= b.top && p.y < b.bottom;
const area = (b: Bounds) => Math.max(1, (b.right - b.left) * (b.bottom - b.top));

/** The tap point in screen pixels: given, or the action's 0–1000 point on the tree's root (the screen). */
export function tapPoint(point: { x: number; y: number } | undefined, action: { x?: number; y?: number }, tree: UiNode | null | undefined, ocr: OcrReading): { x: number; y: number } | null {
  if (point) return point;
  if (action.x === undefined || action.y === undefined) return null;
  const screen = tree?.bounds ?? ocr.items.reduce((b, i) => ({ left: 0, top: 0, right: Math.max(b.right, i.bounds.right), bottom: Math.max(b.bottom, i.bounds.bottom) }), { left: 0, top: 0, right: 1, bottom: 1 });
  return { x: (action.x / 1000) * (screen.right - screen.left) + screen.left, y: (action.y / 1000) * (screen.bottom - screen.top) + screen.top };
}

/** The OCR items as nodes of a tree beside the sensed one, in reading order (rows top to bottom, left to right);
 * the item under the point becomes a button, the target. */
export function treeWithReading(tree: UiNode | null | undefined, ocr: OcrReading, point: { x: number; y: number } | null, packageName: string): { tree: UiNode; target?: UiNode } {
  const items = ocr.items.filter((i) => i.text.trim());
  const rowOf = (b: Bounds) => Math.round((b.top + b.bottom) / 2 / 24);
  items.sort((a, b) => rowOf(a.bounds) - rowOf(b.bounds) || a.bounds.left - b.bounds.left);
  const under = point ? items.filter((i) => inside(i.bounds, point)).sort((a, b) => area(a.bounds) - area(b.bounds))[0] : undefined;
  let target: UiNode | undefined;
  const nodes = items.map((i, index): UiNode => {
    const n = node(packageName, index, i.bounds, { text: i.text.trim(), ...(i === under ? { className: "android.widget.Button", clickable: true } : {}) });
    if (i === under) target = n;
    return n;
  });
  const screen = tree?.bounds ?? { left: 0, top: 0, right: 0, bottom: 0 };
  const overlay = node(packageName, 0, screen, { className: "android.widget.FrameLayout", children: nodes });
  const root = node(packageName, 0, screen, { className: "android.widget.FrameLayout", children: tree ? [tree, overlay] : [overlay] });
  return { tree: root, ...(target ? { target } : {}) };
}

function node(packageName: string, index: number, bounds: Bounds, over: Partial<UiNode>): UiNode {
  return {
    index, text: "", resourceId: "", className: "android.widget.TextView", packageName, contentDesc: "", checkable: false, checked: false,
    clickable: false, enabled: true, focusable: false, focused: false, scrollable: false, longClickable: false, password: false, selected: false,
    bounds, children: [], ...over,
  };
}
