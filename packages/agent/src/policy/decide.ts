// The permission checkpoint: decided outside the model, from the whole screen a person would look at (the target,
// the dialog or screen around it, amounts, the app's category, what is typed into which field, the deeplink) and
// the model's declared intent, which can raise a tier and never lower it. Pure and synchronous.
import type { Action } from "../actions/schema.ts";
import type { UiNode } from "../ports.ts";
import { appCategory, isKeyboardPackage, type AppCategory } from "./apps.ts";
import { CATEGORIES, type Category } from "./lexicon.ts";
import { prepare, type Prepared } from "./match.ts";
import { normalise, words as wordsOf } from "./normalise.ts";
import { DEFAULT_POLICY, type PolicyRules } from "./rules.ts";
import { findAmount, focusedField, hasText, idWords, isEditable, isWebView, labelOf, MAX_CONTROL_LABEL, paneOf, pathTo, type Pane } from "./screen.ts";
import { identityNumberKind, isCardNumber, looksLikeCode } from "./sensitive.ts";
import { compiledWords, findNoun, findVerb, type CompiledWords } from "./wordsets.ts";

export type Tier = "normal" | "confirm" | "high_risk";
export const RANK: Record<Tier, number> = { normal: 0, confirm: 1, high_risk: 2 };

/** Tier of a category's commit. */
export const CATEGORY_TIER: Record<Category, Tier> = {
  money: "high_risk",
  destructive: "high_risk",
  communication: "high_risk",
  credentials: "high_risk",
  permission: "high_risk",
  install: "high_risk",
  account: "confirm",
  social: "confirm",
  calendar: "confirm",
  personal_data: "confirm",
};

/** Kinds a human approves every time, however often they approved them before, and no workspace rule lowers. */
export const PROTECTED_KINDS: ReadonlySet<string> = new Set(["money", "destructive", "credentials", "permission"]);

const COMMIT_CATEGORIES: readonly Category[] = ["money", "destructive", "communication", "credentials", "permission", "install"];

export interface PermissionDecision {
  tier: Tier;
  /** What is approved: a category (money, destructive…), "unknown_control", "always_ask", or an action type. */
  kind: string;
  /** The rule that set the tier (e.g. "pane.inherit", "typed.card"). */
  ruleId: string;
  /** What on the screen matched, quoted, one sentence each; the first is the deciding one. */
  evidence: string[];
  /** Same as evidence (for the gate question). */
  reasons: string[];
  policyVersion: string;
  /** The control's label or id words, for the gate question. */
  targetLabel?: string;
  /** Approvals count per kind, target and app. */
  approvalKey: string;
  /** The rules could not read the screen well enough: the guard model, when configured, is asked. */
  unsure: boolean;
}

/** A legacy per-app minimum tier (package name pattern). */
export interface AppRule {
  pattern: RegExp;
  minTier: Tier;
  label: string;
}

export interface PermissionContext {
  /** The node the action lands on; for typing and Enter the focused field. */
  target?: UiNode;
  /** The sensed UI tree, for the target's surroundings. */
  tree?: UiNode | null;
  /** Foreground package. */
  packageName?: string;
  rules?: PolicyRules;
  appRules?: AppRule[];
}

const NAVIGATION_TYPES: ReadonlySet<Action["type"]> = new Set(["scroll", "navigate_back", "navigate_home", "wait", "answer", "status", "ask_user", "open_app", "drag"]);

class Verdict {
  tier: Tier = "normal";
  kind: string;
  ruleId = "action.harmless";
  evidence: string[] = [];
  unsure = false;
  constructor(kind: string) {
    this.kind = kind;
  }
  raise(tier: Tier, kind: string, ruleId: string, evidence: string): void {
    if (RANK[tier] > RANK[this.tier]) {
      this.tier = tier;
      this.kind = kind;
      this.ruleId = ruleId;
      this.evidence.unshift(evidence);
    } else if (tier !== "normal") this.evidence.push(evidence);
  }
  normal(ruleId: string, evidence: string): void {
    if (this.tier !== "normal") return;
    this.ruleId = ruleId;
    this.evidence = [evidence];
  }
  doubt(evidence: string): void {
    this.unsure = true;
    this.evidence.push(`unsure: ${evidence}`);
  }
}

const q = (s: string, n = 60) => JSON.stringify(s.length > n ? `${s.slice(0, n - 1)}…` : s);

interface Scene {
  action: Action;
  ctx: PermissionContext;
  w: CompiledWords;
  app: string;
  appCat: AppCategory | null;
}

