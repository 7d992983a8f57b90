// What a gate is: an approval (a person approves or denies an action the runtime proposes) or a question (a person
// answers, with one of its options or in words). The kind is stored with the gate when it opens; readers never
// guess it from the option strings.
export const GATE_KINDS = ["approval", "question"] as const;
export type GateKind = (typeof GATE_KINDS)[number];

/** The options an approval offers, in this order. */
export const APPROVAL_OPTIONS = ["approve", "deny"] as const;

/**
 * The kind of a gate whose opener did not say: an approval when every option is "approve" or "deny", else a
 * question (a gate without options is answered in words). Migration gate_in_core gave the gates opened before
 * kinds were stored their kind by this rule, in SQL.
 */
export function gateKindOf(options: readonly string[]): GateKind {
  const approval: readonly string[] = APPROVAL_OPTIONS;
  return options.length > 0 && options.every((o) => approval.includes(o)) ? "approval" : "question";
}

/**
 * The approval categories a workspace's approval rules are kept per: the policy's own words for the kinds a person
 * approves every time (money, destructive, credentials, permission; packages/agent policy PROTECTED_KINDS), and
 * other for every other gate (a question, a confirm of an unknown control…).
 */
export const APPROVAL_CATEGORIES = ["money", "destructive", "credentials", "permission", "other"] as const;
export type ApprovalCategory = (typeof APPROVAL_CATEGORIES)[number];

/** What an expired gate's approval rule does: deny (the gate expires, which the runtime reads as not approved) or
 * escalate (the gate waits on, answerable by admins only). */
export const AFTER_EXPIRY = ["deny", "escalate"] as const;
export type AfterExpiry = (typeof AFTER_EXPIRY)[number];

/** What gateCategoryOf and gateTargetOf read of a gate: its kind and the policy decision behind it. */
export interface GateEvidence {
  kind: GateKind;
  policy?: { ruleId?: string; kind?: string; approvalKey?: string } | null;
}

const CATEGORY_WORD = new RegExp(`\\b(${APPROVAL_CATEGORIES.filter((c) => c !== "other").join("|")})\\b`);

/**
 * A gate's approval category, in this one place: a question is other; an approval takes the category the policy
 * named (its decision's kind), else the category its rule's id names ("app.money-confirm", "typed.credentials"),
 * else other (a communication, an install, an unknown control…).
 */
export function gateCategoryOf(g: GateEvidence): ApprovalCategory {
  if (g.kind !== "approval" || !g.policy) return "other";
  const named = (APPROVAL_CATEGORIES as readonly string[]).includes(g.policy.kind ?? "") ? (g.policy.kind as ApprovalCategory) : null;
  if (named) return named;
  const inRule = CATEGORY_WORD.exec(g.policy.ruleId ?? "")?.[1];
  return (inRule as ApprovalCategory | undefined) ?? "other";
}

/**
 * What an approval would act on: the app and the proposed action's target, as the policy keyed its approvals
 * ("<category>|<app>|<target>", the category left off); null when the policy gave no key (a question). Gates of one
 * category and one target, across runs, may be decided in one batch decision.
 */
export function gateTargetOf(g: GateEvidence): string | null {
  if (g.kind !== "approval") return null;
  const key = g.policy?.approvalKey;
  if (!key) return null;
  const [, ...rest] = key.split("|");
  return rest.length ? rest.join("|").slice(0, 500) : null;
}
