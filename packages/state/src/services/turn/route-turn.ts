// The route before a turn, computed from state (read-only): the pure rules live in domain/turn.ts.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { BigCount, Count, Id } from "../../domain/schemas.ts";
import { decideTurnRoute, missingInputs, type TurnRouteDecision } from "../../domain/turn.ts";
import { currentTime, type DbOrTx, type OperatorContext } from "../operator.ts";
import { shouldRun } from "../quota/should-run.ts";

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
  const todo = await db.todo.findUnique({ where: { id: i.todoId }, include: { goal: { select: { status: true } } } });
  if (!todo) throw new StateError("NOT_FOUND", `Todo ${i.todoId} does not exist.`, { todoId: i.todoId });
  const now = await currentTime(db, ctx);
  const own = { inputs: todo.inputs ?? [], values: (todo.values ?? {}) as Record<string, unknown> };
  // The goal's done todos are read only when the todo's own values lack an input (most todos declare none).
  const needsDone = missingInputs(own, {}).length > 0;
  const [lease, openGates, quota, done] = await Promise.all([
    db.lease.findFirst({ where: { todoId: todo.id, status: "active" } }),
    db.gate.count({ where: { goalId: todo.goalId, status: "open", OR: [{ todoId: null }, { todoId: todo.id }] } }),
    todo.goal.status === "active"
      ? shouldRun(db, { goalId: todo.goalId, agentId: i.agentId, ...(i.estimate ? { estimate: i.estimate } : {}) }, ctx)
      : Promise.resolve({ decision: "run" as const }),
    needsDone ? db.todo.findMany({ where: { goalId: todo.goalId, state: "done" }, orderBy: { position: "asc" }, select: { values: true } }) : Promise.resolve([]),
  ]);
  return decideTurnRoute({
    goalStatus: todo.goal.status,
    todo: { state: todo.state, attempts: todo.attempts, lastResult: todo.lastResult, ...own },
    doneValues: Object.assign({}, ...done.map((d) => (d.values ?? {}) as Record<string, unknown>)),
    lease: lease ? { ownerId: lease.ownerId, expired: lease.expiresAt <= now } : null,
    agentId: i.agentId,
    openGates,
    quota: quota.decision === "run" || quota.reason === "gate_waiting" ? { decision: "run" } : { decision: "skip", reason: quota.reason },
    maxAttempts: i.maxAttempts,
  });
}