export function decidePermission(action: Action, ctx: PermissionContext = {}): PermissionDecision {
  const rules = ctx.rules ?? DEFAULT_POLICY;
  const app = ctx.packageName ?? ctx.target?.packageName ?? "";
  const s: Scene = { action, ctx, w: compiledWords(rules.words), app, appCat: appCategory(app, rules.appCategories) };
  const v = new Verdict(action.type);
  let label = "";

  switch (action.type) {
    case "click":
    case "double_tap":
    case "long_press":
      if (ctx.target) label = judgeTap(s, v, ctx.target);
      else if (ctx.tree) v.normal("target.none", "the point is on no element of the screen");
      else {
        v.normal("target.no-tree", "the screen has no UI tree");
        v.doubt("the screen has no UI tree, so what the tap lands on cannot be read");
      }
      break;
    case "input_text":
    case "click_then_type":
      label = judgeTyping(s, v, action.text, ctx.target);
      break;
    case "keyboard_enter":
      judgeEnter(s, v, ctx.target ?? focusedField(ctx.tree), "Enter");
      break;
    case "open_deeplink":
      judgeDeeplink(s, v, action.uri);
      break;
    case "use_skill": {
      v.raise("confirm", "use_skill", "action.skill", `the skill ${q(action.skill)} acts for the agent`);
      const hit = findVerb(s.w, prepare(`${action.skill} ${Object.values(action.params ?? {}).join(" ")}`.replace(/[_/:?=&]+/g, " ")), COMMIT_CATEGORIES);
      if (hit) v.raise(CATEGORY_TIER[hit.category], hit.category, "skill.words", `the skill ${q(action.skill)} says ${q(hit.word)} (${hit.category})`);
      break;
    }
    default:
      if (NAVIGATION_TYPES.has(action.type)) v.normal("action.navigation", `${action.type} only moves around`);
  }

  if (action.intent && !NAVIGATION_TYPES.has(action.type)) judgeIntent(s, v, action.intent);
  applyWorkspaceLists(s, v, rules, label);
  if (!NAVIGATION_TYPES.has(action.type) && app)
    for (const rule of ctx.appRules ?? [])
      if (rule.pattern.test(app) && RANK[rule.minTier] > RANK[v.tier]) v.raise(rule.minTier, v.tier === "normal" ? "app_rule" : v.kind, "rules.app", `${app} is a ${rule.label}`);

  const targetKey = ctx.target ? ctx.target.resourceId || normalise(label) || ctx.target.className : action.type;
  return {
    tier: v.tier,
    kind: v.kind,
    ruleId: v.ruleId,
    evidence: v.evidence,
    reasons: v.evidence,
    policyVersion: rules.version,
    ...(label ? { targetLabel: label } : {}),
    approvalKey: `${v.kind}|${app}|${targetKey}`,
    unsure: v.unsure,
  };
}

