// A tap (click, double tap, long press) judged as a person would: first what the control is on its screen (a
// dismissal, a place to look at, the committing control of a dialog or flow — structure.ts), then what its own
// words commit, then what a committing control commits from the whole screen around it (the dialog's title and
// message, amounts anywhere, the app). On a blind screen the words OCR read stand in for the tree's.
import type { OcrReading, UiNode } from "../ports.ts";
import { isKeyboardPackage } from "./apps.ts";
import { isBlindTarget, isBlindTree, tapPoint, treeWithReading } from "./blind.ts";
import { judgeEnter } from "./keyboard.ts";
import { prepare, type Prepared } from "./match.ts";
import { normalise } from "./normalise.ts";
import { findAmount, focusedField, idWords, isEditable, labelOf, MAX_CONTROL_LABEL, paneOf, pathTo, type Pane } from "./screen.ts";
import { APP_RATING, commitRisk, navigationFirst } from "./commit.ts";
import { namesPackageFile } from "./deeplinks.ts";
import { buttonsOf, controlRole, isDismissLabel } from "./structure.ts";
import { CATEGORY_TIER, COMMIT_CATEGORIES, q, type Scene, type Verdict } from "./verdict.ts";
import { findEnding, findNoun, findVerb } from "./wordsets.ts";

/** A tap on the screen: the target as sensed, or on a blind screen what is drawn under the point. */
export function judgeTapAction(s: Scene, v: Verdict, target: UiNode | undefined, ocr: OcrReading | null | undefined, point: { x: number; y: number } | undefined): string {
  const blind = s.tree === null || (s.tree !== undefined && isBlindTree(s.tree)) || isBlindTarget(target) || (s.tree === undefined && ocr !== undefined && !target);
  if (!blind) {
    if (target) return judgeTap(s, v, target);
    if (s.tree) v.normal("target.none", "the point is on no element of the screen");
    else {
      v.normal("target.no-tree", "the screen has no UI tree");
      v.doubt("the screen has no UI tree, so what the tap lands on cannot be read");
    }
    return "";
  }
  if (ocr && ocr.items.length) {
    const read = treeWithReading(s.tree, ocr, tapPoint(point, s.action as { x?: number; y?: number }, s.tree, ocr), s.app);
    s.tree = read.tree;
    s.drawn = true;
    v.note("the UI tree is blind here; its words were read from the screenshot");
    if (read.target) return judgeTap(s, v, read.target);
    judgeUnlabelled(s, v, paneOf([read.tree]));
    return "";
  }
  judgeBlindUnread(s, v, target ? paneOf(pathTo(s.tree, target)) : s.tree ? paneOf([s.tree]) : null);
  return "";
}

/** A drawn label of at most this many words may be a button; a longer one is a heading or a line of text. */
const DRAWN_BUTTON_WORDS = 2;

