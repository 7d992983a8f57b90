// Which control commits, found from the screen's structure before any word of its label is read: the positive
// button of a platform dialog or of the permission prompt (their ids), the last button of a dialog or bottom sheet
// that does not back out (Android lays the positive button last and right-most), the primary button at the foot
// of a flow screen (the last button in reading order), and slide or hold controls. Dismissal is recognised
// positively: the negative button's ids, or a label that backs out in any of the languages (word lists).
import type { UiNode } from "../ports.ts";
import { prepare } from "./match.ts";
import { idWords, isButtonLike, isEditable, isSlideControl, labelOf, type Pane } from "./screen.ts";
import { COMMIT_CATEGORIES } from "./verdict.ts";
import { findEnding, type CompiledWords } from "./wordsets.ts";

export type ControlRole = { role: "commit" | "dismiss" | "other"; why: string; grants?: true };

/** Ids Android gives the buttons of its own dialogs and of the permission prompt. */
const POSITIVE_IDS = /^(android:id\/button1|com\.(google\.)?android\.permissioncontroller:id\/permission_allow\w*|com\.(google\.)?android\.packageinstaller:id\/(ok_button|permission_allow\w*)|android:id\/(ok|accept))$/i;
const NEGATIVE_IDS = /^(android:id\/button2|com\.(google\.)?android\.permissioncontroller:id\/(permission_deny\w*|permission_no_upgrade\w*)|com\.(google\.)?android\.packageinstaller:id\/(cancel_button|permission_deny\w*))$/i;
/** The allow buttons of the runtime permission prompt: what they commit is a grant. */
const GRANT_IDS = /^com\.(google\.)?android\.(permissioncontroller|packageinstaller):id\/permission_allow\w*$/i;
/** Words of an app's own ids for the two roles ("btn_positive", "confirm_button", "negativeButton"). */
const POSITIVE_ID_WORDS = /(^| )(positive|confirm|submit|primary|proceed|accept|agree|continue|ok)( |$)/;
const NEGATIVE_ID_WORDS = /(^| )(negative|cancel|dismiss|close|deny|decline|reject|not now|later|skip|back)( |$)/;

/** Close and back glyphs drawn as a label. */
const DISMISS_GLYPHS = /^[×✕✖⨯╳←‹⟵⬅<]$|^[xX]$/u;

/** Whether the label backs out: a whole dismissal ("Not now", "Abbrechen", "ยกเลิก"), a negated verb ("Don't
 * allow"), a label that keeps what the dialog would end ("Keep subscription"), a dismissal where verb-last
 * languages put it ("Sepete geri dön"), or a close glyph. */
export function isDismissLabel(w: CompiledWords, label: string): boolean {
  const p = prepare(label);
  if (w.lists.negation.atStart(p) || DISMISS_GLYPHS.test(label.trim())) return true;
  // "Yes, cancel" and "हाँ, रद्द करें" say yes to what their dialog asks; "Cancel order" ends what it names.
  if ((w.lists.affirmative.atStart(p) && !w.lists.affirmative.isWhole(p)) || findEnding(w, p)) return false;
  if (w.lists.dismiss.isWhole(p)) return true;
  // "Cancel download", "Anuluj kod": cancelling what is not held (a pending code, a request) stops it, so it backs out.
  // "বাতিল নিশ্চিত করুন" and "Confirm cancellation" confirm the cancelling instead.
  if (w.lists.cancelling.atStart(p) && !w.lists.confirming.find(p) && !COMMIT_CATEGORIES.some((c) => w.verbs.get(c)!.find(p))) return true;
  // "Keep subscription" keeps; "Tetap hapus" (delete anyway) does not, though it starts like a keeping word.
  if (w.lists.keep.atStart(p) && !COMMIT_CATEGORIES.some((c) => w.verbs.get(c)!.find(p))) return true;
  // "ऐप्लिकेशन बंद करें" ends like "बंद करें" (close) but is itself a commit ("disable app").
  return w.dismissTail.atEnd(p) && !COMMIT_CATEGORIES.some((c) => w.verbs.get(c)!.isWhole(p));
}

