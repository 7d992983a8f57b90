import { describe, expect, it } from "vitest";
import { centerOf, findUiNodes, flattenUiTree, parseBounds, parseUiTree, UiTreeParseError } from "./ui-tree.ts";

const DUMP = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example.social" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]"><node index="0" text="Search &quot;AI&quot; &amp; more" resource-id="com.example.social:id/search" class="android.widget.EditText" package="com.example.social" content-desc="搜索" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="true" password="false" selected="false" bounds="[40,120][1040,220]" /><node index="1" text="" resource-id="com.example.social:id/feed" class="androidx.recyclerview.widget.RecyclerView" package="com.example.social" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="true" focused="false" scrollable="true" long-clickable="false" password="false" selected="false" bounds="[0,240][1080,2400]"><node index="0" text="Post &#x4E2D;&#25991; &lt;1&gt;" resource-id="" class="android.widget.TextView" package="com.example.social" content-desc="" checkable="true" checked="true" clickable="true" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="true" bounds="[0,240][1080,600]" /></node></node></hierarchy>
UI hierchary dumped to: /dev/tty`;

describe("parseUiTree", () => {
  it("builds the tree with bounds, flags and decoded text", () => {
    const root = parseUiTree(DUMP);
    expect(root.className).toBe("android.widget.FrameLayout");
    expect(root.bounds).toEqual({ left: 0, top: 0, right: 1080, bottom: 2400 });
    expect(root.children).toHaveLength(2);
    const [search, feed] = root.children;
    expect(search).toMatchObject({ text: 'Search "AI" & more', contentDesc: "搜索", clickable: true, focused: true, longClickable: true, password: false, resourceId: "com.example.social:id/search" });
    expect(feed!.scrollable).toBe(true);
    expect(feed!.children[0]).toMatchObject({ text: "Post 中文 <1>", checkable: true, checked: true, selected: true, index: 0 });
    expect(flattenUiTree(root)).toHaveLength(4);
    expect(findUiNodes(root, (n) => n.clickable).map((n) => n.className)).toEqual(["android.widget.EditText", "android.widget.TextView"]);
    expect(centerOf(search!.bounds)).toEqual({ x: 540, y: 170 });
  });

  it("wraps several top-level windows in a hierarchy node spanning them", () => {
    const xml = `<hierarchy rotation="1"><node bounds="[0,0][100,50]" class="a"/><node bounds="[0,50][100,300]" class="b"></node></hierarchy>`;
    const root = parseUiTree(xml);
    expect(root.className).toBe("hierarchy");
    expect(root.children.map((c) => c.className)).toEqual(["a", "b"]);
    expect(root.bounds).toEqual({ left: 0, top: 0, right: 100, bottom: 300 });
  });

  it("reports errors instead of returning a partial tree", () => {
    expect(() => parseUiTree("ERROR: could not get idle state.")).toThrow(UiTreeParseError);
    expect(() => parseUiTree(`<hierarchy><node bounds="[0,0][1,1]">`)).toThrow(/truncated/);
    expect(() => parseUiTree(`<hierarchy><node bounds="[0,0][1,1]"></hierarchy>`)).toThrow(/unclosed/);
  });

  it("parses bounds and tolerates junk", () => {
    expect(parseBounds("[-5,10][20,30]")).toEqual({ left: -5, top: 10, right: 20, bottom: 30 });
    expect(parseBounds("nope")).toEqual({ left: 0, top: 0, right: 0, bottom: 0 });
  });
});
