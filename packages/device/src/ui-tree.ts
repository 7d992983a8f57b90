// Parser for `uiautomator dump` XML: <hierarchy rotation="0"><node index=".." bounds="[l,t][r,b]" …>…</node></hierarchy>.
import type { Bounds, UiNode } from "./device.ts";

export class UiTreeParseError extends Error {
  override name = "UiTreeParseError";
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export function decodeXmlEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[body] ?? whole;
  });
}

export function parseBounds(s: string | undefined): Bounds {
  const m = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/.exec((s ?? "").trim());
  if (!m) return { left: 0, top: 0, right: 0, bottom: 0 };
  return { left: Number(m[1]), top: Number(m[2]), right: Number(m[3]), bottom: Number(m[4]) };
}

const ATTR = /([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*("([^"]*)"|'([^']*)')/g;

function parseAttributes(s: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const m of s.matchAll(ATTR)) attrs.set(m[1]!, decodeXmlEntities(m[3] ?? m[4] ?? ""));
  return attrs;
}

function toNode(attrs: Map<string, string>): UiNode {
  const flag = (k: string) => attrs.get(k) === "true";
  return {
    index: Number(attrs.get("index") ?? 0) || 0,
    text: attrs.get("text") ?? "",
    resourceId: attrs.get("resource-id") ?? "",
    className: attrs.get("class") ?? "",
    packageName: attrs.get("package") ?? "",
    contentDesc: attrs.get("content-desc") ?? "",
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
    bounds: parseBounds(attrs.get("bounds")),
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
 */
export function parseUiTree(xml: string): UiNode {
  const start = xml.indexOf("<hierarchy");
  const end = xml.lastIndexOf("</hierarchy>");
  if (start === -1) {
    throw new UiTreeParseError(`Not a uiautomator dump: ${xml.trim().slice(0, 200) || "(empty output)"}`);
  }
  const body = xml.slice(start, end === -1 ? undefined : end + "</hierarchy>".length);
  const root = toNode(new Map([["class", "hierarchy"]]));
  const stack: UiNode[] = [root];
  // Tags only: uiautomator puts all data in attributes; text content, comments and PIs are skipped.
  const TAG = /<(\/?)([A-Za-z_][-A-Za-z0-9_:.]*)((?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g;
  let sawHierarchy = false;
  for (const m of body.matchAll(TAG)) {
    const [, closing, tag, attrText, selfClosing] = m;
    if (!tag) continue;
    if (tag === "hierarchy") {
      sawHierarchy = true;
      continue;
    }
    if (tag !== "node") continue;
    if (closing) {
      if (stack.length <= 1) throw new UiTreeParseError("Unbalanced </node> in uiautomator dump");
      stack.pop();
      continue;
    }
    const node = toNode(parseAttributes(attrText ?? ""));
    stack[stack.length - 1]!.children.push(node);
    if (!selfClosing) stack.push(node);
  }
  if (!sawHierarchy) throw new UiTreeParseError("uiautomator dump has no <hierarchy> element");
  if (end === -1) throw new UiTreeParseError("uiautomator dump is truncated (no </hierarchy>)");
  if (stack.length !== 1) throw new UiTreeParseError("uiautomator dump has unclosed <node> elements");
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
