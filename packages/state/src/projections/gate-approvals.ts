// A gate's approvals as every reader shows them — the gate page, the Attention page, the run waiting on it: the
// rule it opened under (how many distinct approvals it needs, whether the starter may be one), who decided what
// and when, whether its expiry escalated it to the admins, and the open gates of its batch (same category, same
// target, any run). One projection, so the run and the Attention page never disagree about a gate.
import type { ApprovalCategory, AfterExpiry } from "../domain/gate.ts";
import type { DbOrTx } from "../services/operator.ts";

export interface GateDecisionView {
  userId: string;
  decision: string;
  answer: string | null;
  rationale: string;
  at: Date;
}

export interface GateApprovals {
  category: ApprovalCategory;
  /** The app and action target it would act on (null: no batch). */
  target: string | null;
  approvalsNeeded: number;
  /** Distinct members who approved, first first. */
  approvedBy: string[];
  starterMayApprove: boolean;
  afterExpiry: AfterExpiry;
  expiresAt: Date | null;
  /** When its expiry sent it to the admins (who alone may answer it since); null when it was not escalated. */
  escalatedAt: Date | null;
  decisions: GateDecisionView[];
  /** The open gates that a batch decision on this one decides with it (this one included), oldest first; empty
   * when it is not open or has no target. */
  batchGateIds: string[];
}

type GateRow = { id: string; workspaceId: string; status: string; category: string; target: string | null; approvalsNeeded: number; starterMayApprove: boolean; afterExpiry: string; expiresAt: Date | null; escalatedAt: Date | null };

/** The approvals of each gate, by gate id. */
export async function gateApprovalsOf(db: DbOrTx, gates: readonly GateRow[]): Promise<Map<string, GateApprovals>> {
  const ids = gates.map((g) => g.id);
  const decisions = ids.length ? await db.gateDecision.findMany({ where: { gateId: { in: ids } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }) : [];
  const batches = new Map<string, string[]>();
  for (const g of gates) {
    if (g.status !== "open" || !g.target) continue;
    const key = `${g.workspaceId}\u0000${g.category}\u0000${g.target}`;
    if (batches.has(key)) continue;
    const rows = await db.gate.findMany({ where: { workspaceId: g.workspaceId, status: "open", kind: "approval", category: g.category, target: g.target }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true }, take: 200 });
    batches.set(key, rows.map((r) => r.id));
  }
  const out = new Map<string, GateApprovals>();
  for (const g of gates) {
    const own = decisions.filter((d) => d.gateId === g.id);
    out.set(g.id, {
      category: g.category as ApprovalCategory,
      target: g.target,
      approvalsNeeded: g.approvalsNeeded,
      approvedBy: own.filter((d) => d.decision === "approve").map((d) => d.userId),
      starterMayApprove: g.starterMayApprove,
      afterExpiry: g.afterExpiry as AfterExpiry,
      expiresAt: g.expiresAt,
      escalatedAt: g.escalatedAt,
      decisions: own.map((d) => ({ userId: d.userId, decision: d.decision, answer: d.answer, rationale: d.rationale, at: d.createdAt })),
      batchGateIds: g.status === "open" && g.target ? (batches.get(`${g.workspaceId}\u0000${g.category}\u0000${g.target}`) ?? []) : [],
    });
  }
  return out;
}
