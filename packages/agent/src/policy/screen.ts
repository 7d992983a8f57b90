// What a person sees around the control an action lands on: its label, the dialog or screen it sits in (title,
// message, the other buttons), the amounts shown there and the fields on it. Pure functions over the UI tree.
import type { UiNode } from "../ports.ts";
import { findAmounts } from "./amounts.ts";
import { isKeyboardPackage } from "./apps.ts";

/** Texts longer than this are content (a post, a mail), not the name of what a control does. */
export const MAX_CONTROL_LABEL = 60;
/** Pane texts longer than this are content, not a dialog's title or message. */
const MAX_PANE_TEXT = 200;

const DIALOG = /parentPanel|dialog|alert|bottom_?sheet|design_bottom_sheet|popup|modal|contentPanel|buttonPanel/i;
/** A dialog, alert, popup or bottom sheet (by its id or class), as a screen draws one over what is under it. */
export const isDialogContainer = (n: UiNode): boolean => DIALOG.test(n.resourceId) || DIALOG.test(n.className);
export const isEditable = (n: UiNode): boolean => /EditText|TextField|AutoComplete|SearchView/i.test(n.className);
export const isWebView = (n: UiNode): boolean => /WebView/i.test(n.className);
/** A button with a text label (an icon-only button, a toggle or a check box is not one). */
export const isButtonLike = (n: UiNode): boolean => /Button/i.test(n.className) && !/Radio|Toggle|Compound|CheckBox|Switch|ImageButton/i.test(n.className);
/** Slide-to-confirm and hold-to-confirm controls (a seek bar, a slider, a swipe button). */
export const isSlideControl = (n: UiNode): boolean => /SeekBar|Slider|Swipe|SlideToConfirm|HoldButton/i.test(n.className) || /(^| )(slide|swipe|hold)( |$)/.test(idWords(n.resourceId));

/** The chain from the root to `target` (inclusive), or [target] when it is not in the tree. */
export function pathTo(tree: UiNode | null | undefined, target: UiNode): UiNode[] {
  if (!tree) return [target];
  const path: UiNode[] = [];
  const walk = (n: UiNode): boolean => {
    path.push(n);
    if (n === target) return true;
    for (const c of n.children) if (walk(c)) return true;
    path.pop();
    return false;
  };
  return walk(tree) ? path : [target];
}

/** Visible words of a node and its descendants (a button's label often sits in a child), at most three parts. */
export function labelOf(n: UiNode): string {
  const parts: string[] = [];
  const walk = (x: UiNode, depth: number) => {
    if (parts.length >= 3) return;
    for (const t of [x.text, x.contentDesc]) if (t && t.trim() && !parts.includes(t.trim())) parts.push(t.trim());
    if (depth < 3) for (const c of x.children) walk(c, depth + 1);
  };
  walk(n, 0);
  return parts.join(" ");
}

/** Ids like "btn_payNow" or "com.shop:id/pay_button" as words; "" when they only say "button 2". */
export function idWords(id: string): string {
  const w = id
    .replace(/^.*[:/]/, "")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .toLowerCase()
    .trim();
  const meaningful = w.split(" ").filter((t) => t && !GENERIC_ID_WORDS.has(t) && !/^\d+$/.test(t) && t.length > 1);
  return meaningful.length ? w : "";
}
const GENERIC_ID_WORDS = new Set(["btn", "button", "action", "icon", "iv", "img", "image", "imageview", "view", "fab", "item", "ib", "menu", "right", "left", "top", "bottom", "container", "layout", "root", "frame", "widget", "toolbar", "bar", "tv", "text", "id", "main", "content", "field", "input", "edit", "et", "ll", "rl", "cl"]);

export interface Pane {
  /** Texts of the dialog (or the screen when the control is not in one), the target's own subtree excluded;
   * `control`: the text labels another control (a sibling button), not the title or message. */
  texts: { text: string; control: boolean }[];
  /** The control sits in a dialog or bottom sheet. */
  dialog: boolean;
  /** Editable fields in the pane. */
  fields: UiNode[];
  /** The pane's buttons in reading order, the target among them. */
  buttons: UiNode[];
  /** The dialog or sheet (or the screen's root). */
  container: UiNode;
}

/** The dialog or sheet the target sits in, else the whole screen. */
export function paneOf(path: UiNode[]): Pane {
  const target = path.at(-1)!;
  let container = path[0]!;
  let dialog = false;
  for (let i = path.length - 2; i >= 0; i--)
    if (isDialogContainer(path[i]!)) {
      container = path[i]!;
      dialog = true;
      break;
    }
  const texts: Pane["texts"] = [];
  const fields: UiNode[] = [];
  const walk = (n: UiNode, control: boolean) => {
    if (isKeyboardPackage(n.packageName)) return;
    if (n === target) {
      if (isButtonLike(n) || isSlideControl(n)) buttons.push(n);
      return;
    }
    if (isEditable(n)) {
      fields.push(n);
      return;
    }
    const isControl = control || n.clickable || /Button/i.test(n.className);
    if (!control && (isButtonLike(n) || isSlideControl(n))) buttons.push(n);
    for (const t of [n.text, n.contentDesc]) if (t && t.trim() && t.length <= MAX_PANE_TEXT) texts.push({ text: t.trim(), control: isControl });
    for (const c of n.children) walk(c, isControl);
  };
  const buttons: UiNode[] = [];
  if (container !== target) walk(container, false);
  return { texts, dialog, fields, buttons, container };
}

/** The focused field (or none), for typing and Enter. */
export function focusedField(tree: UiNode | null | undefined): UiNode | undefined {
  if (!tree) return undefined;
  const stack = [tree];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.focused && isEditable(n)) return n;
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return undefined;
}

export function hasText(n: UiNode): boolean {
  if ((n.text && n.text.trim()) || (n.contentDesc && n.contentDesc.trim())) return true;
  return n.children.some(hasText);
}

/** The first amount with a currency in the text, as written ("20,00 €", "٥٠٠ ر.س", "￥399"), or null: the
 * locale-aware reading of amounts.ts (every locale's symbols, codes, separators and digits, from Intl). */
export function findAmount(text: string): string | null {
  return findAmounts(text)[0]?.raw ?? null;
}
