// What a gate is: an approval (a person approves or denies an action the runtime proposes), a question (a person
// answers, with one of its options or in words) or a takeover (a person operates the phone, then hands it back).
// The kind is stored with the gate when it opens; readers never guess it from the option strings.
import { z } from "zod";

export const GATE_KINDS = ["approval", "question", "takeover"] as const;
export type GateKind = (typeof GATE_KINDS)[number];

/** The options an approval offers, in this order. */
export const APPROVAL_OPTIONS = ["approve", "deny"] as const;

/**
 * The kind of a gate whose opener did not say: an approval when every option is "approve" or "deny", else a
 * question (a gate without options is answered in words). Migration gate_in_core gave the gates opened before
 * kinds were stored their kind by this rule, in SQL.
 */
export function gateKindOf(options: readonly string[]): Exclude<GateKind, "takeover"> {
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

// ─── Takeover ─────────────────────────────────────────────────────────────────────────────────────────────

/** Why the agent asks a person to take over (its typed ask): a login, a captcha, a one-time code, a screen it cannot
 * see (all black, or flagged secure), or another reason it says in words. */
export const TAKEOVER_REASONS = ["login", "captcha", "one_time_code", "blind_screen", "other"] as const;
export type TakeoverReason = (typeof TAKEOVER_REASONS)[number];

/** What a masked text is stored and shown as: typed text in a password field (or marked secret) never is. */
export const MASKED_TEXT = "••••••";

const Px = z.number().int().min(0).max(20_000);
const PxPoint = z.strictObject({ x: Px, y: Px });
const PressMs = z.number().int().min(1).max(60_000).optional();

/**
 * A person's action on the phone during a takeover, as the browser performed it: in device pixels of the screenshot
 * it was performed on (the same actions as an agent's: tap, swipe, long press, type, back, home).
 */
export const PersonAction = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("tap"), x: Px, y: Px }),
  z.strictObject({ type: z.literal("long_press"), x: Px, y: Px, durationMs: PressMs }),
  z.strictObject({ type: z.literal("swipe"), from: PxPoint, to: PxPoint, durationMs: PressMs }),
  z.strictObject({ type: z.literal("type"), text: z.string().max(2000) }),
  z.strictObject({ type: z.literal("back") }),
  z.strictObject({ type: z.literal("home") }),
]);
export type PersonAction = z.infer<typeof PersonAction>;

/** Who took a step: the run's agent, or a member during a takeover (their "user".id and name). */
export type StepActor = { kind: "agent" } | { kind: "member"; memberId: string; name: string };

/** What a person's step is stored as: the action in 0–1000 screen coordinates (as an agent's), its text masked
 * when secret. `px` is where a point action landed, in pixels. */
export function personStepAction(a: PersonAction, screen: { width: number; height: number }, secret: boolean): { action: Record<string, unknown>; px: { x: number; y: number } | null } {
  const norm = (p: { x: number; y: number }) => ({
    x: Math.min(1000, Math.max(0, Math.round((p.x * 1000) / screen.width))),
    y: Math.min(1000, Math.max(0, Math.round((p.y * 1000) / screen.height))),
  });
  switch (a.type) {
    case "tap":
    case "long_press":
      return { action: { ...a, ...norm(a) }, px: { x: a.x, y: a.y } };
    case "swipe":
      return { action: { ...a, from: norm(a.from), to: norm(a.to) }, px: a.from };
    case "type":
      return { action: secret ? { type: "type", text: MASKED_TEXT, masked: true } : { ...a }, px: null };
    default:
      return { action: { ...a }, px: null };
  }
}

/** A person's step in words, for the handoff and the planner's note ("tapped at (540, 1200)", "typed ••••••"). */
export function personStepWords(a: PersonAction, secret: boolean): string {
  switch (a.type) {
    case "tap":
      return `tapped at (${a.x}, ${a.y})`;
    case "long_press":
      return `long-pressed at (${a.x}, ${a.y})`;
    case "swipe":
      return `swiped from (${a.from.x}, ${a.from.y}) to (${a.to.x}, ${a.to.y})`;
    case "type":
      return secret ? `typed a secret (${MASKED_TEXT})` : `typed ${JSON.stringify(a.text)}`;
    case "back":
      return "pressed Back";
    case "home":
      return "pressed Home";
  }
}
