// What a committing control (or Enter submitting a form) commits, read from the whole screen: the dialog's title
// and message, an amount anywhere on it, the app. It inherits that risk whatever its own label says.
import type { UiNode } from "../ports.ts";
import { isKeyboardPackage } from "./apps.ts";
import { prepare } from "./match.ts";
import { findAmount, type Pane } from "./screen.ts";
import { CATEGORY_TIER, COMMIT_CATEGORIES, q, type Scene, type Verdict } from "./verdict.ts";
import { findNoun, findVerb } from "./wordsets.ts";

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
    if (w.lists.navigation.find(p) && !findAmount(text)) continue;
    const amount = findAmount(text);
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
  // A dialog or sheet that names nothing, or only asks ("Are you sure?"), commits what the screen behind it shows
  // ("Confirm?" over a basket total); one that only tells something ("Added to favourites") does not.
  const asksOnly = pane.dialog && s.tree && (own.length === 0 || own.some((t) => /[?？؟]\s*$/.test(t.text)));
  if (!amountSeen && asksOnly) amountSeen = screenAmount(s.tree!, pane.container);
  // "Include media?" over "Export chat": a dialog that only asks is a step of what the screen behind it is titled.
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
  if (s.appCat === "money") {
    v.raise("high_risk", "money", "app.money-confirm", `${q(label)} confirms a step in the payments app ${s.app}`);
    return;
  }
  if (pane.dialog && !pane.texts.some((t) => !t.control))
    v.raise("confirm", "unknown_control", "pane.unreadable", `${q(label)} confirms a dialog whose text cannot be read`);
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
