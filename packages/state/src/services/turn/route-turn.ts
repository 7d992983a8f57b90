// The route before a turn, computed from state (read-only): the pure rules live in domain/turn.ts.
import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { BigCount, Count, Id } from "../../domain/schemas.ts";
import { decideTurnRoute, missingInputs, type TurnRouteDecision } from "../../domain/turn.ts";
import { atParam, type DbOrTx, type OperatorContext } from "../operator.ts";
import { quotaSkip } from "../quota/should-run.ts";
import { policyUsage } from "../quota/usage.ts";
import { readTodo } from "../todo/held.ts";

export const DEFAULT_MAX_ATTEMPTS = 5;

export const RouteTurnInput = z.object({
  todoId: Id,
  agentId: Id,
  maxAttempts: z.number().int().min(1).max(100).default(DEFAULT_MAX_ATTEMPTS),
  estimate: z.object({ steps: Count.default(1), tokens: Count.default(0), microUsd: BigCount.default(0) }).optional(),
});
export type RouteTurnInput = z.input<typeof RouteTurnInput>;

export async function routeTurn(db: DbOrTx, raw: RouteTurnInput, ctx?: OperatorContext): Promise<TurnRouteDecision> {
  const i = parseInput(RouteTurnInput, raw, "turn.route");
  // The todo, its goal's status and the time in one statement; then what the route weighs (the quota only while
  // the goal is active: a goal that is not routes to blocked first).
  const todo = await readTodo(db, i.todoId, ctx);
  const now = todo.now;
  const own = { inputs: todo.inputs ?? [], values: (todo.values ?? {}) as Record<string, unknown> };
  // The goal's done todos are read only when the todo's own values lack an input (most todos declare none).
  const needsDone = missingInputs(own, {}).length > 0;
  const [lease, openGates, usage, done] = await Promise.all([
    db.lease.findFirst({ where: { todoId: todo.id, status: "active" } }),
    db.gate.count({ where: { goalId: todo.goalId, status: "open", OR: [{ todoId: null }, { todoId: todo.id }] } }),
    todo.goalStatus === "active" ? policyUsage(db, { goalId: todo.goalId, agentId: i.agentId, at: atParam(ctx) }) : Promise.resolve([]),
    needsDone ? db.todo.findMany({ where: { goalId: todo.goalId, state: "done" }, orderBy: { position: "asc" }, select: { values: true } }) : Promise.resolve([]),
  ]);
  const quota = quotaSkip(usage, i.estimate);
  return decideTurnRoute({
    goalStatus: todo.goalStatus,
    todo: { state: todo.state, attempts: todo.attempts, lastResult: todo.lastResult, ...own },
    doneValues: Object.assign({}, ...done.map((d) => (d.values ?? {}) as Record<string, unknown>)),
    lease: lease ? { ownerId: lease.ownerId, expired: lease.expiresAt <= now } : null,
    agentId: i.agentId,
    openGates,
    quota: quota ? { decision: "skip", reason: quota.reason } : { decision: "run" },
    maxAttempts: i.maxAttempts,
  });
}
