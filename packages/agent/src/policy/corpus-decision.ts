// A labelled screen decided as the executor decides it: the target, the whole tree and the package; on a blind
// screen the drawn words as the OCR items the reader would return, with the tap point on the drawn control. Gated
// as a person meets it: high-risk, or confirm with no approvals to auto-allow it. Used by the corpus test and the
// policy benchmark, so both count the same way.
import { needsGate } from "./approvals.ts";
import type { BuiltCase } from "./corpus/build.ts";
import { decidePermission, type PermissionContext, type PermissionDecision } from "./decide.ts";

export function decisionContext(b: BuiltCase): PermissionContext {
  const ctx: PermissionContext = { ...(b.target ? { target: b.target } : {}), tree: b.tree, packageName: b.packageName };
  if (!b.pixels) return ctx;
  const under = b.pixels.find((p) => p.target);
  return {
    ...ctx,
    ocr: { items: b.pixels.map((p) => ({ text: p.text, bounds: p.bounds })) },
    ...(under ? { point: { x: (under.bounds.left + under.bounds.right) / 2, y: (under.bounds.top + under.bounds.bottom) / 2 } } : {}),
  };
}

export function decideCase(b: BuiltCase): PermissionDecision {
  return decidePermission(b.action, decisionContext(b));
}

export function isGated(d: PermissionDecision): boolean {
  return d.tier === "high_risk" || needsGate(d, { streak: {} });
}

/** The case without the model's stated intent (the figures are taken with and without it). */
export function withoutIntent(b: BuiltCase): BuiltCase {
  const { intent: _intent, ...action } = b.action;
  return { ...b, action: action as BuiltCase["action"] };
}
