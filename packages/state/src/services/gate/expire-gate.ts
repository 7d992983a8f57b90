import { z } from "zod";
import type { Gate } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id } from "../../domain/schemas.ts";
import { actorOf, appendEvent, atParam, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { reopenGatedTodo } from "./gate-todo.ts";

export const ExpireGateInput = z.object({ gateId: Id });
export type ExpireGateInput = z.input<typeof ExpireGateInput>;

/** Closes an open gate whose expiry has passed; nobody answered in time. Its todo goes back to the pool. */
export async function expireGate(db: DbOrTx, raw: ExpireGateInput, ctx?: OperatorContext): Promise<Gate> {
  const i = parseInput(ExpireGateInput, raw, "gate.expire");
  return inTx(db, async (tx) => {
    const at = atParam(ctx);
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
        g.expiresAt ? `Gate ${g.id} is open until ${g.expiresAt.toISOString()}; it cannot expire before then.` : `Gate ${g.id} has no expiry; resolve it instead.`,
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
