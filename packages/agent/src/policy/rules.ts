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
      message: `The policy rules were not accepted (${describe(r.error)}). Fix the listed fields and save again.`,
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

/** What a workspace saves: the rules without their version (the store numbers each save), unknown fields refused. */
export const WorkspacePolicyRulesSchema = PolicyRulesSchema.omit({ version: true }).strict();

/** The version a workspace's saved rules are recorded under in every decision. */
export function workspacePolicyVersion(version: number): string {
  return `workspace-v${version}`;
}

/** Validates rules a workspace is about to save (without a version), with a message naming each wrong field. */
export function checkWorkspacePolicyRules(input: unknown): { ok: true } | { ok: false; code: "INVALID_POLICY_RULES"; message: string } {
  const r = WorkspacePolicyRulesSchema.safeParse(input);
  if (r.success) return { ok: true };
  return { ok: false, code: "INVALID_POLICY_RULES", message: `The policy rules were not accepted (${describe(r.error)}). Fix the listed fields and save again.` };
}

/** A workspace's stored rules (as the control plane returns them), merged over the defaults under their version. */
export function workspacePolicyRules(stored: { version: number; rules: unknown }): ParsePolicyResult {
  const checked = WorkspacePolicyRulesSchema.safeParse(stored.rules);
  if (!checked.success)
    return {
      ok: false,
      code: "INVALID_POLICY_RULES",
      message: `The workspace's policy rules (version ${stored.version}) are not valid for this agent (${describe(checked.error)}); an admin saves a corrected version, then start the run again.`,
    };
  return parsePolicyRules({ ...(stored.rules as object), version: workspacePolicyVersion(stored.version) });
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "rules"}: ${i.message}`).join("; ");
}
