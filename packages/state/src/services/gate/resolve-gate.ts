// Resolution by a member whose role in the gate's workspace may answer it (the workspace's rule, recorded on the
// gate when it opened); a person outside that workspace finds no such gate. Two racing resolutions: the conditional UPDATE lets exactly one win; the
// other sees CONFLICT naming who decided.
import { z } from "zod";
import type { Gate } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, Text } from "../../domain/schemas.ts";
import { appendEvent, atParam, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
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

export async function resolveGate(db: DbOrTx, raw: ResolveGateInput, ctx?: OperatorContext): Promise<Gate> {
  const i = parseInput(ResolveGateInput, raw, "gate.resolve");
  if (i.decision === "answer" && !i.answer) {
    throw new StateError("INVALID_INPUT", `gate.resolve: answer: an "answer" decision needs the answer.`, { issues: [{ path: "answer" }] });
  }
  return inTx(db, async (tx) => {
    const gate = await tx.gate.findUnique({ where: { id: i.gateId }, include: { goal: { select: { workspaceId: true } } } });
    const member = gate ? await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: gate.goal.workspaceId, userId: i.userId } } }) : null;
    if (!gate || !member) throw new StateError("NOT_FOUND", `Gate ${i.gateId} does not exist.`, { gateId: i.gateId });
    if (!gate.answerRoles.includes(member.role)) {
      throw new StateError("FORBIDDEN", `You are ${member.role} here; gate ${gate.id} may be answered only by: ${gate.answerRoles.join(", ")}. Ask one of them.`, {
        gateId: gate.id,
        answerRoles: gate.answerRoles,
        role: member.role,
      });
    }
    if (i.decision === "answer" && gate.options.length && !gate.options.includes(i.answer!)) {
      throw new StateError("INVALID_INPUT", `gate.resolve: answer: must be one of ${gate.options.map((o) => JSON.stringify(o)).join(", ")}.`, { issues: [{ path: "answer" }] });
    }
    const at = atParam(ctx);
    const status = STATUS_OF[i.decision];
    const won = await tx.$executeRaw`
      UPDATE "Gate" SET "status" = ${status}::"GateStatus", "decision" = ${i.decision}, "answer" = ${i.answer ?? null},
        "rationale" = ${i.rationale}, "resolvedBy" = ${member.userId}, "resolvedAt" = COALESCE(${at}::timestamptz, now())
      WHERE "id" = ${gate.id} AND "status" = 'open'`;
    if (won === 0) {
      const now = await tx.gate.findUniqueOrThrow({ where: { id: gate.id } });
      throw new StateError(
        "CONFLICT",
        now.status === "expired"
          ? `Gate ${gate.id} expired before your decision; open a new gate if the question still stands.`
          : `Gate ${gate.id} was already ${now.status} by ${now.resolvedBy}${now.resolvedAt ? ` at ${now.resolvedAt.toISOString()}` : ""}; your decision was not recorded.`,
        { gateId: gate.id, status: now.status, resolvedBy: now.resolvedBy },
      );
    }
    // gate.open blocked the todo; its answer, whatever it is, gives it back (once no other gate holds it).
    const todoMove = await reopenGatedTodo(tx, gate, member.userId, "gate.resolve", ctx);
    await appendEvent(tx, { operator: "gate.resolve", actor: member.userId, subjectId: gate.id, goalId: gate.goalId, payload: { decision: i.decision, answer: i.answer ?? null, rationale: i.rationale, todoId: gate.todoId, todo: todoMove } }, ctx);
    return tx.gate.findUniqueOrThrow({ where: { id: gate.id } });
  });
}
