// The permission checkpoint: decisions from the whole screen, approvals, the optional guard model, policy as data.
export { decidePermission, askUserDecision, takeoverDecision, CATEGORY_TIER, PROTECTED_KINDS, RANK, type Tier, type PermissionDecision, type PermissionContext, type AppRule } from "./decide.ts";
export { needsGate, recordApproval, AUTO_ALLOW_AFTER, type SessionApprovals } from "./approvals.ts";
export { guardMessages, applyGuardVerdict, consultGuard, GuardVerdictSchema, GUARD_JSON_SCHEMA, type GuardVerdict, type GuardOutcome } from "./guard.ts";
export { PolicyRulesSchema, WorkspacePolicyRulesSchema, parsePolicyRules, checkWorkspacePolicyRules, workspacePolicyRules, workspacePolicyVersion, mergePolicyRules, DEFAULT_POLICY, BUILTIN_POLICY_VERSION, type PolicyRules, type PolicyRulesInput, type ParsePolicyResult } from "./rules.ts";
export { CATEGORIES, LEXICON, LANGUAGES, type Category, type LanguageWords } from "./lexicon.ts";
export { APP_CATEGORIES, appCategory, type AppCategory, type AppCategoryRule } from "./apps.ts";
export { normalise } from "./normalise.ts";
export { isCardNumber, identityNumberKind } from "./sensitive.ts";
export { labelOf, idWords, paneOf, pathTo, focusedField, findAmount, isDialogContainer } from "./screen.ts";
export { PLATFORM_WORDS, type PlatformWords } from "./platform-words.ts";
