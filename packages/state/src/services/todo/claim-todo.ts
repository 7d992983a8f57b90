// claim: a named todo (an explicit claim; the runtime's "which todo is next" is claimNext). A held todo whose
// lease expired, or that the same agent holds, is reclaimed with a new epoch; one that another agent still holds is
// a CONFLICT naming the holder. A claim past a WIP limit of the workspace is PRECONDITION_FAILED with refusal
// wip_limit (services/wip-limit).
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { HELD_STATES, nextTodoState } from "../../domain/todo-transitions.ts";
import { Id, IdempotencyKey, TtlMs } from "../../domain/schemas.ts";
import { actorOf, inTx, isUniqueViolation, randomId, type DbOrTx, type OperatorContext, type Tx } from "../operator.ts";
import { claimLimitsOf, refuseOverWipLimit, type ClaimLimits } from "../wip-limit/wip-limits.ts";
import { DEFAULT_LEASE_TTL_MS, replayClaim, requireAgent, type ClaimResult } from "./claim-result.ts";
import { applyTodoTransition, lockActiveLease, lockTodo, type LockedTodo } from "./held.ts";

export const ClaimTodoInput = z.object({
  agentId: Id,
  todoId: Id,
  ttlMs: TtlMs.default(DEFAULT_LEASE_TTL_MS),
  /** Becomes the lease key; a retried claim with the same key returns the same lease instead of a second one. */
  idempotencyKey: IdempotencyKey.optional(),
});
export type ClaimTodoInput = z.input<typeof ClaimTodoInput>;

export async function claimTodo(db: DbOrTx, raw: ClaimTodoInput, ctx?: OperatorContext): Promise<ClaimResult> {
  const input = parseInput(ClaimTodoInput, raw, "todo.claim");
  const actor = actorOf(ctx, input.agentId);
  const key = input.idempotencyKey ?? randomId("lk");
  if (input.idempotencyKey) {
    const replay = await replayClaim(db, input.agentId, input.idempotencyKey);
    if (replay) return replay;
  }
  try {
    return await inTx(db, async (tx) => {
      // The workspace's WIP limits first, locked (claims at a limit take turns), then the todo.
      const limits = await claimLimitsOf(tx, input.agentId, true);
      const todo = await lockTodo(tx, input.todoId, ctx);
      // A retry that waited on the todo's lock behind its original finds the original's lease here.
      const replay = input.idempotencyKey ? await replayClaim(tx, input.agentId, input.idempotencyKey) : null;
      return replay ?? claimLocked(tx, todo, { ...input, key, actor, limits }, ctx);
    });
  } catch (e) {
    // Lost a race on the same idempotency key: the other claim won, so this is a replay.
    if (isUniqueViolation(e) && input.idempotencyKey) {
      const replay = await replayClaim(db, input.agentId, input.idempotencyKey);
      if (replay) return replay;
    }
    throw e;
  }
}

async function claimLocked(
  tx: Tx,
  todo: LockedTodo,
  input: { agentId: string; ttlMs: number; key: string; actor: string; limits: ClaimLimits | null },
  ctx?: OperatorContext,
): Promise<ClaimResult> {
  const agent = await requireAgent(tx, input.agentId);
  const missing = todo.requiredCapabilities.filter((c) => !agent.capabilities.includes(c));
  const previous = HELD_STATES.includes(todo.state) ? await lockActiveLease(tx, todo.id) : null;
  // The same agent taking its own lease again is a restarted worker: it takes over at once (new epoch, old key fenced).
  if (previous && previous.expiresAt > todo.now && previous.ownerId !== input.agentId) {
    throw new StateError(
      "CONFLICT",
      `Todo ${todo.id} is held by ${previous.ownerId} until ${previous.expiresAt.toISOString()}; wait for it to be released or to expire.`,
      { todoId: todo.id, currentHolder: previous.ownerId, currentEpoch: previous.epoch },
    );
  }
  const event = previous ? "reclaim" : "claim";
  nextTodoState(todo.state, event, todo.id);
  if (missing.length) {
    throw new StateError("FORBIDDEN", `Agent ${input.agentId} lacks the capabilities todo ${todo.id} requires: ${missing.join(", ")}.`, { missing });
  }
  if (todo.goalStatus !== "active") {
    throw new StateError("PRECONDITION_FAILED", `Goal ${todo.goalId} is ${todo.goalStatus}; its todos cannot be claimed until it is active.`, {
      goalId: todo.goalId,
      goalStatus: todo.goalStatus,
    });
  }
  if (input.limits) await refuseOverWipLimit(tx, input.limits, input.agentId, todo, todo.now);
  if (previous) {
    await tx.lease.update({ where: { id: previous.id }, data: { status: "expired", endedAt: todo.now, version: { increment: 1 } } });
  }
  const maxEpoch = await tx.lease.aggregate({ where: { todoId: todo.id }, _max: { epoch: true } });
  const lease = await tx.lease.create({
    data: {
      id: randomId("lease"),
      todoId: todo.id,
      ownerId: input.agentId,
      ttlMs: input.ttlMs,
      expiresAt: new Date(todo.now.getTime() + input.ttlMs),
      epoch: (maxEpoch._max.epoch ?? 0) + 1,
      leaseKey: input.key,
      createdAt: todo.now,
    },
  });
  const result = await applyTodoTransition(
    tx,
    todo,
    event,
    { actor: input.actor, operator: "todo.claim", payload: { leaseId: lease.id, agentId: input.agentId, epoch: lease.epoch, reclaimedFrom: previous?.ownerId ?? null } },
    ctx,
  );
  return { claimed: true, todo: result.todo, lease, reclaimedFrom: previous?.ownerId ?? null, duplicate: false };
}
