// The route before a turn, computed from state (read-only): the pure rules live in domain/turn.ts.
import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { BigCount, Count, Id } from "../../domain/schemas.ts";
import { decideTurnRoute, missingInputs, type TurnRouteDecision } from "../../domain/turn.ts";
import type { GoalStatus, Todo } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { atParam, rawStatement, type DbOrTx, type OperatorContext } from "../operator.ts";
import { quotaSkip } from "../quota/should-run.ts";
import { policyUsage, type PolicyUsage } from "../quota/usage.ts";

export const RouteTurnInput = z.object({
  todoId: Id,
  agentId: Id,
  estimate: z.object({ steps: Count.default(1), tokens: Count.default(0), microUsd: BigCount.default(0) }).optional(),
});
export type RouteTurnInput = z.input<typeof RouteTurnInput>;

/** `usage`: the goal's and the agent's quota usage as this transaction left it (a step record's spend answers it). */
export async function routeTurn(db: DbOrTx, raw: RouteTurnInput, ctx?: OperatorContext, known?: { usage: PolicyUsage[] }): Promise<TurnRouteDecision> {
  const i = parseInput(RouteTurnInput, raw, "turn.route");
  // The todo, its goal's status, the time, its active lease and the open gates that stop it, in one statement; then
  // the quota (only while the goal is active: a goal that is not routes to blocked first).
  const [todo] = await rawStatement<Todo & { goalStatus: GoalStatus; now: Date; leaseOwnerId: string | null; leaseExpiresAt: Date | null; openGates: number }>(
    db,
    `SELECT t.*, g."status" AS "goalStatus", tm."now", l."ownerId" AS "leaseOwnerId", l."expiresAt" AS "leaseExpiresAt",
       (SELECT count(*)::int FROM "Gate" gt WHERE gt."goalId" = t."goalId" AND gt."status" = 'open' AND (gt."todoId" IS NULL OR gt."todoId" = t."id")) AS "openGates"
     FROM "Todo" t JOIN "Goal" g ON g."id" = t."goalId" CROSS JOIN (SELECT COALESCE($1::timestamptz, now()) AS "now") tm
     LEFT JOIN LATERAL (SELECT "ownerId", "expiresAt" FROM "Lease" WHERE "todoId" = t."id" AND "status" = 'active' LIMIT 1) l ON true
     WHERE t."id" = $2`,
    [atParam(ctx), i.todoId],
  );
  if (!todo) throw new StateError("NOT_FOUND", `Todo ${i.todoId} does not exist.`, { todoId: i.todoId });
  const own = { inputs: todo.inputs ?? [], values: (todo.values ?? {}) as Record<string, unknown> };
  // The goal's done todos are read only when the todo's own values lack an input (most todos declare none).
  const needsDone = missingInputs(own, {}).length > 0;
  const [usage, done] = await Promise.all([
    todo.goalStatus !== "active" ? Promise.resolve([]) : known ? Promise.resolve(known.usage) : policyUsage(db, { goalId: todo.goalId, agentId: i.agentId, at: atParam(ctx) }),
    needsDone ? db.todo.findMany({ where: { goalId: todo.goalId, state: "done" }, orderBy: { position: "asc" }, select: { values: true } }) : Promise.resolve([]),
  ]);
  const quota = quotaSkip(usage, i.estimate);
  return decideTurnRoute({
    goalStatus: todo.goalStatus,
    todo: { state: todo.state, attempts: todo.attempts, lastResult: todo.lastResult, ...own },
    doneValues: Object.assign({}, ...done.map((d) => (d.values ?? {}) as Record<string, unknown>)),
    lease: todo.leaseOwnerId !== null && todo.leaseExpiresAt !== null ? { ownerId: todo.leaseOwnerId, expired: todo.leaseExpiresAt <= todo.now } : null,
    agentId: i.agentId,
    openGates: todo.openGates,
    quota: quota ? { decision: "skip", reason: quota.reason } : { decision: "run" },
    // The core's one limit, stored on the todo (the runtime reads the same value from the todos it is given).
    maxAttempts: todo.maxAttempts,
  });
}