export function judgeTap(s: Scene, v: Verdict, target: UiNode): string {
  const { w } = s;
  const path = pathTo(s.tree, target);
  const label = labelOf(target);
  if (path.some((n) => isKeyboardPackage(n.packageName))) {
    // The keyboard's own keys type; only its Enter/Send key submits the focused field.
    if (w.lists.enterKeys.isWhole(prepare(label)) || w.lists.newlineKeys.isWhole(prepare(label))) judgeEnter(s, v, focusedField(s.tree), `the keyboard key ${q(label)}`);
    else v.normal("keyboard.key", `${q(label || "key")} is a key of the on-screen keyboard`);
    return label;
  }
  if (isEditable(target) && s.action.type === "click") {
    v.normal("target.field", "a tap on a text field focuses it; what is typed is judged when it is typed");
    return label;
  }
  const pane = paneOf(path);
  const readable = label || idWords(target.resourceId);
  if (!readable) {
    judgeUnlabelled(s, v, pane);
    return readable;
  }
  // Holding an icon of a chat's compose bar (the microphone, the camera) records a voice or video note and sends it
  // on release; holding a message's text, or the row its text sits in, only selects it.
  if (s.action.type === "long_press" && !showsText(target) && !isEditable(target) && pane.fields.some((f) => w.lists.composeField.find(prepare(`${f.text} ${f.contentDesc} ${idWords(f.resourceId)}`))))
    v.raise("high_risk", "communication", "hold.compose-bar", `holding ${q(readable)} beside the message field records a note and sends it`);
  if (namesPackageFile(readable)) v.raise("high_risk", "install", "target.package-file", `${q(readable, 60)} is an app package file: opening it installs an app`);
  if (readable.length > MAX_CONTROL_LABEL) {
    v.normal("target.content", `the tap opens content (${q(readable, 40)}), it does not name an action`);
    return readable;
  }
  const p = prepare(readable);
  // "Addebito SDD Enel Energia -84,37 €" among other such rows: an entry of a list of amounts (past payments, a
  // statement) opens that entry, whatever its words say was paid; the list's own buttons still commit.
  if (!pane.dialog && isLedgerRow(target, path[path.length - 2])) {
    v.normal("target.ledger-row", `${q(readable, 60)} is one entry of a list of amounts: the tap opens it`);
    return readable;
  }
  // On a blind screen every short drawn label below the first (the screen's title: "Betatest", "Comprar") may be a
  // button ("Instalar" drawn above "Acerca de esta aplicación").
  const drawnLabels = s.drawn && !pane.dialog ? pane.texts.slice(1).filter((t) => t.text.split(/\s+/).length <= DRAWN_BUTTON_WORDS).map((t) => t.text) : [];
  const role = controlRole(w, target, readable, pane, pane.dialog ? pane.buttons : buttonsOf(s.tree), drawnLabels);
  const verb = findVerb(w, p);
  // A dismissal by its words always backs out; a negative button by its id only when its words commit nothing.
  // A label that is both ("बंद करें": close, and turn off) beside a plain way out ("रद्द करें") is the act.
  const commitVerb = verb !== null && COMMIT_CATEGORIES.includes(verb.category);
  const plainWayOut = commitVerb && (pane.dialog ? pane.buttons : []).some((b) => b !== target && isDismissLabel(w, labelOf(b)) && !findVerb(w, prepare(labelOf(b)), COMMIT_CATEGORIES));
  // "रद्द करने का अनुरोध करें" (request the cancellation) under the heading "ऑर्डर रद्द करें": a cancelling or
  // leaving label that is more than a plain way out carries out the ending its screen names.
  // Only when it is the one way forward: beside a "Yes" under "Cancel order?", "Cancel download" stays a way out.
  const onlyWayOn = !(pane.dialog ? pane.buttons : buttonsOf(s.tree)).some((b) => b !== target && !isDismissLabel(w, labelOf(b)));
  const screenEnding = role.role === "dismiss" && !commitVerb && onlyWayOn ? endingNamedBeside(w, p, pane) : null;
  // "Odrzuć", "Ignora" amid "Zaplanuj wysłanie" and "Ustawienia" over a written draft: in a menu (a sheet of
  // buttons only) a dismissal before its last item is one of its acts, not its way out, and over a filled field it
  // discards what was written. A menu's last item ("Cancelar" under "Cámara", "Galería") still backs out.
  const discards = role.role === "dismiss" && pane.dialog && isMenuItemBeforeLast(pane, target) && !w.lists.cancelling.atStart(p) && filledDraft(s);
  if (discards) v.raise("high_risk", "destructive", "menu.discard-draft", `${q(readable)} is an item of a menu over the written draft ${q(discards.text, 40)}: it discards it`);
  if (screenEnding) v.raise("high_risk", "destructive", "target.screen-ending", `${q(readable)} carries out the ending its screen names (${q(screenEnding)})`);
  else if (!discards && role.role === "dismiss" && !plainWayOut && (isDismissLabel(w, readable) || !commitVerb)) {
    v.normal("target.dismiss", `${q(readable)} backs out (${role.why})`);
    return readable;
  }
  const amount = findAmount(readable);
  // "Visa QR-kod", the one way on from a dialog titled "Exportera konton": a place to look at that is all a dialog
  // naming an act offers carries that act out.
  const dialogAct = pane.dialog && onlyWayOn ? pane.texts.find((t) => !t.control && namesAct(s, prepare(t.text))) : undefined;
  // A switch changes what it names ("„Mein Gerät finden“ verwenden"), it does not open it.
  if (!amount && !isSwitch(target) && !dialogAct && (w.lists.ownership.atStart(p) || navigationFirst(s, p, verb !== null, s.appCat === "store" || pane.texts.some((t) => APP_RATING.test(t.text))))) {
    v.normal("target.navigation", `${q(readable)} opens a place to look at`);
    return readable;
  }
  if (!verb && w.lists.staging.find(p)) {
    v.normal("target.staging", `${q(readable)} only puts it aside (a basket, a list); paying is its own later step`);
    return readable;
  }
  if (verb) {
    if (verb.category === "destructive" && w.lists.benignObjects.find(p)) v.normal("target.benign-object", `${q(readable)} only removes a view setting`);
    else v.raise(CATEGORY_TIER[verb.category], verb.category, "target.label", `the control ${q(readable)} says ${q(verb.word)} (${verb.category})`);
  }
  // "คัดลอก" under "วลีลับของคุณ", "Kopieren" beside "Passwort": copying on a screen that shows a secret takes the
  // secret out of the app, as revealing it would; a line that only warns ("Never share your PIN") or names a page
  // ("Forgot your password?") shows none.
  const copied = w.lists.copying.find(p) ? [readable, ...pane.texts.filter((t) => !t.control).map((t) => t.text)].find((t) => showsSecret(w, prepare(t))) : undefined;
  if (copied) v.raise("high_risk", "credentials", "target.copy-secret", `${q(readable)} copies the secret its screen shows (${q(copied, 40)})`);
  const submit = w.lists.composeSubmit.find(p);
  const filled = filledCompose(s, pane);
  if (submit && filled) v.raise("high_risk", "communication", "target.compose-submit", `${q(readable)} submits the filled field ${q(filled.text)}`);
  // "Seu story" beside "Amigos próximos", "Partager" under "Votre story" and "Amis proches": a screen that offers a
  // story's audience is its share step, so one's story, the audience or a share word there posts it. On the home
  // tray "Your story" names no audience and only opens one's story.
  const storyStep = [readable, ...pane.texts.map((t) => t.text)].map((t) => prepare(t));
  if ((w.lists.story.find(p) || w.lists.audience.find(p) || submit) && storyStep.some((t) => w.lists.story.find(t)) && storyStep.some((t) => w.lists.audience.find(t)))
    v.raise("high_risk", "communication", "target.story-share", `${q(readable)} posts the story its screen offers to an audience`);
  const confirming = w.lists.confirming.find(p) !== null;
  const noun = findNoun(w, p);
  if (noun && (confirming || (normalise(readable) === noun.word && role.role === "commit")))
    v.raise(CATEGORY_TIER[noun.category], noun.category, "target.label", `the control ${q(readable)} confirms ${q(noun.word)} (${noun.category})`);
  // A price on a button commits it ("Tip $5", "US$4.99" in a purchase sheet); a price inside a product tile, or a
  // price tag alone on a text, only describes what the tap opens.
  // The words beside it say what the price is for: a money word ("Tip $5", "Pay 20 €") commits it; a merchant's
  // name on a row of past payments ("Bij: Albert Heijn · € 23,45") only describes what the tap opens.
  const besides = prepare(readable.replace(amount ?? "", " "));
  const wordsBesides = /\p{L}{2,}/u.test(besides.words) && (w.verbs.get("money")!.find(besides) !== null || w.nouns.get("money")!.find(besides) !== null);
  if (amount && (/Button/i.test(target.className) || (target.children.length === 0 && readable.length <= 32 && wordsBesides)))
    v.raise("high_risk", "money", "target.amount", `the control ${q(readable)} carries the amount ${amount}`);
  if (role.grants) v.raise("high_risk", "permission", "structure.grant", `${q(readable)} is ${role.why}`);
  const commits = role.role === "commit" || w.lists.confirming.isWhole(p) || (pane.dialog && !isSwitch(target));
  if (commits) {
    v.commitShaped = true;
    commitRisk(s, v, pane, readable, role.role === "commit" ? role.why : "it confirms what its screen says");
  }
  if (isSwitch(target)) judgeSwitch(s, v, pane, readable);
  if (s.appCat === "permission" && v.tier === "normal") v.raise("high_risk", "permission", "app.permission", `${q(readable)} answers a permission request`);
  if (v.tier === "normal") {
    if (v.ruleId === "action.harmless") v.normal(commits ? "target.commit-plain" : "target.plain", commits ? `${q(readable)} commits a screen that names no risk (${role.why})` : `${q(readable)} names no committing action`);
    doubtIfRiskyPane(s, v, pane, readable);
  }
  return readable;
}

