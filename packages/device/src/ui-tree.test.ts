import { describe, expect, it } from "vitest";
import { centerOf, findUiNodes, flattenUiTree, normaliseUiText, parseBounds, parseUiTree, UiTreeParseError } from "./ui-tree.ts";

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
    expect(() => parseUiTree(`<hierarchy><node bounds="[0,0][1,1]"></hierarchy>`)).toThrow(/not well-formed XML: .*unexpected close tag/);
  });

  it("rejects malformed XML with a UiTreeParseError naming the problem", () => {
    const malformed = [
      `<hierarchy><node text="a"></nod></hierarchy>`, // mismatched end tag
      `<hierarchy><node text="a &nbsp; b"/></hierarchy>`, // entity XML does not define
      `<hierarchy><node text="a < b"/></hierarchy>`, // raw "<" inside an attribute
      `<hierarchy><node text="a" text="b"/></hierarchy>`, // duplicate attribute
      `<hierarchy><node text="unterminated/></hierarchy>`,
      `<hierarchy><node text="&#0;"/></hierarchy>`, // not an XML character
    ];
    for (const xml of malformed) {
      expect(() => parseUiTree(xml), xml).toThrow(UiTreeParseError);
      expect(() => parseUiTree(xml), xml).toThrow(/not well-formed XML/);
    }
  });

  it("decodes entities and character references per XML, then turns line breaks and control characters into spaces", () => {
    const xml = `<hierarchy rotation="0"><node text="line one&#10;line two&#13;&#10;line three" content-desc="tab&#9;here&#x85;nel&#x2028;ls" bounds="[0,0][1,1]"><node text="&lt;b&gt; &amp;amp; &quot;q&quot; &apos;a&apos;" content-desc="raw
newline" bounds="[0,0][1,1]"/></node></hierarchy>`;
    const root = parseUiTree(xml);
    expect(root.text).toBe("line one line two line three");
    expect(root.contentDesc).toBe("tab here nel ls");
    expect(root.children[0]!.text).toBe(`<b> &amp; "q" 'a'`);
    // XML's attribute-value normalisation: a literal newline inside the quotes is already a space.
    expect(root.children[0]!.contentDesc).toBe("raw newline");
    for (const n of flattenUiTree(root)) expect(`${n.text}${n.contentDesc}`).not.toMatch(/[\n\r\t\u0085\u2028]/);
  });

  it("keeps CJK, emoji (literal and as references) and combining marks intact", () => {
    const xml = `<hierarchy><node text="手机智能体 🚀 &#x1F680; &#128512;" content-desc="e\u0301 한국어 العربية" bounds="[0,0][1,1]"/></hierarchy>`;
    const node = parseUiTree(xml);
    expect(node.text).toBe("手机智能体 🚀 🚀 😀");
    expect(node.contentDesc).toBe("e\u0301 한국어 العربية");
  });

  it("normaliseUiText collapses each run of control characters to one space", () => {
    expect(normaliseUiText("a\r\n\r\nb\u0000c\u007fd")).toBe("a b c d");
    expect(normaliseUiText("plain ✓")).toBe("plain ✓");
  });

  it("reads a huge dump: 20,000 nodes, some nested 500 deep", () => {
    const leaf = (i: number) => `<node index="${i}" text="item ${i} &amp; more&#10;" class="android.widget.TextView" bounds="[0,${i}][1080,${i + 1}]"/>`;
    const rows = Array.from({ length: 19_500 }, (_, i) => leaf(i)).join("");
    const deep = `${`<node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">`.repeat(500)}${"</node>".repeat(500)}`;
    const xml = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node class="root" bounds="[0,0][1080,2400]">${rows}${deep}</node></hierarchy>`;
    expect(xml.length).toBeGreaterThan(2_000_000);
    const root = parseUiTree(xml);
    const all = flattenUiTree(root);
    expect(all).toHaveLength(1 + 19_500 + 500);
    expect(all[19_500]).toMatchObject({ index: 19_499, text: "item 19499 & more ", bounds: { left: 0, top: 19_499, right: 1080, bottom: 19_500 } });
  });

  it("parses bounds and tolerates junk", () => {
    expect(parseBounds("[-5,10][20,30]")).toEqual({ left: -5, top: 10, right: 20, bottom: 30 });
    expect(parseBounds("nope")).toEqual({ left: 0, top: 0, right: 0, bottom: 0 });
  });
});
