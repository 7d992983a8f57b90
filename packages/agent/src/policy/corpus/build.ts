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
  chk?: string;
  sl?: string;
  img?: string;
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
  /** Drawn on the screen but absent from the UI tree (a canvas, a game, a WebView whose tree is empty). */
  pixels?: CompactNode[];
}

/** One thing a person sees drawn on a blind screen: its words, where it is, and whether the action lands on it. */
export interface DrawnItem {
  text: string;
  bounds: UiNode["bounds"];
  target: boolean;
}

export interface BuiltCase {
  c: CorpusCase;
  action: Action;
  tree: UiNode;
  target?: UiNode;
  packageName: string;
  /** The case's `pixels`, laid out top to bottom like the tree; absent when the tree shows everything. */
  pixels?: DrawnItem[];
}

/** The sets of cases: `dev` (tune freely) and each sealed folder (`sealed-<date>`). */
export type CorpusSet = "dev" | `sealed-${string}`;

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
    // A platform id (android:id/message, com.android.permissioncontroller:id/…) is written in full; a plain one is the app's.
    const id = !n.id ? "" : n.id.includes(":") ? n.id : `${pkg}:id/${n.id}`;
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
    else if (n.chk !== undefined) out = node(pkg, { text: n.chk, resourceId: id, className: "android.widget.CheckBox", checkable: true, clickable: true, focusable: true });
    else if (n.sl !== undefined) out = node(pkg, { contentDesc: n.sl, resourceId: id, className: "android.widget.SeekBar", clickable: true, focusable: true, longClickable: true });
    else if (n.img !== undefined) out = node(pkg, { contentDesc: n.img, resourceId: id, className: "android.widget.ImageView" });
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
  const pixels = c.pixels ? drawnItems(c.pixels) : undefined;
  return { c, action, tree, ...(target ? { target } : {}), packageName: c.app, ...(pixels ? { pixels } : {}) };
}

/** A blind screen's drawn nodes as a person sees them: each leaf's words, one line under the other. */
function drawnItems(nodes: CompactNode[]): DrawnItem[] {
  const out: DrawnItem[] = [];
  const walk = (n: CompactNode): void => {
    const inner = n.row ?? n.dlg ?? n.sheet ?? n.web ?? n.ime;
    if (inner) return inner.forEach(walk);
    const text = n.t ?? n.b ?? n.i ?? n.e ?? n.sw ?? n.chk ?? n.sl ?? n.img ?? n.key ?? "";
    const top = out.length * 60;
    out.push({ text, bounds: { left: 0, top, right: 1080, bottom: top + 60 }, target: Boolean(n.target) });
  };
  nodes.forEach(walk);
  return out;
}

/** Every case of every language file of one set (a folder next to this file). */
export function loadCorpus(set: CorpusSet = "dev"): CorpusCase[] {
  if (!/^(dev|sealed-[0-9a-z-]+)$/.test(set)) throw new Error(`corpus set "${set}" is neither "dev" nor a sealed folder's name (sealed-<date>)`);
  const dir = new URL(`./${set}/`, import.meta.url);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .flatMap((f) => JSON.parse(readFileSync(new URL(f, dir), "utf8")) as CorpusCase[]);
}
