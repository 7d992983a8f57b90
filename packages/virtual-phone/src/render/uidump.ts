// Serialises the view tree the way `uiautomator dump` writes window_dump.xml.
import type { ViewNode } from "./view.ts";

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/\n/g, "&#10;");
}

function nodeXml(n: ViewNode, index: number, out: string[]): void {
  const [l, t, r, b] = n.bounds.map((v) => Math.round(v));
  out.push(
    `<node index="${index}" text="${esc(n.text)}" resource-id="${esc(n.resId)}" class="${n.cls}" package="${n.pkg}" content-desc="${esc(n.desc)}" checkable="${n.checkable}" checked="${n.checked}" clickable="${n.clickable}" enabled="${n.enabled}" focusable="${n.focusable}" focused="${n.focused}" scrollable="${n.scrollable}" long-clickable="${n.longClickable}" password="${n.password}" selected="${n.selected}" bounds="[${l},${t}][${r},${b}]"`,
  );
  // A view that draws its content itself (a WebView without accessibility nodes): the dump has none of it.
  if (n.children.length === 0 || n.hidden) {
    out.push(" />");
    return;
  }
  out.push(">");
  n.children.forEach((c, i) => nodeXml(c, i, out));
  out.push("</node>");
}

/** The XML exactly as Android writes it: one line, no trailing newline. */
export function dumpHierarchy(root: ViewNode, rotation = 0): string {
  const out: string[] = [`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="${rotation}">`];
  nodeXml(root, 0, out);
  out.push("</hierarchy>");
  return out.join("");
}
