// A batch decision: one member approves or denies, with one rationale, several open gates of the same approval
// category on the same target (app and action target) across runs — the gates the member was shown
// (gateApprovals' batchGateIds), never ones that opened since. Each gate is decided as its own decision, in its own
// transaction and Event (gate.decide or gate.resolve, as resolveGate), so one gate's refusal (the starter rule, an
// answer that came first) leaves the others decided; the result says, per gate, what happened.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, Text } from "../../domain/schemas.ts";
import { inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { decideLocked } from "./resolve-gate.ts";

export const DecideBatchInput = z.object({
  /** The member deciding: the API sets the caller. */
  userId: Id,
  gateIds: z.array(Id).min(1).max(200),
  decision: z.enum(["approve", "deny"]),
  rationale: Text.trim().min(1).max(5000),
});
export type DecideBatchInput = z.input<typeof DecideBatchInput>;

export interface BatchDecisionResult {
  gateId: string;
  /** The gate's status after the decision (open while it needs more approvals), or null when it was refused. */
  status: string | null;
  /** Why the decision was refused (what the member can do), null when it was recorded. */
  error: string | null;
}

export async function decideBatch(db: DbOrTx, raw: DecideBatchInput, ctx?: OperatorContext): Promise<BatchDecisionResult[]> {
  const i = parseInput(DecideBatchInput, raw, "gate.decideBatch");
  const gateIds = [...new Set(i.gateIds)];
  const gates = await db.gate.findMany({ where: { id: { in: gateIds } }, select: { id: true, workspaceId: true, kind: true, category: true, target: true } });
  const first = gates.find((g) => g.id === gateIds[0]);
  if (!first || gates.length !== gateIds.length) throw new StateError("NOT_FOUND", `Some of the gates ${gateIds.join(", ")} do not exist.`, { gateIds });
  const odd = gates.find((g) => g.kind !== "approval" || !g.target || g.workspaceId !== first.workspaceId || g.category !== first.category || g.target !== first.target);
  if (odd) {
    throw new StateError("INVALID_INPUT", `gate.decideBatch: gateIds: a batch decision is for approvals of one category on one target; gate ${odd.id} is not one of ${first.id}'s (${first.category}, ${first.target ?? "no target"}). Decide it on its own.`, {
      issues: [{ path: "gateIds" }],
    });
  }
  const results: BatchDecisionResult[] = [];
  for (const gateId of gateIds) {
    try {
      const gate = await inTx(db, (tx) => decideLocked(tx, { gateId, userId: i.userId, decision: i.decision, rationale: i.rationale }, ctx));
      results.push({ gateId, status: gate.status, error: null });
    } catch (e) {
      // A member outside the gates' workspace finds none of them (NOT_FOUND, thrown at the first); a gate answered
      // first or the starter rule is reported for that gate alone.
      if (!(e instanceof StateError) || !["CONFLICT", "FORBIDDEN"].includes(e.code)) throw e;
      results.push({ gateId, status: null, error: e.message });
    }
  }
  return results;
}
