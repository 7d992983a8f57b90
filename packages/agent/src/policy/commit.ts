// What a committing control (or Enter submitting a form) commits, read from the whole screen: the dialog's title
// and message, an amount anywhere on it, the app. It inherits that risk whatever its own label says.
import type { UiNode } from "../ports.ts";
import { isKeyboardPackage } from "./apps.ts";
import { countedUnit } from "./counted-units.ts";
import { LEXICON } from "./lexicon.ts";
import { prepare, type Prepared } from "./match.ts";
import { findAmount, labelOf, type Pane } from "./screen.ts";
import { isDismissLabel } from "./structure.ts";
import { CATEGORY_TIER, COMMIT_CATEGORIES, q, type Scene, type Verdict } from "./verdict.ts";
import { findNoun, findReveal, findVerb } from "./wordsets.ts";

/** What a committing control commits, read from its dialog (title, message) or its screen (amounts anywhere) and
 * the app: it inherits that risk whatever its own label says. */
export function commitRisk(s: Scene, v: Verdict, pane: Pane, label: string, why: string): void {
  const { w } = s;
  // A screen that reports the act as done (a receipt, "Payment successful") and asks nothing: its neutral
  // button only closes it. A label that commits by its own words was judged before this.
  const own = pane.texts.filter((t) => !t.control);
  const done = own.find((t) => w.lists.completed.find(prepare(t.text)));
  if (done && v.tier === "normal" && !own.some((t) => /[?？؟]\s*$/.test(t.text))) {
    v.normal("pane.completed", `${q(label)} closes a screen that reports the act as done (${q(done.text)})`);
    return;
  }
  let amountSeen: { amount: string; text: string } | null = null;
  for (const { text, control } of pane.texts) {
    const p = prepare(text);
    const amount = findAmount(text);
    // A heading that names a place ("Payment history", "How to pay") says nothing is committed here; one whose act
    // comes first ("Reset to factory settings?", "بازنشانی به تنظیمات کارخانه؟") does.
    if (!amount && s.w.lists.navigation.find(p) && navigationFirst(s, p, findVerb(w, p, COMMIT_CATEGORIES) !== null)) continue;
    if (amount && !amountSeen) amountSeen = { amount, text };
    // Another control's words say what this screen does only when it is not a way out ("Keep subscription").
    if (control) continue;
    const verb = findVerb(w, p, COMMIT_CATEGORIES);
    const noun = verb ? null : findNoun(w, p);
    const hit = verb ?? (noun && w.lists.confirming.find(p) ? noun : null);
    if (hit) {
      // "20,00 € an Anna senden?": a message that moves money is a payment.
      const category = amount && hit.category === "communication" ? "money" : hit.category;
      v.raise(CATEGORY_TIER[category], category, "pane.inherit", `${q(label)} confirms ${q(text)} (${q(hit.word)}, ${category}; ${why})`);
      return;
    }
  }
  // "ปิด Play Protect ไหม", "2 Adımlı Doğrulama kapatılsın mı?": a plain OK or Yes of a dialog that offers a choice
  // (a way out beside it) about a protection of the phone or account confirms changing it, as its switch would,
  // whatever word the language turns it off with ("ปิด" and "kapat" also close). A choice that names itself
  // ("Speicherplatz sparen" under "Qualität der Sicherung") says what it does instead.
  const plainAnswer = w.lists.confirming.isWhole(prepare(label)) || w.lists.affirmative.isWhole(prepare(label));
  const guarded = pane.dialog && plainAnswer && pane.buttons.some((b) => isDismissLabel(w, labelOf(b))) ? own.find((t) => w.lists.securitySettings.find(prepare(t.text))) : undefined;
  if (guarded) {
    v.raise("high_risk", "permission", "pane.security", `${q(label)} answers ${q(guarded.text)} about a protection (${q(w.lists.securitySettings.find(prepare(guarded.text))!)}; ${why})`);
    return;
  }
  // "Quer mesmo cancelar?" over "Pedido #4821": a dialog that asks to cancel or leave without naming what says it
  // in its other lines or in the title of the screen behind it; its positive answer ends that thing.
  const ending = pane.dialog && s.tree ? endingNamedAround(s, own, pane.container) : null;
  if (ending) {
    v.raise(CATEGORY_TIER.destructive, "destructive", "pane.ending", `${q(label)} answers ${q(ending.text)} about ${q(ending.held)} (an ending; ${why})`);
    return;
  }
  // A dialog or sheet that names nothing, or only asks ("Are you sure?"), commits what the screen behind it shows
  // ("Confirm?" over a basket total); one that only tells something ("Added to favourites") does not.
  // A share sheet headed only by its share words ("Partager via", "Compartir con") is a step too: its row sends what
  // the screen behind holds, so under "Exporter la discussion" it carries the export out.
  const chooser = pane.dialog && own.length > 0 && own.every((t) => w.lists.composeSubmit.atStart(prepare(t.text)));
  const asksOnly = pane.dialog && s.tree && (own.length === 0 || chooser || own.some((t) => /[?？؟]\s*$/.test(t.text)));
  if (!amountSeen && asksOnly) amountSeen = screenAmount(s.tree!, pane.container);
  // "Include media?" over "Export chat": a dialog that only asks, or a share sheet, is a step of what the screen
  // behind it is titled.
  const title = !amountSeen && asksOnly ? screenTitle(s.tree!, pane.container) : null;
  const act = title ? findVerb(w, prepare(title), COMMIT_CATEGORIES) : null;
  if (act) {
    v.raise(CATEGORY_TIER[act.category], act.category, "pane.behind", `${q(label)} answers a step of ${q(title!)} (${q(act.word)}, ${act.category}; ${why})`);
    return;
  }
  if (amountSeen) {
    v.raise("high_risk", "money", "pane.amount", `${q(label)} confirms a screen showing ${amountSeen.amount} (${q(amountSeen.text)}; ${why})`);
    return;
  }
  // "1.299 diamantes" beside "Saldo: 1.520 diamantes": a price in the app's own currency.
  const counted = countedUnit(pane.texts.map((t) => t.text));
  if (counted) {
    v.raise("high_risk", "money", "pane.counted-unit", `${q(label)} confirms a screen that counts ${q(counted.unit)} as money (${q(counted.texts[0])}, ${q(counted.texts[1])}; ${why})`);
    return;
  }
  // A dialog with one button that asks nothing ("SBI never asks for your OTP", "Got it") only tells: there is no
  // choice to confirm, so the payments app's own risk is not its button's.
  const tellsOnly = pane.dialog && pane.buttons.length === 1 && own.length > 0 && !own.some((t) => /[?？؟]\s*$/.test(t.text));
  if (s.appCat === "money" && !tellsOnly) {
    v.raise("high_risk", "money", "app.money-confirm", `${q(label)} confirms a step in the payments app ${s.app}`);
    return;
  }
  if (pane.dialog && !pane.texts.some((t) => !t.control))
    v.raise("confirm", "unknown_control", "pane.unreadable", `${q(label)} confirms a dialog whose text cannot be read`);
}

