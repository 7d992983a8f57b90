// Enter on the keyboard (or the keyboard's own Enter key) submits the focused field: a search searches, a message
// field sends, and so does any field whose keyboard shows a Send key (the IME action the app asked for).
import type { UiNode } from "../ports.ts";
import { isKeyboardPackage } from "./apps.ts";
import { prepare, type Prepared } from "./match.ts";
import { commitRisk } from "./commit.ts";
import { idWords, labelOf, paneOf, pathTo } from "./screen.ts";
import { q, type Scene, type Verdict } from "./verdict.ts";

function fieldWords(f: UiNode): Prepared {
  return prepare(`${f.text} ${f.contentDesc} ${idWords(f.resourceId)}`);
}

/** The keys of the on-screen keyboard that can be its Enter key, as labelled ("Send", "Search", "Поиск", "Go",
 * "Done"): the Enter key's words, or a search word (Gboard labels its search action "Поиск", "חיפוש"…). */
export function imeEnterKeys(s: Scene): string[] {
  const found: string[] = [];
  const walk = (n: UiNode, inKeyboard: boolean): void => {
    const k = inKeyboard || isKeyboardPackage(n.packageName);
    if (k && n.clickable) {
      const label = labelOf(n);
      const p = label ? prepare(label) : null;
      if (p && (s.w.lists.enterKeys.isWhole(p) || s.w.lists.newlineKeys.isWhole(p) || s.w.lists.searchField.isWhole(p))) found.push(label);
    }
    for (const c of n.children) walk(c, k);
  };
  if (s.tree) walk(s.tree, false);
  return found;
}

export function judgeEnter(s: Scene, v: Verdict, field: UiNode | undefined, via: string): void {
  if (!field) {
    v.normal("enter.no-field", `${via} with no focused field`);
    v.doubt("no focused field: what Enter submits cannot be read");
    return;
  }
  // The key the app asked the keyboard for says what Enter does: a Search key ("Buscar", "جستجو", "ค้นหา") runs a
  // search even in a messaging app's field whose own words say nothing, and a keyboard has no Call key, so Turkish
  // "Ara" (search, and call) on it searches. A Send key anywhere on the keyboard wins over a search word beside it
  // (a toolbar's "Search GIFs" is no Enter key).
  const keys = imeEnterKeys(s);
  const searching = (k: string) => s.w.lists.searchField.find(prepare(k)) !== null;
  const sendKey = keys.find((k) => !searching(k) && s.w.verbs.get("communication")!.find(prepare(k)) !== null) ?? null;
  const key = sendKey ?? keys.find(searching) ?? keys[0] ?? null;
  const keySends = sendKey !== null;
  const keySearches = !keySends && key !== null && searching(key);
  // "改行", "换行", "Neue Zeile": a keyboard whose Enter key breaks the line (the app asked for no action, as a
  // multi-line message field does) types a line break; sending is the app's own Send button.
  const newline = !keySends && !keySearches && key !== null && s.w.lists.newlineKeys.isWhole(prepare(key));
  if (newline) {
    v.normal("enter.newline", `${via} types a line break (the keyboard's Enter key says ${q(key)})`);
    return;
  }
  const fp = fieldWords(field);
  if (!keySends && (keySearches || s.w.lists.searchField.find(fp))) {
    v.normal("enter.search", keySearches ? `${via} runs a search (the keyboard's Enter key says ${q(key!)})` : `${via} runs a search`);
    return;
  }
  v.commitShaped = true;
  if (keySends) {
    v.raise("high_risk", "communication", "enter.ime-send", `${via} in a field whose keyboard Enter key says ${q(key!)}: it sends ${q(field.text || idWords(field.resourceId))}`);
    return;
  }
  if (s.w.lists.composeField.find(fp) || s.appCat === "messaging" || s.appCat === "social" || s.appCat === "email") {
    v.raise("high_risk", "communication", "enter.compose", `${via} in the message field ${q(field.text || idWords(field.resourceId))} sends it`);
    return;
  }
  // Enter in any other field submits its form, as the form's primary button would.
  commitRisk(s, v, paneOf(pathTo(s.tree, field)), via, "Enter submits the form");
  v.normal("enter.field", `${via} in a field that is neither a search nor a message`);
  v.doubt("what Enter submits in this field cannot be read");
}
