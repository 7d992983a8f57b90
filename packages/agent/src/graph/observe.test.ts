import { describe, expect, it } from "vitest";
import { formatElements, listElements, nodeAt, resolveTarget } from "./observe.ts";
import type { UiNode } from "../ports.ts";

const n = (over: Partial<UiNode>): UiNode => ({
  index: 0, text: "", resourceId: "", className: "android.view.View", packageName: "p", contentDesc: "",
  checkable: false, checked: false, clickable: false, enabled: true, focusable: false, focused: false, scrollable: false,
  longClickable: false, password: false, selected: false, bounds: { left: 0, top: 0, right: 1080, bottom: 2400 }, children: [], ...over,
});
const tree = n({
  children: [
    n({ className: "android.widget.Button", text: "Search", resourceId: "app:id/search", clickable: true, bounds: { left: 0, top: 0, right: 540, bottom: 240 } }),
    n({ className: "android.widget.Button", text: "Search tips", clickable: true, bounds: { left: 540, top: 0, right: 1080, bottom: 240 } }),
    n({ className: "android.widget.LinearLayout", clickable: true, bounds: { left: 0, top: 240, right: 1080, bottom: 480 }, children: [n({ text: "Post by Ada", bounds: { left: 0, top: 240, right: 1080, bottom: 480 } })] }),
    n({ className: "android.widget.Button", text: "Hidden", clickable: true, bounds: { left: 0, top: 3000, right: 100, bottom: 3100 } }),
  ],
});

describe("observation", () => {
  it("lists visible interactive elements with 0–1000 bounds, labels from children", () => {
    const els = listElements(tree, 1080, 2400);
    expect(els.map((e) => e.text)).toEqual(["Search", "Search tips", "Post by Ada"]);
    expect(els[0]!.box).toEqual([0, 0, 500, 100]);
    expect(formatElements(els).split("\n")[0]).toBe('[1] Button "Search" id=search @[0,0,500,100]');
  });
  it("resolves an element by index, id or exact text to its centre; ambiguity and absence are errors", () => {
    const els = listElements(tree, 1080, 2400);
    expect(resolveTarget({ element: "3" }, els, 1080, 2400)).toMatchObject({ ok: true, px: { x: 540, y: 360 } });
    expect(resolveTarget({ element: "search" }, els, 1080, 2400)).toMatchObject({ ok: true, px: { x: 270, y: 120 } });
    expect(resolveTarget({ element: "Search" }, els, 1080, 2400)).toMatchObject({ ok: true, px: { x: 270, y: 120 } });
    expect(resolveTarget({ element: "Sea" }, els, 1080, 2400)).toMatchObject({ ok: false });
    expect(resolveTarget({ element: "99" }, els, 1080, 2400)).toMatchObject({ ok: false });
    expect(resolveTarget({ x: 500, y: 500 }, els, 1080, 2400)).toMatchObject({ ok: true, px: { x: 540, y: 1200 } });
  });
  it("finds the clickable node an action lands on", () => {
    expect(nodeAt(tree, { x: 500, y: 300 })!.className).toBe("android.widget.LinearLayout");
    expect(nodeAt(tree, { x: 600, y: 100 })!.text).toBe("Search tips");
  });
});