/** A dialog's cancelling or leaving question and the thing held it ends, named in the dialog's other lines or in
 * the title of the screen behind; cancelling what is not held ("Cancel download?") names none. */
function endingNamedAround(s: Scene, own: Pane["texts"], dialog: UiNode): { text: string; held: string } | null {
  const { w } = s;
  const asked = own.find((t) => {
    const p = prepare(t.text);
    return (w.lists.cancelling.find(p) ?? w.lists.leaving.find(p)) && !w.lists.benignObjects.find(p);
  });
  if (!asked) return null;
  const title = screenTitle(s.tree!, dialog);
  for (const text of [...own.map((t) => t.text), ...(title ? [title] : [])]) {
    const p = prepare(text);
    if (w.lists.benignObjects.find(p)) return null;
    const held = w.lists.held.find(p);
    if (held) return { text: asked.text, held };
  }
  return null;
}

function screenAmount(tree: UiNode, skip: UiNode): { amount: string; text: string } | null {
  const stack = [tree];
  while (stack.length) {
    const n = stack.pop()!;
    if (n === skip || isKeyboardPackage(n.packageName)) continue;
    for (const t of [n.text, n.contentDesc]) {
      const amount = t ? findAmount(t) : null;
      if (amount) return { amount, text: t };
    }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return null;
}

/** The first words of the screen behind a dialog (its title bar or heading), not a control's. */
function screenTitle(tree: UiNode, skip: UiNode): string | null {
  const stack = [tree];
  while (stack.length) {
    const n = stack.pop()!;
    if (n === skip || isKeyboardPackage(n.packageName) || n.clickable) continue;
    if (n.text.trim()) return n.text;
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return null;
}

/** A store's star rating ("⭐ 4,7", "4.5★"): the screen lists an app, as a store or an ad does. */
export const APP_RATING = /[⭐★]\s*[0-5][.,]\d|[0-5][.,]\d\s*[⭐★]/u;

/** The label names a place to look at ("Payment history", "How to pay", "支付记录") rather than an act: a
 * navigation word without a committing verb, or one that governs the verb — before it in languages that put the
 * head first ("How to pay"), after it in Chinese, Japanese and Korean ("付款记录"; "删除记录" deletes). */
export function navigationFirst(s: Scene, p: Prepared, hasVerb: boolean, storeListing = s.appCat === "store"): boolean {
  const nav = s.w.lists.navigation.position(p);
  if (!nav) return false;
  if (!hasVerb) return true;
  // "Показать номер и CVC", "Visa lösenord": showing a secret reveals it, it opens no place.
  if (findReveal(s.w, p)) return false;
  let verb: { at: number; end: number; cjk: boolean } | null = null;
  for (const c of COMMIT_CATEGORIES) {
    const at = s.w.verbs.get(c)!.position(p);
    if (at && (!verb || at.at < verb.at)) verb = at;
  }
  if (!verb) return true;
  // In an app store, or on an app's listing elsewhere (an ad with its star rating), the install word wins ("Cài
  // đặt" is both Install and Settings in Vietnamese).
  if (storeListing && s.w.verbs.get("install")!.position(p)) return false;
  // Japanese and Korean put the head last, so the last of the two words says what the text is: "削除履歴" and
  // "삭제 기록" are a history of deletions and "送信済み" the sent folder, "履歴を削除" and "기록 삭제" delete it ("トーク履歴をすべて削除" was read
  // as a place). Chinese writes the place after what it is about ("付款记录") and a verb before its object too
  // ("删除记录"), so there the place word wins, as it always did. Thai puts the verb first like the languages with spaces.
  if (nav.cjk && verb.cjk && HEAD_LAST.test(p.compact)) return nav.end >= verb.end;
  if (nav.cjk && verb.cjk && !THAI.test(p.compact)) return true;
  // Bengali and Hindi put the verb last too, after its object: "সকল চ্যাট ইতিহাস মুছে ফেলবেন?" deletes the history
  // and "इतिहास हटाएं" deletes it, "পেমেন্ট ইতিহাস" is one; a word asking how ("কীভাবে পেমেন্ট করবেন", "भुगतान
  // कैसे करें") names a page about the act wherever it stands.
  if (!nav.cjk && !verb.cjk && VERB_LAST_SCRIPT.test(p.words)) {
    if (s.w.lists.manner.find(p)) return true;
    if (verb.at >= nav.end) return false;
  }
  // "Consultar y enviar", "View and pay": a place joined to an act by "and" does both, so the act stands.
  if (!nav.cjk && !verb.cjk && verb.at > nav.end && p.words.slice(nav.end, verb.at).split(" ").some((t) => conjunctions().has(t))) return false;
  return nav.at < verb.at || (nav.at === verb.at && nav.end >= verb.end);
}

let conjunctionWords: Set<string> | null = null;

/** "and" in each language the lexicon holds, from CLDR's list patterns (Intl.ListFormat): " y ", " und ", " और ". */
function conjunctions(): Set<string> {
  if (conjunctionWords) return conjunctionWords;
  const out = new Set<string>();
  for (const lang of Object.keys(LEXICON))
    for (const part of new Intl.ListFormat(lang, { type: "conjunction" }).formatToParts(["a", "b"]))
      if (part.type === "literal") for (const t of part.value.toLowerCase().split(/[\s,、-]+/u)) if (/^\p{L}+$/u.test(t)) out.add(t);
  return (conjunctionWords = out);
}

const THAI = /[\u0e00-\u0e7f]/;
/** Devanagari or Bengali: the text is Hindi or Bengali, whose verbs come last. */
const VERB_LAST_SCRIPT = /[\u0900-\u09ff]/;
/** Kana or Hangul: the text is Japanese or Korean, whose heads come last. */
const HEAD_LAST = /[\u3040-\u30ff\uac00-\ud7af]/;
