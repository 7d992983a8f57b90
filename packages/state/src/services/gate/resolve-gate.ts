// A decision on a gate by a member whose role in the gate's workspace may answer it (the workspace's rule,
// recorded on the gate when it opened); a person outside that workspace finds no such gate. Each decision is its
// own row (gate.decide's GateDecision: who, when, what, why). The gate resolves when its approval rule is
// satisfied — approvalsNeeded distinct approvals — or on the first deny (a question, on its answer); the same
// person deciding again counts once. The gate's row is locked first, so concurrent decisions are taken one after
// the other: the gate resolves exactly once, and a decision arriving after that sees CONFLICT naming who decided.
import { z } from "zod";
import type { Gate } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, Text } from "../../domain/schemas.ts";
import { appendEvent, atParam, currentTime, inTx, randomId, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";
import { reopenGatedTodo } from "./gate-todo.ts";

export const ResolveGateInput = z.object({
  gateId: Id,
  /** The member answering (their "user".id): the API sets the caller, never a field the caller fills in. */
  userId: Id,
  decision: z.enum(["approve", "deny", "answer"]),
  /** Required for "answer"; must be one of the gate's options when it has any. */
  answer: Text.trim().min(1).max(5000).optional(),
  rationale: Text.trim().min(1).max(5000),
});
export type ResolveGateInput = z.input<typeof ResolveGateInput>;

const STATUS_OF = { approve: "approved", deny: "denied", answer: "answered" } as const;

/** Records the member's decision; returns the gate as it is after it (still open while it needs more approvals). */
export async function resolveGate(db: DbOrTx, raw: ResolveGateInput, ctx?: OperatorContext): Promise<Gate> {
  const i = parseInput(ResolveGateInput, raw, "gate.resolve");
  if (i.decision === "answer" && !i.answer) {
    throw new StateError("INVALID_INPUT", `gate.resolve: answer: an "answer" decision needs the answer.`, { issues: [{ path: "answer" }] });
  }
  return inTx(db, (tx) => decideLocked(tx, i, ctx));
}

/** One decision inside the caller's transaction (resolveGate, and each gate of a batch decision). */
export async function decideLocked(tx: Tx, i: z.output<typeof ResolveGateInput>, ctx?: OperatorContext): Promise<Gate> {
  // The gate's row lock orders every decision on it (and its expiry): two approvers never both see it one short.
  await tx.$queryRaw`SELECT "id" FROM "Gate" WHERE "id" = ${i.gateId} FOR UPDATE`;
  const gate = await tx.gate.findUnique({ where: { id: i.gateId }, include: { goal: { select: { workspaceId: true, createdBy: true } } } });
  const member = gate ? await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: gate.goal.workspaceId, userId: i.userId } } }) : null;
  if (!gate || !member) throw new StateError("NOT_FOUND", `Gate ${i.gateId} does not exist.`, { gateId: i.gateId });
  if (gate.kind === "takeover") {
    throw new StateError("CONFLICT", `Gate ${gate.id} is a takeover: it is not answered in words. Take over the phone on its run's page (Take over), then hand it back (Hand back).`, { gateId: gate.id, kind: gate.kind });
  }
  if (!gate.answerRoles.includes(member.role)) {
    throw new StateError(
      "FORBIDDEN",
      gate.escalatedAt
        ? `You are ${member.role} here; gate ${gate.id} was escalated to the admins at ${gate.escalatedAt.toISOString()} (nobody decided in time) and may be answered only by an admin now. Ask one of them.`
        : `You are ${member.role} here; gate ${gate.id} may be answered only by: ${gate.answerRoles.join(", ")}. Ask one of them.`,
      { gateId: gate.id, answerRoles: gate.answerRoles, role: member.role, escalatedAt: gate.escalatedAt },
    );
  }
  if (gate.status !== "open") {
    throw new StateError(
      "CONFLICT",
      gate.status === "expired"
        ? `Gate ${gate.id} expired before your decision; open a new gate if the question still stands.`
        : `Gate ${gate.id} was already ${gate.status} by ${gate.resolvedBy}${gate.resolvedAt ? ` at ${gate.resolvedAt.toISOString()}` : ""}; your decision was not recorded.`,
      { gateId: gate.id, status: gate.status, resolvedBy: gate.resolvedBy },
    );
  }
  if (i.decision === "answer" && gate.options.length && !gate.options.includes(i.answer!)) {
    throw new StateError("INVALID_INPUT", `gate.resolve: answer: must be one of ${gate.options.map((o) => JSON.stringify(o)).join(", ")}.`, { issues: [{ path: "answer" }] });
  }
  if (gate.kind === "approval" && i.decision === "approve" && !gate.starterMayApprove && (await startersOf(tx, gate)).includes(member.userId)) {
    throw new StateError(
      "FORBIDDEN",
      `You started this run or created its goal, and the approval rule for ${gate.category} gates asks for someone else's approval; you may still deny it. Ask another approver.`,
      { gateId: gate.id, category: gate.category },
    );
  }
  const before = await tx.gateDecision.findUnique({ where: { gateId_userId: { gateId: gate.id, userId: member.userId } } });
  if (before) {
    // The same person deciding again counts once: the same decision is a no-op; another one is refused.
    if (before.decision === i.decision) return tx.gate.findUniqueOrThrow({ where: { id: gate.id } });
    throw new StateError(
      "CONFLICT",
      `You already decided ${before.decision} on gate ${gate.id} at ${before.createdAt.toISOString()}; one decision per person counts. Ask another approver.`,
      { gateId: gate.id, decision: before.decision },
    );
  }
  const at = await currentTime(tx, ctx);
  await tx.gateDecision.create({ data: { id: randomId("gdec"), gateId: gate.id, userId: member.userId, decision: i.decision, answer: i.answer ?? null, rationale: i.rationale, createdAt: at } });
  const approvals = await tx.gateDecision.findMany({ where: { gateId: gate.id, decision: "approve" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { userId: true } });
  const approvedBy = approvals.map((a) => a.userId);
  if (i.decision === "approve" && approvedBy.length < gate.approvalsNeeded) {
    // Not yet: the gate stays open and says who approved (gate.decide), one of the approvals it needs.
    await appendEvent(tx, { operator: "gate.decide", actor: member.userId, subjectId: gate.id, goalId: gate.goalId, payload: { decision: i.decision, rationale: i.rationale, approvedBy, approvalsNeeded: gate.approvalsNeeded } }, ctx);
    return tx.gate.findUniqueOrThrow({ where: { id: gate.id } });
  }
  const status = STATUS_OF[i.decision];
  await tx.$executeRaw`
    UPDATE "Gate" SET "status" = ${status}::"GateStatus", "decision" = ${i.decision}, "answer" = ${i.answer ?? null},
      "rationale" = ${i.rationale}, "resolvedBy" = ${member.userId}, "resolvedAt" = COALESCE(${atParam(ctx)}::timestamptz, now())
    WHERE "id" = ${gate.id} AND "status" = 'open'`;
  // gate.open blocked the todo; its answer, whatever it is, gives it back (once no other gate holds it).
  const todoMove = await reopenGatedTodo(tx, gate, member.userId, "gate.resolve", ctx);
  await appendEvent(
    tx,
    { operator: "gate.resolve", actor: member.userId, subjectId: gate.id, goalId: gate.goalId, payload: { decision: i.decision, answer: i.answer ?? null, rationale: i.rationale, approvedBy, approvalsNeeded: gate.approvalsNeeded, todoId: gate.todoId, todo: todoMove } },
    ctx,
  );
  return tx.gate.findUniqueOrThrow({ where: { id: gate.id } });
}

/** Who started the gate's run or created its goal: the goal's creator, and the member who issued the token of the
 * agent running the run (the person whose tab or worker runs it). */
async function startersOf(tx: Tx, gate: Pick<Gate, "runId"> & { goal: { createdBy: string } }): Promise<string[]> {
  const starters = [gate.goal.createdBy];
  if (gate.runId) {
    const run = await tx.run.findUnique({ where: { id: gate.runId }, select: { agentId: true } });
    const token = run ? await tx.agentToken.findUnique({ where: { agentId: run.agentId }, select: { issuedBy: true } }) : null;
    if (token) starters.push(token.issuedBy);
  }
  return starters;
}
