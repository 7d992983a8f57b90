import { z } from "zod";
import type { Gate } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id } from "../../domain/schemas.ts";
import { actorOf, appendEvent, atParam, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { reopenGatedTodo } from "./gate-todo.ts";

export const ExpireGateInput = z.object({ gateId: Id });
export type ExpireGateInput = z.input<typeof ExpireGateInput>;

/**
 * An open gate whose expiry has passed: nobody decided in time. Its approval rule says what follows: deny — the gate
 * expires (the runtime reads it as not approved) and its todo goes back to the pool (gate.expire); escalate — it
 * stays open, answerable by admins only and without an expiry, and says since when (gate.escalate). An escalated
 * gate does not expire again.
 */
export async function expireGate(db: DbOrTx, raw: ExpireGateInput, ctx?: OperatorContext): Promise<Gate> {
  const i = parseInput(ExpireGateInput, raw, "gate.expire");
  return inTx(db, async (tx) => {
    const at = atParam(ctx);
    const escalated = await tx.$queryRaw<{ id: string }[]>`
      UPDATE "Gate" SET "answerRoles" = ARRAY['admin']::"Role"[], "escalatedAt" = COALESCE(${at}::timestamptz, now()), "expiresAt" = NULL
      WHERE "id" = ${i.gateId} AND "status" = 'open' AND "expiresAt" <= COALESCE(${at}::timestamptz, now())
        AND "afterExpiry" = 'escalate' AND "escalatedAt" IS NULL
      RETURNING "id"`;
    if (escalated[0]) {
      const gate = await tx.gate.findUniqueOrThrow({ where: { id: i.gateId } });
      await appendEvent(tx, { operator: "gate.escalate", actor: actorOf(ctx, undefined), subjectId: gate.id, goalId: gate.goalId, payload: { question: gate.question, category: gate.category, answerRoles: gate.answerRoles, todoId: gate.todoId } }, ctx);
      return gate;
    }
    const rows = await tx.$queryRaw<{ id: string }[]>`
      UPDATE "Gate" SET "status" = 'expired', "resolvedAt" = COALESCE(${at}::timestamptz, now())
      WHERE "id" = ${i.gateId} AND "status" = 'open' AND "expiresAt" <= COALESCE(${at}::timestamptz, now())
      RETURNING "id"`;
    if (!rows[0]) {
      const g = await tx.gate.findUnique({ where: { id: i.gateId } });
      if (!g) throw new StateError("NOT_FOUND", `Gate ${i.gateId} does not exist.`, { gateId: i.gateId });
      if (g.status !== "open") throw new StateError("CONFLICT", `Gate ${g.id} is already ${g.status}${g.resolvedBy ? ` by ${g.resolvedBy}` : ""}.`, { gateId: g.id, status: g.status, resolvedBy: g.resolvedBy });
      throw new StateError(
        "PRECONDITION_FAILED",
        g.expiresAt
          ? `Gate ${g.id} is open until ${g.expiresAt.toISOString()}; it cannot expire before then.`
          : g.escalatedAt
            ? `Gate ${g.id} was escalated to the admins at ${g.escalatedAt.toISOString()} and waits for one of them; it does not expire again.`
            : `Gate ${g.id} has no expiry; resolve it instead.`,
        { gateId: g.id, expiresAt: g.expiresAt },
      );
    }
    const gate = await tx.gate.findUniqueOrThrow({ where: { id: i.gateId } });
    // Nobody answered: the todo goes back to the pool all the same, and the runtime waiting on it is told so.
    const todo = await reopenGatedTodo(tx, gate, actorOf(ctx, undefined), "gate.expire", ctx);
    await appendEvent(tx, { operator: "gate.expire", actor: actorOf(ctx, undefined), subjectId: gate.id, goalId: gate.goalId, payload: { question: gate.question, todoId: gate.todoId, todo } }, ctx);
    return gate;
  });
}
