// One gate as its status union: what an agent waiting on it, or a member about to answer it, needs to see.
import { z } from "zod";
import { StateError } from "../domain/errors.ts";
import { parseInput } from "../domain/input.ts";
import { Id } from "../domain/schemas.ts";
import type { GateKind } from "../domain/gate.ts";
import type { GateStatusView } from "../domain/status.ts";
import type { DbOrTx } from "../services/operator.ts";
import { gateApprovalsOf, type GateApprovals } from "./gate-approvals.ts";
import { takeoverViewsOf, type TakeoverView } from "./takeover-view.ts";

export const GateDetailInput = z.object({ gateId: Id });
export type GateDetailInput = z.input<typeof GateDetailInput>;

export type GateDetail = {
  id: string;
  goalId: string;
  todoId: string | null;
  runId: string | null;
  evidenceIds: string[];
  /** approval, question or takeover, as stored when the gate opened (readers never guess it from the options). */
  kind: GateKind;
  /** The permission tier that opened it (null for a gate a person opened). */
  tier: string | null;
  /** The action the gate asks about, as the runtime proposed it. */
  action: Record<string, unknown> | null;
  /** Why the policy opened it: its rule, the evidence it matched and its version. */
  policy: { ruleId: string; evidence: string[]; policyVersion: string } | null;
  /** Its approval rule, who decided what, its escalation and its batch (gateApprovalsOf, as the Attention page). */
  approvals: GateApprovals;
  /** A takeover's run, its ask and who holds the phone (null for every other kind). */
  takeover: TakeoverView | null;
  createdAt: Date;
  resolvedAt: Date | null;
} & GateStatusView;

export async function gateDetail(db: DbOrTx, raw: GateDetailInput): Promise<GateDetail> {
  const i = parseInput(GateDetailInput, raw, "gateDetail");
  const g = await db.gate.findUnique({ where: { id: i.gateId } });
  if (!g) throw new StateError("NOT_FOUND", `Gate ${i.gateId} does not exist.`, { gateId: i.gateId });
  const base = {
    id: g.id,
    goalId: g.goalId,
    todoId: g.todoId,
    runId: g.runId,
    evidenceIds: g.evidenceIds,
    kind: g.kind,
    tier: g.tier,
    action: (g.action ?? null) as GateDetail["action"],
    policy: (g.policy ?? null) as GateDetail["policy"],
    approvals: (await gateApprovalsOf(db, [g])).get(g.id)!,
    takeover: (await takeoverViewsOf(db, [g])).get(g.id) ?? null,
    createdAt: g.createdAt,
    resolvedAt: g.resolvedAt,
  };
  switch (g.status) {
    case "open":
      return { ...base, status: "open", question: g.question, options: g.options, answerRoles: g.answerRoles };
    case "expired":
      return { ...base, status: "expired" };
    default:
      return {
        ...base,
        status: g.status,
        decision: g.decision ?? g.status,
        answer: g.answer,
        rationale: g.rationale,
        resolvedBy: g.resolvedBy ?? "",
      };
  }
}