function judgeTap(s: Scene, v: Verdict, target: UiNode): string {
  const { w } = s;
  const path = pathTo(s.ctx.tree, target);
  const label = labelOf(target);
  if (path.some((n) => isKeyboardPackage(n.packageName))) {
    // The keyboard's own keys type; only its Enter/Send key submits the focused field.
    if (w.lists.enterKeys.isWhole(prepare(label))) judgeEnter(s, v, focusedField(s.ctx.tree), `the keyboard key ${q(label)}`);
    else v.normal("keyboard.key", `${q(label || "key")} is a key of the on-screen keyboard`);
    return label;
  }
  if (isEditable(target) && s.action.type === "click") {
    v.normal("target.field", "a tap on a text field focuses it; what is typed is judged when it is typed");
    return label;
  }
  const pane = paneOf(path);
  if (isWebView(target) && !hasText(target)) {
    judgeWebView(s, v, pane);
    return label;
  }
  const readable = label || idWords(target.resourceId);
  if (!readable) {
    judgeUnlabelled(s, v, pane);
    return readable;
  }
  if (readable.length > MAX_CONTROL_LABEL) {
    v.normal("target.content", `the tap opens content (${q(readable, 40)}), it does not name an action`);
    return readable;
  }
  const p = prepare(readable);
  if (w.lists.dismiss.isWhole(p) || w.lists.negation.atStart(p)) {
    v.normal("target.dismiss", `${q(readable)} backs out`);
    return readable;
  }
  const amount = findAmount(readable);
  if (!amount && (w.lists.navigation.find(p) || w.lists.ownership.atStart(p))) {
    v.normal("target.navigation", `${q(readable)} opens a place to look at`);
    return readable;
  }
  const verb = findVerb(w, p);
  if (verb) {
    if (verb.category === "destructive" && w.lists.benignObjects.find(p)) v.normal("target.benign-object", `${q(readable)} only removes a view setting`);
    else v.raise(CATEGORY_TIER[verb.category], verb.category, "target.label", `the control ${q(readable)} says ${q(verb.word)} (${verb.category})`);
  }
  const submit = w.lists.composeSubmit.find(p);
  const filled = filledCompose(s, pane);
  if (submit && filled) v.raise("high_risk", "communication", "target.compose-submit", `${q(readable)} submits the filled field ${q(filled.text)}`);
  const confirming = w.lists.confirming.find(p) !== null;
  const noun = findNoun(w, p);
  if (noun && (confirming || normalise(readable) === noun.word))
    v.raise(CATEGORY_TIER[noun.category], noun.category, "target.label", `the control ${q(readable)} confirms ${q(noun.word)} (${noun.category})`);
  // A price on a button commits it ("Tip $5"); a price inside a product tile only describes what the tile opens.
  if (amount && (/Button/i.test(target.className) || (target.children.length === 0 && readable.length <= 32)))
    v.raise("high_risk", "money", "target.amount", `the control ${q(readable)} carries the amount ${amount}`);
  // A dialog's message says what its buttons do: any button in it that does not back out confirms it.
  if (w.lists.confirming.isWhole(p) || pane.dialog) inheritPane(s, v, pane, readable);
  if (isSwitch(target)) judgeSwitch(s, v, pane, readable);
  if (s.appCat === "permission" && v.tier === "normal") v.raise("high_risk", "permission", "app.permission", `${q(readable)} answers a permission request`);
  if (v.tier === "normal") {
    if (v.ruleId === "action.harmless") v.normal("target.plain", `${q(readable)} names no committing action`);
    doubtIfRiskyPane(s, v, pane, readable);
  }
  return readable;
}

/** A confirming control (OK, Continue) carries the risk of what its dialog or screen says. */
function inheritPane(s: Scene, v: Verdict, pane: Pane, label: string): void {
  const { w } = s;
  let amountSeen: { amount: string; text: string } | null = null;
  for (const { text } of pane.texts) {
    const p = prepare(text);
    if (w.lists.navigation.find(p)) continue;
    const amount = findAmount(text);
    if (amount && !amountSeen) amountSeen = { amount, text };
    const verb = findVerb(w, p, COMMIT_CATEGORIES);
    const noun = verb ? null : findNoun(w, p);
    const hit = verb ?? (noun && w.lists.confirming.find(p) ? noun : null);
    if (hit) {
      // "20,00 € an Anna senden?": a message that moves money is a payment.
      const category = amount && hit.category === "communication" ? "money" : hit.category;
      v.raise(CATEGORY_TIER[category], category, "pane.inherit", `${q(label)} confirms ${q(text)} (${q(hit.word)}, ${category})`);
      return;
    }
  }
  if (amountSeen) {
    v.raise("high_risk", "money", "pane.amount", `${q(label)} confirms a screen showing ${amountSeen.amount} (${q(amountSeen.text)})`);
    return;
  }
  if (s.appCat === "money") {
    v.raise("high_risk", "money", "app.money-confirm", `${q(label)} confirms a step in the payments app ${s.app}`);
    return;
  }
  if (pane.dialog && !pane.texts.some((t) => !t.control))
    v.raise("confirm", "unknown_control", "pane.unreadable", `${q(label)} confirms a dialog whose text cannot be read`);
}

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

