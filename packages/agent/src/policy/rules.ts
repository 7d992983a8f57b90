// The policy as data: a versioned rules object a workspace can extend (extra words per category, app categories,
// always-ask and never-ask lists), validated by its schema and merged over the built-in defaults. Every decision
// records the version it was made under.
import { z } from "zod";
import { APP_CATEGORIES, type AppCategoryRule } from "./apps.ts";
import { CATEGORIES, type Category } from "./lexicon.ts";

export const BUILTIN_POLICY_VERSION = "builtin-2026.11";

const LabelRuleSchema = z.object({
  /** A package name or a prefix ending in "*"; absent = any app. */
  app: z.string().min(1).optional(),
  /** Words of the control's label (normalised, whole words); absent = any control in the app. */
  label: z.string().min(1).optional(),
});

export const PolicyRulesSchema = z.object({
  version: z.string().min(1),
  /** Extra commit words per category, in any language. */
  words: z.partialRecord(z.enum(CATEGORIES), z.array(z.string().min(1))).default({}),
  appCategories: z.array(z.object({ app: z.string().min(1), category: z.enum(APP_CATEGORIES) })).default([]),
  /** Controls that always open a gate (at least confirm-tier). */
  alwaysAsk: z.array(LabelRuleSchema).default([]),
  /** Controls this workspace calls harmless. They never lower money, credentials, destructive or permission decisions. */
  neverAsk: z.array(LabelRuleSchema.extend({ label: z.string().min(1) })).default([]),
});

export type PolicyRules = z.infer<typeof PolicyRulesSchema>;
export type PolicyRulesInput = z.input<typeof PolicyRulesSchema>;

export const DEFAULT_POLICY: PolicyRules = { version: BUILTIN_POLICY_VERSION, words: {}, appCategories: [], alwaysAsk: [], neverAsk: [] };

export type ParsePolicyResult = { ok: true; rules: PolicyRules } | { ok: false; code: "INVALID_POLICY_RULES"; message: string };

/** Validates a workspace's rules (as stored or edited) and merges them over the defaults. */
export function parsePolicyRules(input: unknown): ParsePolicyResult {
  const r = PolicyRulesSchema.safeParse(input);
  if (!r.success)
    return {
      ok: false,
      code: "INVALID_POLICY_RULES",
      message: `The policy rules were not accepted (${r.error.issues.map((i) => `${i.path.join(".") || "rules"}: ${i.message}`).join("; ")}). Fix the listed fields and save again.`,
    };
  return { ok: true, rules: mergePolicyRules(DEFAULT_POLICY, r.data) };
}

/** The workspace's additions over a base: words and lists add up; its app categories come first. */
export function mergePolicyRules(base: PolicyRules, extra: PolicyRules): PolicyRules {
  const words: Partial<Record<Category, string[]>> = { ...base.words };
  for (const [c, list] of Object.entries(extra.words) as [Category, string[]][]) words[c] = [...(words[c] ?? []), ...list];
  const appCategories: AppCategoryRule[] = [...extra.appCategories, ...base.appCategories];
  return {
    version: extra.version === base.version ? base.version : `${base.version}+${extra.version}`,
    words,
    appCategories,
    alwaysAsk: [...base.alwaysAsk, ...extra.alwaysAsk],
    neverAsk: [...base.neverAsk, ...extra.neverAsk],
  };
}
