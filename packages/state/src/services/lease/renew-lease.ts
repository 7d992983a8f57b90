import { z } from "zod";
import type { Lease } from "../../generated/prisma/client.ts";
import { parseInput } from "../../domain/input.ts";
import { TtlMs } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { lockTodo, requireHolder } from "../todo/held.ts";
import { LeaseRef } from "./lease-ref.ts";

export const RenewLeaseInput = z.object({ ...LeaseRef, ttlMs: TtlMs.optional() });
export type RenewLeaseInput = z.input<typeof RenewLeaseInput>;

/** Extends an unexpired lease by its TTL (or a new one) from now. An expired lease cannot be renewed: claim again. */
export async function renewLease(db: DbOrTx, raw: RenewLeaseInput, ctx?: OperatorContext): Promise<Lease> {
  const i = parseInput(RenewLeaseInput, raw, "lease.renew");
  return inTx(db, async (tx) => {
    const todo = await lockTodo(tx, i.todoId, ctx);
    const lease = await requireHolder(tx, todo, i);
    const ttlMs = i.ttlMs ?? lease.ttlMs;
    const renewed = await tx.lease.update({
      where: { id: lease.id },
      data: { ttlMs, expiresAt: new Date(todo.now.getTime() + ttlMs), version: { increment: 1 } },
    });
    await appendEvent(tx, { operator: "lease.renew", actor: actorOf(ctx, i.agentId), subjectId: lease.id, goalId: todo.goalId, payload: { todoId: todo.id, expiresAt: renewed.expiresAt.toISOString(), version: renewed.version } }, ctx);
    return renewed;
  });
}