/** The ending a screen's own text names ("Отменить заказ", "ऑर्डर रद्द करें") when the label starts with a
 * cancelling or leaving verb but is no whole dismissal: a bare "Cancel" still backs out of it. */
function endingNamedBeside(w: Scene["w"], p: Prepared, pane: Pane): string | null {
  if (w.lists.dismiss.isWhole(p) || w.lists.negation.atStart(p) || w.lists.keep.atStart(p)) return null;
  if (!w.lists.cancelling.atStart(p) && !w.lists.leaving.atStart(p)) return null;
  for (const t of pane.texts) if (!t.control && findEnding(w, prepare(t.text))) return t.text;
  return null;
}

/** A dialog's line that names a committing act, not a place to look at ("Exportera konton", not "Betalningshistorik"). */
function namesAct(s: Scene, p: Prepared): boolean {
  return findVerb(s.w, p, COMMIT_CATEGORIES) !== null && !(s.w.lists.navigation.find(p) && navigationFirst(s, p, true));
}

/** A dialog of buttons only (a menu: three items or more, no title or message) and the target not its last item. */
function isMenuItemBeforeLast(pane: Pane, target: UiNode): boolean {
  const at = pane.buttons.indexOf(target);
  return pane.buttons.length >= 3 && at >= 0 && at < pane.buttons.length - 1 && pane.texts.every((t) => t.control);
}

