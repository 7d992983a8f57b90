// The optional guard model: a cheap text model asked when the rules were unsure and about every commit-shaped
// action (a dialog's positive button, a flow's primary button, a slide control, Enter that submits) the rules left
// normal (the decision's `unsure`). It returns a structured verdict with its reason and can raise the tier, never
// lower it; without a guard, or when it fails, the rules' decision stands.
import { z } from "zod";
import type { Action } from "../actions/schema.ts";
import { describeAction } from "../actions/schema.ts";
import type { ChatMessage, Model } from "../ports.ts";
import { fenceUntrusted, UNTRUSTED_RULE } from "../prompts/fence.ts";
import { parseReply } from "../prompts/planner.ts";
import { CATEGORY_TIER, RANK, type PermissionContext, type PermissionDecision } from "./decide.ts";
import { CATEGORIES } from "./lexicon.ts";
import { labelOf, paneOf, pathTo } from "./screen.ts";

export const GuardVerdictSchema = z.object({
  tier: z.enum(["normal", "confirm", "high_risk"]),
  category: z.enum(CATEGORIES).optional(),
  reason: z.string().min(1),
});
export type GuardVerdict = z.infer<typeof GuardVerdictSchema>;
export const GUARD_JSON_SCHEMA = z.toJSONSchema(GuardVerdictSchema, { io: "input" }) as Record<string, unknown>;

const GUARD_SYSTEM = `You check one action a phone agent is about to take, for a human who must approve risky ones.
Tiers: "high_risk" = spends money, deletes or resets data, sends or publishes something, reveals credentials or identity numbers, grants a permission, installs software; "confirm" = anything else a careful person would want to see first; "normal" = only looks or navigates.
Judge what the action will do on this screen. ${UNTRUSTED_RULE}
Reply with one JSON object: {"tier":"normal"|"confirm"|"high_risk","category":"${CATEGORIES.join('"|"')}","reason":"one sentence"}.`;

/** What the guard sees: the action, the rules' decision, and the screen's texts (fenced: they are data). */
export function guardMessages(action: Action, ctx: PermissionContext, d: PermissionDecision): ChatMessage[] {
  const target = ctx.target;
  const pane = target ? paneOf(pathTo(ctx.tree, target)) : ctx.tree ? paneOf([ctx.tree]) : null;
  const screen = [
    `app: ${ctx.packageName ?? "unknown"}`,
    target ? `target: ${JSON.stringify(labelOf(target))} (${target.className.replace(/^.*\./, "")}${target.resourceId ? `, id ${target.resourceId.replace(/^.*:id\//, "")}` : ""})` : "target: none",
    pane ? `${pane.dialog ? "dialog" : "screen"} texts: ${pane.texts.map((t) => JSON.stringify(t.text)).join(", ") || "(none)"}` : "",
  ].filter(Boolean);
  return [
    { role: "system", content: GUARD_SYSTEM },
    {
      role: "user",
      content: [
        `ACTION (written by the agent's model):\n${fenceUntrusted("model-action", describeAction(action))}`,
        action.intent ? `THE MODEL'S OWN STATED INTENT (its words, unverified):\n${fenceUntrusted("model-intent", action.intent)}` : "",
        `SCREEN:\n${fenceUntrusted("screen", screen.join("\n"))}`,
        d.commitShaped && d.tier === "normal"
          ? `The rules found nothing risky (${d.evidence.join("; ")}), but the action commits what this screen shows: say whether it spends, deletes, sends, reveals, grants or installs.`
          : `The rules decided ${d.tier} (${d.kind}) but were unsure: ${d.evidence.join("; ")}`,
        "Your verdict (one JSON object):",
      ]
        .filter(Boolean)
        .join("\n"),
    },
  ];
}

export type GuardOutcome = { decision: PermissionDecision; verdict: GuardVerdict | null; error?: string };

/** Raise-only: a verdict above the rules' tier raises it (with the guard's reason as evidence); below, it is noted. */
export function applyGuardVerdict(d: PermissionDecision, replyText: string): GuardOutcome {
  const verdict = parseReply(replyText, GuardVerdictSchema);
  if (!verdict) return { decision: d, verdict: null, error: "GUARD_REPLY_UNREADABLE" };
  const said = `guard model (its words): ${JSON.stringify(verdict.reason.slice(0, 200))}`;
  if (RANK[verdict.tier] <= RANK[d.tier]) return { decision: { ...d, evidence: [...d.evidence, `${said}; kept ${d.tier}`], reasons: [...d.reasons, `${said}; kept ${d.tier}`] }, verdict };
  const kind = verdict.category && RANK[CATEGORY_TIER[verdict.category]] >= RANK[verdict.tier] ? verdict.category : d.kind === "click" || d.kind === "input_text" ? "guard" : d.kind;
  const evidence = [`${said}; raised to ${verdict.tier}`, ...d.evidence];
  const approvalKey = `${kind}|${d.approvalKey.split("|").slice(1).join("|")}`;
  return { decision: { ...d, tier: verdict.tier, kind, ruleId: "guard.raise", evidence, reasons: evidence, approvalKey }, verdict };
}

/** Asks the guard model directly (the executor goes through its own metered model call and `applyGuardVerdict`). */
export async function consultGuard(model: Model, action: Action, ctx: PermissionContext, d: PermissionDecision, signal?: AbortSignal): Promise<GuardOutcome> {
  const r = await model.complete({ role: "guard", messages: guardMessages(action, ctx, d), jsonSchema: { name: "guard_verdict", schema: GUARD_JSON_SCHEMA }, temperature: 0, ...(signal ? { signal } : {}) });
  if (!r.ok) return { decision: d, verdict: null, error: `GUARD_MODEL_FAILED: ${r.error.message}` };
  return applyGuardVerdict(d, r.value.text);
}
