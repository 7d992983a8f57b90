// The permission checkpoint: decided outside the model, from the whole screen a person would look at (the target,
// the dialog or screen around it, amounts, the app's category, what is typed into which field, the deeplink) and
// the model's declared intent, which can raise a tier and never lower it. Pure and synchronous.
import type { Action } from "../actions/schema.ts";
import type { OcrReading, UiNode } from "../ports.ts";
import { appCategoryFrom } from "./app-catalog.ts";
import { navigationFirst } from "./commit.ts";
import { judgeUri } from "./deeplinks.ts";
import { judgeEnter } from "./keyboard.ts";
import { CATEGORIES, type Category } from "./lexicon.ts";
import { prepare } from "./match.ts";
import { normalise, words as wordsOf } from "./normalise.ts";
import { DEFAULT_POLICY, type PolicyRules } from "./rules.ts";
import { focusedField } from "./screen.ts";
import { judgeTapAction } from "./tap.ts";
import { judgeTyping } from "./typing.ts";
import { CATEGORY_TIER, COMMIT_CATEGORIES, q, RANK, Verdict, type Scene, type Tier } from "./verdict.ts";
import { compiledWords, findVerb } from "./wordsets.ts";

export { CATEGORY_TIER, RANK, type Tier };

/** Kinds a human approves every time, however often they approved them before, and no workspace rule lowers. */
export const PROTECTED_KINDS: ReadonlySet<string> = new Set(["money", "destructive", "credentials", "permission"]);


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
  /** The guard model, when configured, is asked: the rules could not read the screen well enough, or the action
   * is commit-shaped (`commitShaped`) and the rules left it normal. */
  unsure: boolean;
  /** The action commits something by the screen's structure (a dialog's positive button, a flow's primary button,
   * a slide control, Enter that sends), whatever its words. */
  commitShaped: boolean;
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
  /** What a person sees on a blind screen (a WebView or canvas with no nodes, a secure black window), read from
   * the screenshot by OCR; `null` when no reading could be had. Read only when the tree is blind. */
  ocr?: OcrReading | null;
  /** The tap point in screen pixels (the OCR item under it is the target); else the action's point on the tree's root. */
  point?: { x: number; y: number };
}

const NAVIGATION_TYPES: ReadonlySet<Action["type"]> = new Set(["scroll", "navigate_back", "navigate_home", "wait", "answer", "status", "ask_user", "open_app", "drag"]);

export function decidePermission(action: Action, ctx: PermissionContext = {}): PermissionDecision {
  const rules = ctx.rules ?? DEFAULT_POLICY;
  const app = ctx.packageName ?? ctx.target?.packageName ?? "";
  // What the app is: the workspace's list, the catalog, the package's words, else what its screen shows.
  const appCat = appCategoryFrom({ packageName: app, screenText: screenText(ctx.tree) }, rules.appCategories)?.category ?? null;
  const s: Scene = { action, tree: ctx.tree, w: compiledWords(rules.words), app, appCat };
  const v = new Verdict(action.type);
  let label = "";

  switch (action.type) {
    case "click":
    case "double_tap":
    case "long_press":
      label = judgeTapAction(s, v, ctx.target, ctx.ocr, ctx.point);
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

  if (action.intent && !NAVIGATION_TYPES.has(action.type)) judgeIntent(s, v, withoutLabel(action.intent, label));
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
    unsure: v.unsure || (v.commitShaped && v.tier === "normal"),
    commitShaped: v.commitShaped,
  };
}

const ARTICLE_SEGMENT = /^[^-_]+(?:[-_][^-_]+){4,}$/;

/** A link judged by what it opens (deeplinks.ts: scheme, host, inner intent, extras), then by the words of its
 * path (an app's own "shop://checkout/pay"), which can only raise. */
function judgeDeeplink(s: Scene, v: Verdict, uri: string): void {
  const link = judgeUri(uri);
  if (link.tier === "normal") v.normal("deeplink.navigation", link.evidence);
  else if (link.category === "unknown_app" || !link.category) {
    v.raise(link.tier, "deeplink", "deeplink.unknown", link.evidence);
    v.doubt("an app link whose effect cannot be read");
  } else v.raise(link.tier, link.category, `deeplink.${link.category}`, link.evidence);
  // The host of a web link names a site, not an action: only the path and query keys are read.
  const rest = uri.replace(/^[a-z][a-z0-9+.-]*:\/\/?/i, "");
  // A web page's own name in its path is an article's title ("/news/monsoon-update-imd-alert-134567890.html"), not
  // an action: a path segment that is a slug of five or more words is not read.
  const where = /^https?:/i.test(uri) ? rest.replace(/^[^/?#]*/, "").replace(/^[^?#]*/, (path) => path.split("/").filter((seg) => !ARTICLE_SEGMENT.test(seg)).join("/")) : rest;
  const text = where.replace(/=[^&#]*/g, " ").replace(/[/?&=#._:-]+/g, " ");
  const p = prepare(text);
  const hit = findVerb(s.w, p, COMMIT_CATEGORIES);
  // A web page whose path names a place before the act ("/bn/help/send-money", "/faq/how-to-pay") is a page about
  // it, as such a heading on a screen is.
  if (hit && /^https?:/i.test(uri) && navigationFirst(s, p, true)) v.normal("deeplink.page", `the link ${q(uri, 80)} opens a page about ${q(hit.word)}, not the act`);
  else if (hit) v.raise(CATEGORY_TIER[hit.category], hit.category, "deeplink.words", `the link ${q(uri, 80)} says ${q(hit.word)} (${hit.category})`);
}

const LEADS = new Set(["to", "and", "then", "will", "now", "please", "must", "should", "i", "we", "ll", "gonna", "try", "going", "next", "also", "und", "dann", "y", "luego", "et", "puis", "e", "depois", "и", "затем"]);

/** The intent without the control's own label quoted in it ('tap "허용 안함"'): the label was judged where it
 * stands on the screen (a negated "Allow" backs out), so the intent adds only what it says besides. */
function withoutLabel(intent: string, label: string): string {
  return label.trim() ? intent.split(label.trim()).join(" ") : intent;
}

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
  if (hit) v.raise(CATEGORY_TIER[hit.category], hit.category, "intent.words", `the model's own stated intent ${q(intent, 80)} says ${q(hit.word)} (${hit.category})`);
}

/** The screen's words, for the app's category when nothing else tells it (at most 2,000 characters). */
function screenText(tree: UiNode | null | undefined): string {
  const parts: string[] = [];
  let size = 0;
  const stack = tree ? [tree] : [];
  while (stack.length && size < 2000) {
    const n = stack.pop()!;
    for (const t of [n.text, n.contentDesc])
      if (t) {
        parts.push(t);
        size += t.length + 1;
      }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return parts.join(" ");
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
  return { tier: "confirm", kind: "question", ruleId: "action.ask_user", evidence, reasons: evidence, policyVersion, approvalKey: "question", unsure: false, commitShaped: false };
}

/** The model (or the sense step, on a blind screen) asks a person to take over the phone: always a gate, of its own kind. */
export function takeoverDecision(reason: string, policyVersion = DEFAULT_POLICY.version): PermissionDecision {
  const evidence = [reason === "blind_screen" ? "the screen cannot be seen (its screenshot is black or the window is secure)" : `the model asks a person to take over (${reason})`];
  return { tier: "confirm", kind: "takeover", ruleId: `action.ask_takeover.${reason}`, evidence, reasons: evidence, policyVersion, approvalKey: "takeover", unsure: false, commitShaped: false };
}

export { CATEGORIES };