function filledCompose(s: Scene, pane: Pane): UiNode | undefined {
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

function judgeWebView(s: Scene, v: Verdict, pane: Pane): void {
  for (const { text } of pane.texts) {
    const p = prepare(text);
    const amount = findAmount(text);
    const word = s.w.verbs.get("money")!.find(p) ?? s.w.nouns.get("money")!.find(p);
    if (amount || word) {
      v.raise("high_risk", "money", "webview.checkout", `a web page without readable elements on a checkout-like screen (${q(text)})`);
      return;
    }
  }
  if (s.appCat === "money") {
    v.raise("high_risk", "money", "webview.checkout", `a web page without readable elements in the payments app ${s.app}`);
    return;
  }
  v.normal("webview.unreadable", "a web page without readable elements");
  v.doubt("the tap lands in a web page whose elements cannot be read");
}

function fieldWords(f: UiNode): Prepared {
  return prepare(`${f.text} ${f.contentDesc} ${idWords(f.resourceId)}`);
}

function judgeEnter(s: Scene, v: Verdict, field: UiNode | undefined, via: string): void {
  if (!field) {
    v.normal("enter.no-field", `${via} with no focused field`);
    v.doubt("no focused field: what Enter submits cannot be read");
    return;
  }
  const fp = fieldWords(field);
  if (s.w.lists.searchField.find(fp)) {
    v.normal("enter.search", `${via} runs a search`);
    return;
  }
  if (s.w.lists.composeField.find(fp) || s.appCat === "messaging" || s.appCat === "social" || s.appCat === "email") {
    v.raise("high_risk", "communication", "enter.compose", `${via} in the message field ${q(field.text || idWords(field.resourceId))} sends it`);
    return;
  }
  v.normal("enter.field", `${via} in a field that is neither a search nor a message`);
  v.doubt("what Enter submits in this field cannot be read");
}

function judgeTyping(s: Scene, v: Verdict, text: string, field: UiNode | undefined): string {
  const { w } = s;
  const label = field ? (field.text || field.contentDesc || idWords(field.resourceId)) : "";
  const fp = field ? fieldWords(field) : prepare("");
  const pane = field ? paneOf(pathTo(s.ctx.tree, field)) : s.ctx.tree ? paneOf([s.ctx.tree]) : { texts: [], dialog: false, fields: [] };
  const paneWords = prepare(pane.texts.map((t) => t.text).join(" | "));
  if (field?.password) v.raise("high_risk", "credentials", "typed.password", "text typed into a password field");
  if (isCardNumber(text)) v.raise("high_risk", "credentials", "typed.card", "the typed text is a payment card number (Luhn checksum)");
  const identity = identityNumberKind(text);
  if (identity) v.raise("high_risk", "credentials", "typed.identity", `the typed text is a ${identity}`);
  const idField = w.lists.identityField.find(fp);
  if (idField && /[\p{L}\p{N}]{5,}/u.test(text)) v.raise("high_risk", "credentials", "field.identity", `an identity number typed into the ${q(idField)} field`);
  const cardField = w.lists.cardField.find(fp);
  if (cardField && text.replace(/\D/g, "").length >= 12) v.raise("high_risk", "credentials", "field.card", `digits typed into the ${q(cardField)} field`);
  // A code field (CVV, PIN, one-time code) takes 3–8 digits; a code asked for elsewhere on the screen, 4–8.
  const fieldCode = /^\d{3,8}$/.test(text.replace(/[\s-]/g, "")) ? w.lists.otpField.find(fp) : null;
  const paneCode = !fieldCode && looksLikeCode(text) ? w.lists.otpField.find(paneWords) : null;
  if (fieldCode ?? paneCode) v.raise("high_risk", "credentials", "typed.code", `a secret code typed where the screen asks for ${q((fieldCode ?? paneCode)!)}`);
  const personal = w.lists.personalField.find(fp);
  if (personal) v.raise("confirm", "personal_data", "field.personal", `personal data typed into the ${q(personal)} field`);
  else if (EMAIL.test(text) || PHONE.test(text)) v.raise("confirm", "personal_data", "typed.personal", `the typed text is ${EMAIL.test(text) ? "an email address" : "a phone number"}`);
  v.normal("typed.text", "typing only fills a field; sending or saving it is judged on its own");
  return label;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;
const PHONE = /^\+\d[\d\s().-]{6,18}$/;
/** Schemes whose links only open a place to look at (a web page, a store listing, a map). */
const VIEW_SCHEMES = /^(https?|market|geo|maps)$/i;

const PAYMENT_SCHEMES = /^(upi|alipays?|alipayqr|wxpay|paytmmp|phonepe|gpay|tez|paypal|venmo|cashme|bitcoin|ethereum|lightning|litecoin|kakaopay|supertoss|paypay)$/i;
const COMPOSER_SCHEMES = /^(tel|sms|smsto|mms|mmsto|mailto)$/i;

function judgeDeeplink(s: Scene, v: Verdict, uri: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1] ?? "";
  if (PAYMENT_SCHEMES.test(scheme) || (/^weixin$/i.test(scheme) && /pay/i.test(uri))) {
    v.raise("high_risk", "money", "deeplink.payment", `the link ${q(uri, 80)} opens a payment (${scheme}:)`);
    return;
  }
  if (COMPOSER_SCHEMES.test(scheme)) {
    v.normal("deeplink.composer", `the link opens a ${scheme} composer; sending or calling from it is judged there`);
    v.doubt("a link that prepares a call or message");
    return;
  }
  // The host of a web link names a site, not an action: only the path and query keys are read.
  const rest = uri.replace(/^[a-z][a-z0-9+.-]*:\/\/?/i, "");
  const web = /^https?$/i.test(scheme);
  const where = web ? rest.replace(/^[^/?#]*/, "") : rest;
  const text = where.replace(/=[^&#]*/g, " ").replace(/[/?&=#._:-]+/g, " ");
  const hit = findVerb(s.w, prepare(text), COMMIT_CATEGORIES);
  if (hit) v.raise(CATEGORY_TIER[hit.category], hit.category, "deeplink.words", `the link ${q(uri, 80)} says ${q(hit.word)} (${hit.category})`);
  else if (!VIEW_SCHEMES.test(scheme)) {
    v.raise("confirm", "deeplink", "deeplink.unknown", `the link ${q(uri, 80)} opens ${scheme || "an app"}: what it does there cannot be read`);
    v.doubt("an app link with no recognisable words");
  } else v.normal("deeplink.navigation", "the link opens a page");
}

const LEADS = new Set(["to", "and", "then", "will", "now", "please", "must", "should", "i", "we", "ll", "gonna", "try", "going", "next", "also", "und", "dann", "y", "luego", "et", "puis", "e", "depois", "и", "затем"]);

/** The model's declared intent raises the tier when it names a commit where a verb goes; it never lowers it. */
function judgeIntent(s: Scene, v: Verdict, intent: string): void {
  const n = normalise(intent);
  const cjk = { norm: n, words: "", compact: n.replace(/[^\p{L}\p{N}]+/gu, "") };
  const cjkHit = findVerb(s.w, cjk, COMMIT_CATEGORIES) ?? (s.w.lists.composeSubmit.find(cjk) ? { category: "communication" as Category, word: s.w.lists.composeSubmit.find(cjk)! } : null);
  let hit = cjkHit;
  if (!hit)
    for (const clause of n.split(/[.;,:!?。；，！？]+/)) {
      const tokens = wordsOf(clause).split(" ").filter(Boolean);
      for (let i = 0; i < tokens.length && !hit; i++) {
        if (i > 0 && !LEADS.has(tokens[i - 1]!)) continue;
        const rest = tokens.slice(i).join(" ");
        for (const c of COMMIT_CATEGORIES) {
          const word = s.w.verbs.get(c)!.findAtStart(rest);
          if (word) {
            hit = { category: c, word };
            break;
          }
        }
        const submit: string | null = hit ? null : s.w.lists.composeSubmit.findAtStart(rest);
        if (submit) hit = { category: "communication", word: submit };
      }
      if (hit) break;
    }
  if (hit) v.raise(CATEGORY_TIER[hit.category], hit.category, "intent", `the model's own stated intent ${q(intent, 80)} says ${q(hit.word)} (${hit.category})`);
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

function appMatches(pattern: string | undefined, app: string): boolean {
  if (!pattern) return true;
  return pattern.endsWith("*") ? app.startsWith(pattern.slice(0, -1)) : pattern === app;
}

function labelHas(label: string, phrase: string): boolean {
  const l = ` ${wordsOf(normalise(label))} `;
  return l.includes(` ${wordsOf(normalise(phrase))} `);
}

function applyWorkspaceLists(s: Scene, v: Verdict, rules: PolicyRules, label: string): void {
  if (NAVIGATION_TYPES.has(s.action.type)) return;
  for (const r of rules.alwaysAsk)
    if (appMatches(r.app, s.app) && (!r.label || (label && labelHas(label, r.label))))
      v.raise("confirm", v.tier === "normal" ? "always_ask" : v.kind, "rules.always_ask", `the workspace always asks for ${r.label ? q(r.label) : "any action"}${r.app ? ` in ${r.app}` : ""}`);
  if (v.tier === "normal" || PROTECTED_KINDS.has(v.kind) || v.ruleId === "rules.always_ask") return;
  for (const r of rules.neverAsk)
    if (appMatches(r.app, s.app) && label && labelHas(label, r.label)) {
      v.tier = "normal";
      v.ruleId = "rules.never_ask";
      v.evidence.unshift(`the workspace never asks for ${q(r.label)}${r.app ? ` in ${r.app}` : ""}`);
      return;
    }
}

/** The model asks the person a question: always a gate, of its own kind. */
export function askUserDecision(policyVersion = DEFAULT_POLICY.version): PermissionDecision {
  const evidence = ["the model asks the user"];
  return { tier: "confirm", kind: "question", ruleId: "action.ask_user", evidence, reasons: evidence, policyVersion, approvalKey: "question", unsure: false };
}

export { CATEGORIES };
