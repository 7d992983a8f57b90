// Session approvals: a confirm-tier action is asked until the same kind on the same target in the same app was
// approved three times in a row; money, credentials, destructive actions, permission grants and every high-risk
// action are asked every time.
import { PROTECTED_KINDS, type PermissionDecision } from "./decide.ts";

export interface SessionApprovals {
  /** approvalKey (kind|app|target) → consecutive approvals; a bare kind → pre-approved for the session. */
  streak: Record<string, number>;
}

export const AUTO_ALLOW_AFTER = 3;

export function needsGate(d: Pick<PermissionDecision, "tier" | "kind" | "approvalKey">, approvals: SessionApprovals): boolean {
  if (d.tier === "normal") return false;
  if (d.tier === "high_risk" || PROTECTED_KINDS.has(d.kind)) return true;
  const same = approvals.streak[d.approvalKey] ?? 0;
  const preapproved = approvals.streak[d.kind] ?? 0;
  return Math.max(same, preapproved) < AUTO_ALLOW_AFTER;
}

/** `key` is the decision's approvalKey; a denial resets it. */
export function recordApproval(approvals: SessionApprovals, key: string, approved: boolean): SessionApprovals {
  return { streak: { ...approvals.streak, [key]: approved ? (approvals.streak[key] ?? 0) + 1 : 0 } };
}