/** A field of the screen holding written text that is no search and no password: a draft. */
function filledDraft(s: Scene): UiNode | undefined {
  const stack = s.tree ? [s.tree] : [];
  while (stack.length) {
    const n = stack.pop()!;
    if (isKeyboardPackage(n.packageName)) continue;
    if (isEditable(n) && n.text.trim() && !n.password && !s.w.lists.searchField.find(prepare(`${n.text} ${idWords(n.resourceId)} ${n.contentDesc}`))) return n;
    stack.push(...n.children);
  }
  return undefined;
}

/** A text that names a secret it shows: not under a negation, not a place to look at. */
function showsSecret(w: Scene["w"], p: Prepared): boolean {
  return w.lists.secrets.find(p) !== null && !w.lists.negation.find(p) && !w.lists.navigation.find(p);
}

/** A row of texts only (no control inside) that carries an amount, beside at least one more such row in its list. */
function isLedgerRow(target: UiNode, parent: UiNode | undefined): boolean {
  const textRow = (n: UiNode): boolean => n.children.length > 0 && !n.children.some(hasControl) && (findAmount(labelOf(n)) !== null || n.children.some((c) => SIGNED_FIGURE.test(c.text.trim())));
  return parent !== undefined && textRow(target) && parent.children.some((c) => c !== target && textRow(c));
}

/** A line that is only a signed sum ("-2,000.00", "+3.21"): a statement's entry, its currency in the heading. */
const SIGNED_FIGURE = /^[+\-−]\s?\d[\d,.\s]*[.,]\d{2}$/u;

const hasControl = (n: UiNode): boolean => n.clickable || n.checkable || isEditable(n) || n.children.some(hasControl);

/** Whether the node or a node inside it shows text (a message's row does; an icon has only a description). */
const showsText = (n: UiNode): boolean => n.text.trim() !== "" || n.children.some(showsText);

const isSwitch = (n: UiNode): boolean => n.checkable || /Switch|Toggle|CheckBox/i.test(n.className) || n.children.some(isSwitch);

/** A switch on a settings screen that hands control of the phone to an app (accessibility, device admin…). */
function judgeSwitch(s: Scene, v: Verdict, pane: Pane, label: string): void {
  for (const { text } of [{ text: label }, ...pane.texts]) {
    const area = s.w.lists.securitySettings.find(prepare(text));
    if (area) {
      v.raise("high_risk", "permission", "switch.security", `the switch ${q(label)} sits in the security setting ${q(area)}`);
      return;
    }
  }
}

export function filledCompose(s: Scene, pane: Pane): UiNode | undefined {
  return pane.fields.find((f) => f.text.trim() && !f.password && !s.w.lists.searchField.find(prepare(`${f.text} ${idWords(f.resourceId)} ${f.contentDesc}`)));
}

function judgeUnlabelled(s: Scene, v: Verdict, pane: Pane): void {
  const filled = filledCompose(s, pane);
  if (filled) v.raise("high_risk", "communication", "icon.beside-compose", `an unlabelled control beside the filled message field ${q(filled.text)} (a send button)`);
  else if (s.appCat === "money") v.raise("high_risk", "money", "icon.unlabelled-money", `an unlabelled control in the payments app ${s.app}`);
  else {
    v.raise("confirm", "unknown_control", "icon.unlabelled", "the control has no label, description or meaningful id: what it does cannot be read");
    v.doubt("an unlabelled control");
  }
}

/** A tap on a blind screen with no reading of what is drawn there: a person could not tell what it does, so it is
 * asked (money when the screen or app is a checkout). */
function judgeBlindUnread(s: Scene, v: Verdict, pane: Pane | null): void {
  for (const { text } of pane?.texts ?? []) {
    const p = prepare(text);
    const amount = findAmount(text);
    const word = s.w.verbs.get("money")!.find(p) ?? s.w.nouns.get("money")!.find(p);
    if (amount || word) {
      v.raise("high_risk", "money", "webview.checkout", `a screen the UI tree cannot see into, on a checkout-like screen (${q(text)})`);
      return;
    }
  }
  if (s.appCat === "money") {
    v.raise("high_risk", "money", "webview.checkout", `a screen the UI tree cannot see into, in the payments app ${s.app}`);
    return;
  }
  v.raise("confirm", "unknown_control", "blind.unread", "the tap lands where the UI tree is blind (a web page, canvas or secure window) and no reading of the screenshot was had");
  v.doubt("the tap lands where nothing can be read");
}

function doubtIfRiskyPane(s: Scene, v: Verdict, pane: Pane, label: string): void {
  for (const { text } of pane.texts) {
    const amount = findAmount(text);
    const verb = amount ? null : findVerb(s.w, prepare(text), COMMIT_CATEGORIES);
    if (amount || verb) {
      v.doubt(`${q(label)} sits on a screen that mentions ${amount ?? verb!.word}`);
      return;
    }
  }
}
