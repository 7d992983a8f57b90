// Expands a corpus case (compact screen notation, see README.md) into the UI tree, target and action the executor
// would hand to the policy.
import { readdirSync, readFileSync } from "node:fs";
import type { Action } from "../../actions/schema.ts";
import type { UiNode } from "../../ports.ts";
import { focusedField } from "../screen.ts";

export interface CompactNode {
  t?: string;
  b?: string;
  i?: string;
  e?: string;
  sw?: string;
  key?: string;
  row?: CompactNode[];
  dlg?: CompactNode[];
  sheet?: CompactNode[];
  web?: CompactNode[];
  ime?: CompactNode[];
  id?: string;
  pw?: 1;
  f?: 1;
  k?: 1;
  target?: 1;
}

export interface CorpusCase {
  id: string;
  lang: string;
  label: "risky" | "benign";
  category: string;
  app: string;
  action?: Partial<Action> & { type: Action["type"] };
  intent?: string;
  screen: CompactNode[];
}

export interface BuiltCase {
  c: CorpusCase;
  action: Action;
  tree: UiNode;
  target?: UiNode;
  packageName: string;
}

const KEYBOARD = "com.google.android.inputmethod.latin";

export function buildCase(c: CorpusCase): BuiltCase {
  let y = 0;
  let index = 0;
  let target: UiNode | undefined;
  const node = (pkg: string, over: Partial<UiNode>): UiNode => {
    const top = y;
    y += 60;
    return {
      index: index++, text: "", resourceId: "", className: "android.widget.TextView", packageName: pkg, contentDesc: "",
      checkable: false, checked: false, clickable: false, enabled: true, focusable: false, focused: false, scrollable: false,
      longClickable: false, password: false, selected: false, bounds: { left: 0, top, right: 1080, bottom: top + 60 }, children: [], ...over,
    };
  };
  const expand = (n: CompactNode, pkg: string): UiNode => {
    const id = n.id ? `${pkg}:id/${n.id}` : "";
    let out: UiNode;
    if (n.t !== undefined) out = node(pkg, { text: n.t, resourceId: id, clickable: Boolean(n.k) });
    else if (n.b !== undefined) out = node(pkg, { text: n.b, resourceId: id, className: "android.widget.Button", clickable: true, focusable: true });
    else if (n.i !== undefined) out = node(pkg, { contentDesc: n.i, resourceId: id, className: "android.widget.ImageButton", clickable: true, focusable: true });
    else if (n.e !== undefined) out = node(pkg, { text: n.e, resourceId: id, className: "android.widget.EditText", clickable: true, focusable: true, focused: Boolean(n.f), password: Boolean(n.pw) });
    else if (n.sw !== undefined)
      out = node(pkg, {
        className: "android.widget.LinearLayout", clickable: true, resourceId: id,
        children: [node(pkg, { text: n.sw, resourceId: "android:id/title" }), node(pkg, { className: "android.widget.Switch", checkable: true, resourceId: "android:id/switch_widget" })],
      });
    else if (n.key !== undefined) out = node(KEYBOARD, { contentDesc: n.key, className: "android.widget.FrameLayout", clickable: true, resourceId: `${KEYBOARD}:id/key_pos_${index}` });
    else if (n.row) out = node(pkg, { className: "android.widget.LinearLayout", resourceId: id, children: n.row.map((x) => expand(x, pkg)) });
    else if (n.dlg) out = node(pkg, { className: "android.widget.FrameLayout", resourceId: "android:id/parentPanel", children: n.dlg.map((x) => expand(x, pkg)) });
    else if (n.sheet) out = node(pkg, { className: "android.widget.FrameLayout", resourceId: `${pkg}:id/design_bottom_sheet`, children: n.sheet.map((x) => expand(x, pkg)) });
    else if (n.web) out = node(pkg, { className: "android.webkit.WebView", clickable: true, focusable: true, children: n.web.map((x) => expand(x, pkg)) });
    else if (n.ime) out = node(KEYBOARD, { className: "android.widget.FrameLayout", resourceId: `${KEYBOARD}:id/keyboard_holder`, children: n.ime.map((x) => expand(x, KEYBOARD)) });
    else throw new Error(`corpus case ${c.id}: a node of unknown shape ${JSON.stringify(n)}`);
    if (n.target) target = out;
    return out;
  };
  const children = c.screen.map((n) => expand(n, c.app));
  const tree = node(c.app, { className: "android.widget.FrameLayout", bounds: { left: 0, top: 0, right: 1080, bottom: 2400 }, children });
  const action = { type: "click", x: 500, y: 500, ...c.action, ...(c.intent ? { intent: c.intent } : {}) } as Action;
  if (action.type !== "click" && action.type !== "click_then_type" && action.type !== "double_tap" && action.type !== "long_press") {
    delete (action as { x?: number }).x;
    delete (action as { y?: number }).y;
  }
  if ((action.type === "keyboard_enter" || action.type === "input_text") && !target) target = focusedField(tree);
  return { c, action, tree, ...(target ? { target } : {}), packageName: c.app };
}

/** Every case of every language file in this folder. */
export function loadCorpus(): CorpusCase[] {
  const dir = new URL(".", import.meta.url);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .flatMap((f) => JSON.parse(readFileSync(new URL(f, dir), "utf8")) as CorpusCase[]);
}
