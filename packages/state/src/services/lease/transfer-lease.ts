import { z } from "zod";
import type { Lease } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, TtlMs } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { lockTodo, requireHolder } from "../todo/held.ts";
import { LeaseRef } from "./lease-ref.ts";

export const TransferLeaseInput = z.object({ ...LeaseRef, toAgentId: Id, ttlMs: TtlMs.optional() });
export type TransferLeaseInput = z.input<typeof TransferLeaseInput>;

/** Hands the todo to another agent without returning it to the pool; the receiver gets a new lease and key. */
export async function transferLease(db: DbOrTx, raw: TransferLeaseInput, ctx?: OperatorContext): Promise<Lease> {
  const i = parseInput(TransferLeaseInput, raw, "lease.transfer");
  return inTx(db, async (tx) => {
    const todo = await lockTodo(tx, i.todoId, ctx);
    const lease = await requireHolder(tx, todo, i);
    const to = await tx.agent.findUnique({ where: { id: i.toAgentId } });
    if (!to) throw new StateError("NOT_FOUND", `Agent ${i.toAgentId} is not registered.`, { agentId: i.toAgentId });
    const missing = todo.requiredCapabilities.filter((c) => !(to.capabilities ?? []).includes(c));
    if (missing.length) {
      throw new StateError("FORBIDDEN", `Agent ${i.toAgentId} lacks the capabilities todo ${todo.id} requires: ${missing.join(", ")}.`, { missing });
    }
    await tx.lease.update({ where: { id: lease.id }, data: { status: "transferred", endedAt: todo.now, version: { increment: 1 } } });
    // The todo's version fences the one-statement holder path: a moved lease must change it.
    await tx.todo.update({ where: { id: todo.id }, data: { version: { increment: 1 }, updatedAt: todo.now } });
    const ttlMs = i.ttlMs ?? lease.ttlMs;
    const next = await tx.lease.create({
      data: {
        id: randomId("lease"),
        todoId: todo.id,
        ownerId: i.toAgentId,
        ttlMs,
        expiresAt: new Date(todo.now.getTime() + ttlMs),
        epoch: lease.epoch + 1,
        leaseKey: randomId("lk"),
        createdAt: todo.now,
      },
    });
    await appendEvent(tx, { operator: "lease.transfer", actor: actorOf(ctx, i.agentId), subjectId: next.id, goalId: todo.goalId, payload: { todoId: todo.id, from: i.agentId, to: i.toAgentId, previousLeaseId: lease.id, epoch: next.epoch } }, ctx);
    return next;
  });
}
