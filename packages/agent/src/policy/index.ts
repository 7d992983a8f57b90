// The permission checkpoint (docs/concepts.md, "Safety"): decided outside the model, from the action type, the target
// element's text/description/id, the app and the model's declared intent. Pure.
import type { Action } from "../actions/schema.ts";
import type { UiNode } from "../ports.ts";
import { CONFIRM_WORDS, HIGH_RISK_WORDS, idWords, matchWords, type WordMatch } from "./words.ts";

export { HIGH_RISK_WORDS, CONFIRM_WORDS, matchWords, type RiskCategory } from "./words.ts";

export type Tier = "normal" | "confirm" | "high_risk";

export interface PermissionDecision {
  tier: Tier;
  /** What is approved: a risk category or an action type. Approvals count per kind. */
  kind: string;
  reasons: string[];
  /** For the gate question. */
  targetLabel?: string;
}

export interface AppRule {
  /** Package name pattern. */
  pattern: RegExp;
  /** Minimum tier for any action that acts on the app (navigation excluded). */
  minTier: Tier;
  label: string;
}

export const DEFAULT_APP_RULES: AppRule[] = [
  { pattern: /(bank|wallet|alipay|paypal|venmo|pay\b|\.pay\.|finance|broker|trading)/i, minTier: "confirm", label: "payments/banking app" },
  { pattern: /(settings|packageinstaller|vending)/i, minTier: "confirm", label: "system settings / installer" },
];

const NAVIGATION: Action["type"][] = ["scroll", "navigate_back", "navigate_home", "wait", "answer", "status", "ask_user", "open_app"];
const TYPE_TIER: Partial<Record<Action["type"], Tier>> = {
  input_text: "confirm",
  click_then_type: "confirm",
  open_deeplink: "confirm",
  use_skill: "confirm",
};

/** Labels longer than this are treated as content, not as the name of what a tap does. */
export const MAX_CONTROL_LABEL = 40;

const RANK: Record<Tier, number> = { normal: 0, confirm: 1, high_risk: 2 };
const max = (a: Tier, b: Tier): Tier => (RANK[a] >= RANK[b] ? a : b);

export interface PermissionContext {
  /** The element the action lands on (resolved from the point or the element reference). */
  target?: UiNode;
  packageName?: string;
  appRules?: AppRule[];
}

/** All visible text of a node and its descendants (a button's label often sits in a child). */
export function nodeLabel(n: UiNode): string {
  const parts: string[] = [];
  const walk = (x: UiNode, depth: number) => {
    for (const t of [x.text, x.contentDesc]) if (t && !parts.includes(t)) parts.push(t);
    if (depth < 3) for (const c of x.children) walk(c, depth + 1);
  };
  walk(n, 0);
  return parts.join(" · ");
}

export function decidePermission(action: Action, ctx: PermissionContext): PermissionDecision {
  let tier: Tier = TYPE_TIER[action.type] ?? "normal";
  let kind: string = action.type;
  const reasons: string[] = [];
  if (tier !== "normal") reasons.push(`${action.type} is a ${tier}-tier action`);

  const consider = (m: WordMatch | null, source: string, level: Tier) => {
    if (!m) return;
    if (RANK[level] > RANK[tier] || (RANK[level] === RANK[tier] && kind === action.type)) kind = m.category;
    tier = max(tier, level);
    reasons.push(`${source} matches "${m.word}" (${m.category}, ${m.language})`);
  };

  let targetLabel: string | undefined;
  const acts = !NAVIGATION.includes(action.type);
  // Focusing a text field publishes nothing ("Post your reply"): what is typed is judged as confirm-tier.
  const editable = ctx.target ? /EditText|TextField|AutoComplete/i.test(ctx.target.className) : false;
  if (acts && ctx.target && !(editable && action.type === "click")) {
    const label = nodeLabel(ctx.target);
    targetLabel = label || idWords(ctx.target.resourceId);
    // A control's label is short; a long label is content (a post, a mail) — its words are data, not the action.
    // The id only speaks when there is no visible label ("login_wall_not_now" is labelled "Not now").
    const texts = label ? (label.length <= MAX_CONTROL_LABEL ? label : "") : idWords(ctx.target.resourceId);
    consider(matchWords(texts, HIGH_RISK_WORDS), "target element", "high_risk");
    if (tier !== "high_risk") consider(matchWords(texts, CONFIRM_WORDS), "target element", "confirm");
  }
  if (action.type === "keyboard_enter" && ctx.target) {
    // Enter submits whatever has focus: judge it by the focused field's neighbourhood like a tap.
    consider(matchWords(nodeLabel(ctx.target), HIGH_RISK_WORDS), "focused field", "high_risk");
  }
  if (action.intent && acts) {
    consider(matchWords(action.intent, HIGH_RISK_WORDS, { verbPosition: true }), "declared intent", "high_risk");
    if (tier === "normal") consider(matchWords(action.intent, CONFIRM_WORDS, { verbPosition: true }), "declared intent", "confirm");
  }
  if (action.type === "use_skill" || action.type === "open_deeplink") {
    const text = action.type === "use_skill" ? `${action.skill} ${Object.values(action.params ?? {}).join(" ")}` : action.uri;
    consider(matchWords(text.replace(/[_/:?=&]+/g, " "), HIGH_RISK_WORDS), action.type, "high_risk");
  }
  if (acts && ctx.packageName)
    for (const rule of ctx.appRules ?? DEFAULT_APP_RULES)
      if (rule.pattern.test(ctx.packageName) && RANK[rule.minTier] > RANK[tier]) {
        tier = rule.minTier;
        reasons.push(`${ctx.packageName} is a ${rule.label}`);
      }
  return { tier, kind, reasons, ...(targetLabel ? { targetLabel } : {}) };
}

/** Per-session approvals: confirm-tier kinds become auto-allowed after 3 consecutive approvals. */
export interface SessionApprovals {
  /** kind → consecutive approvals in this session. */
  streak: Record<string, number>;
}

export const AUTO_ALLOW_AFTER = 3;

export function needsGate(d: PermissionDecision, approvals: SessionApprovals): boolean {
  if (d.tier === "normal") return false;
  if (d.tier === "high_risk") return true;
  return (approvals.streak[d.kind] ?? 0) < AUTO_ALLOW_AFTER;
}

export function recordApproval(approvals: SessionApprovals, kind: string, approved: boolean): SessionApprovals {
  return { streak: { ...approvals.streak, [kind]: approved ? (approvals.streak[kind] ?? 0) + 1 : 0 } };
}
