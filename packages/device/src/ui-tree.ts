// Reader for `uiautomator dump` XML: <hierarchy rotation="0"><node index=".." bounds="[l,t][r,b]" …>…</node></hierarchy>.
// The XML itself is read by saxes (a conformant, browser-safe parser); this file maps elements to UiNodes.
import { SaxesParser } from "saxes";
import type { Bounds, UiNode } from "./device.ts";

export class UiTreeParseError extends Error {
  override name = "UiTreeParseError";
}

/**
 * Control characters (a decoded `&#10;`, `&#13;`, tabs, NEL, line and paragraph separators) become one space:
 * one node's text never spans lines of a prompt or a log.
 */
export function normaliseUiText(s: string): string {
  return s.replace(/[\p{Cc}\u2028\u2029]+/gu, " ");
}

export function parseBounds(s: string | undefined): Bounds {
  const m = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/.exec((s ?? "").trim());
  if (!m) return { left: 0, top: 0, right: 0, bottom: 0 };
  return { left: Number(m[1]), top: Number(m[2]), right: Number(m[3]), bottom: Number(m[4]) };
}

function toNode(attrs: Record<string, string>): UiNode {
  const flag = (k: string) => attrs[k] === "true";
  const value = (k: string) => normaliseUiText(attrs[k] ?? "");
  return {
    index: Number(attrs.index ?? 0) || 0,
    text: value("text"),
    resourceId: value("resource-id"),
    className: value("class"),
    packageName: value("package"),
    contentDesc: value("content-desc"),
    checkable: flag("checkable"),
    checked: flag("checked"),
    clickable: flag("clickable"),
    enabled: flag("enabled"),
    focusable: flag("focusable"),
    focused: flag("focused"),
    scrollable: flag("scrollable"),
    longClickable: flag("long-clickable"),
    password: flag("password"),
    selected: flag("selected"),
    bounds: parseBounds(attrs.bounds),
    children: [],
  };
}

function unionBounds(nodes: UiNode[]): Bounds {
  if (nodes.length === 0) return { left: 0, top: 0, right: 0, bottom: 0 };
  return {
    left: Math.min(...nodes.map((n) => n.bounds.left)),
    top: Math.min(...nodes.map((n) => n.bounds.top)),
    right: Math.max(...nodes.map((n) => n.bounds.right)),
    bottom: Math.max(...nodes.map((n) => n.bounds.bottom)),
  };
}

/**
 * Parses a uiautomator dump. Text around the XML (e.g. "UI hierchary dumped to: /dev/tty") is ignored.
 * Returns the single top node, or a synthetic `hierarchy` node holding several windows.
 * Throws UiTreeParseError for output that is not a whole, well-formed dump.
 */
export function parseUiTree(xml: string): UiNode {
  const start = xml.indexOf("<hierarchy");
  const end = xml.lastIndexOf("</hierarchy>");
  if (start === -1) {
    throw new UiTreeParseError(`Not a uiautomator dump: ${xml.trim().slice(0, 200) || "(empty output)"}`);
  }
  if (end === -1) throw new UiTreeParseError("uiautomator dump is truncated (no </hierarchy>)");
  const root = toNode({ class: "hierarchy" });
  const stack: UiNode[] = [root];
  const parser = new SaxesParser({ xmlns: false, fileName: "uiautomator dump" } as const);
  parser.on("opentag", (tag) => {
    if (tag.name !== "node") return;
    const node = toNode(tag.attributes);
    stack[stack.length - 1]!.children.push(node);
    stack.push(node);
  });
  parser.on("closetag", (tag) => {
    if (tag.name === "node") stack.pop();
  });
  try {
    parser.write(xml.slice(start, end + "</hierarchy>".length)).close();
  } catch (e) {
    throw new UiTreeParseError(`uiautomator dump is not well-formed XML: ${(e as Error).message}`, { cause: e });
  }
  if (root.children.length === 1) return root.children[0]!;
  root.bounds = unionBounds(root.children);
  return root;
}

/** Depth-first list of every node, root first. */
export function flattenUiTree(root: UiNode): UiNode[] {
  const out: UiNode[] = [];
  const walk = (n: UiNode) => {
    out.push(n);
    for (const c of n.children) walk(c);
  };
  walk(root);
  return out;
}

export function findUiNodes(root: UiNode, match: (n: UiNode) => boolean): UiNode[] {
  return flattenUiTree(root).filter(match);
}

export function centerOf(b: Bounds): { x: number; y: number } {
  return { x: Math.round((b.left + b.right) / 2), y: Math.round((b.top + b.bottom) / 2) };
}
