// The lease holder's own operators: renew (extend TTL), release (give the todo back), transfer (hand it to a
// peer under a freshly minted key; the old key is dead from then on).
import { z } from "zod";
import type { Lease, Todo } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { nextTodoState } from "../../domain/todo-transitions.ts";
import { Id, IdempotencyKey, TtlMs } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { applyTodoTransition, lockTodo, requireHolder } from "../todo/held.ts";

const LeaseRef = { todoId: Id, agentId: Id, leaseKey: IdempotencyKey };

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

export const ReleaseLeaseInput = z.object({ ...LeaseRef, reason: z.string().max(2000).optional() });
export type ReleaseLeaseInput = z.input<typeof ReleaseLeaseInput>;

/** Gives the todo back to the pool (todo → pending) and ends the lease. */
export async function releaseLease(db: DbOrTx, raw: ReleaseLeaseInput, ctx?: OperatorContext): Promise<{ todo: Todo }> {
  const i = parseInput(ReleaseLeaseInput, raw, "lease.release");
  return inTx(db, async (tx) => {
    const todo = await lockTodo(tx, i.todoId, ctx);
    nextTodoState(todo.state, "release", todo.id);
    const lease = await requireHolder(tx, todo, i);
    const r = await applyTodoTransition(tx, todo, "release", { actor: actorOf(ctx, i.agentId), lease, operator: "lease.release", patch: { reason: i.reason ?? null } }, ctx);
    return { todo: r.todo };
  });
}

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
        idempotencyKey: randomId("lk"),
        createdAt: todo.now,
      },
    });
    await appendEvent(tx, { operator: "lease.transfer", actor: actorOf(ctx, i.agentId), subjectId: next.id, goalId: todo.goalId, payload: { todoId: todo.id, from: i.agentId, to: i.toAgentId, previousLeaseId: lease.id, epoch: next.epoch } }, ctx);
    return next;
  });
}