/** What role the control plays on its screen, from ids, position and dismissal words. */
export function controlRole(w: CompiledWords, target: UiNode, label: string, pane: Pane, screenButtons: UiNode[], drawnLabels: string[] = []): ControlRole {
  const id = target.resourceId;
  const idw = idWords(id);
  if (isSlideControl(target)) return { role: "commit", why: "a slide or hold control confirms" };
  // "Sans médias" on the negative button beside "Annuler": a dialog that has its own plain way out (a button whose
  // whole label backs out) makes each other choice a way forward, whatever its id or its first word ("ไม่จำอุปกรณ์",
  // forget the device, starts with "not"). Only a choice that keeps things ("Keep editing") or is itself a plain
  // way out still backs out.
  const wayOut = pane.dialog ? ownWayOut(w, label, target, pane.buttons) : null;
  if (wayOut) return { role: "commit", why: `${JSON.stringify(wayOut)} is the dialog's way out, so ${JSON.stringify(label)} is a way forward` };
  if (isDismissLabel(w, label)) return { role: "dismiss", why: `${JSON.stringify(label)} backs out` };
  if (NEGATIVE_IDS.test(id)) return { role: "dismiss", why: `the dialog's negative button (${id})` };
  if (GRANT_IDS.test(id)) return { role: "commit", why: `the permission prompt's allow button (${id})`, grants: true };
  if (POSITIVE_IDS.test(id)) return { role: "commit", why: `the dialog's positive button (${id})` };
  if (idw && NEGATIVE_ID_WORDS.test(idw) && !POSITIVE_ID_WORDS.test(idw)) return { role: "dismiss", why: `its id ${JSON.stringify(idw)} names a negative button` };
  if (idw && POSITIVE_ID_WORDS.test(idw)) return { role: "commit", why: `its id ${JSON.stringify(idw)} names a positive button` };
  if (!isButtonLike(target)) return { role: "other", why: "not a button" };
  const buttons = pane.dialog ? pane.buttons : screenButtons;
  // "ऑर्डर रखें" beside "ऑर्डर रद्द करें": the button that names the thing another button ends, without ending it,
  // keeps it, whatever word the language keeps with.
  const keeps = keptBeside(w, label, target, buttons);
  if (keeps) return { role: "dismiss", why: `${JSON.stringify(label)} keeps what ${JSON.stringify(keeps)} ends` };
  // "التقييمات" (reviews) after "أضف إلى العربة", "Specificaties" after "In winkelwagen": a flow screen's act is
  // the button that names it; a later one that names none and is no plain confirmation only opens something.
  // In a dialog the button that names no act beside one that does is the other choice: "Weiter bearbeiten" beside
  // "Verwerfen" under "Entwurf verwerfen?" keeps the draft, whatever word the language keeps with.
  const named = namedCommit(w, label, [...buttons.filter((b) => b !== target).map(labelOf), ...(pane.dialog ? [] : drawnLabels)], !pane.dialog);
  if (named && pane.dialog) return { role: "dismiss", why: `${JSON.stringify(named)} is the act this dialog offers; this button names none, so it keeps things as they are` };
  if (named) return { role: "other", why: `${JSON.stringify(named)} is what this screen commits; this button names no act` };
  const at = buttons.indexOf(target);
  const after = buttons.slice(at + 1).filter((b) => !isDismissLabel(w, labelOf(b)) && !NEGATIVE_IDS.test(b.resourceId));
  if (at >= 0 && after.length === 0) return { role: "commit", why: pane.dialog ? "the last button of its dialog that does not back out (the positive one)" : "the primary button at the foot of the screen" };
  return { role: "other", why: "another button follows it" };
}

/** Another button of the dialog whose whole label backs out ("Cancel", "ยกเลิก"), when this label is neither a plain
 * way out itself (a whole dismissal, a close glyph), nor keeps things, nor is the other choice beside a named act. */
function ownWayOut(w: CompiledWords, label: string, target: UiNode, buttons: UiNode[]): string | null {
  const p = prepare(label);
  if (!p.words || w.lists.dismiss.isWhole(p) || DISMISS_GLYPHS.test(label.trim()) || w.lists.keep.atStart(p) || w.lists.cancelling.atStart(p) || w.lists.leaving.atStart(p)) return null;
  const others = buttons.filter((b) => b !== target).map(labelOf);
  const out = others.find((o) => w.lists.dismiss.isWhole(prepare(o)));
  if (!out || namedCommit(w, label, others, false)) return null;
  return out;
}

/** The label of another button that ends a thing held which this label names without a cancelling or leaving verb. */
function keptBeside(w: CompiledWords, label: string, target: UiNode, buttons: UiNode[]): string | null {
  const p = prepare(label);
  const held = w.lists.held.find(p);
  if (!held || w.lists.cancelling.find(p) || w.lists.leaving.find(p) || COMMIT_CATEGORIES.some((c) => w.verbs.get(c)!.find(p))) return null;
  for (const b of buttons) {
    if (b === target) continue;
    const other = prepare(labelOf(b));
    if (findEnding(w, other) && w.lists.held.find(other) === held) return labelOf(b);
  }
  return null;
}

/** Another button of the screen (or, on a blind screen, a short drawn label) that names a committing act or, on a
 * flow screen (`flow`), puts something aside ("Buy now", "Add to cart", "Install"), when this label names none and is no plain
 * confirmation ("Continue", "OK"). */
function namedCommit(w: CompiledWords, label: string, others: string[], flow: boolean): string | null {
  const p = prepare(label);
  // On a flow screen "Weiter zur Kasse" confirms; in a dialog a confirming word only confirms as the whole label
  // ("Weiter bearbeiten" beside "Verwerfen" continues editing).
  const confirms = flow ? w.lists.confirming.find(p) : w.lists.confirming.isWhole(p);
  if (confirms || w.lists.affirmative.find(p) || COMMIT_CATEGORIES.some((c) => w.verbs.get(c)!.find(p)) || findEnding(w, p)) return null;
  for (const o of others) {
    const other = prepare(o);
    if (isDismissLabel(w, o)) continue;
    if (COMMIT_CATEGORIES.some((c) => w.verbs.get(c)!.find(other)) || findEnding(w, other) || (flow && w.lists.staging.find(other))) return o;
  }
  return null;
}

/** Buttons of a subtree in reading order (the tree's order: Android lists a row's right-most child last). */
export function buttonsOf(root: UiNode | null | undefined, skip: (n: UiNode) => boolean = () => false): UiNode[] {
  const out: UiNode[] = [];
  const walk = (n: UiNode) => {
    if (isEditable(n) || skip(n)) return;
    if (isButtonLike(n) || isSlideControl(n)) out.push(n);
    else for (const c of n.children) walk(c);
  };
  if (root) walk(root);
  return out;
}
