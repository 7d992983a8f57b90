// should-run, before a turn: run, or skip with the reason. Read-only; it spends nothing.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { BigCount, Count, Id } from "../../domain/schemas.ts";
import type { SkipReason } from "../../domain/vocabulary.ts";
import { atParam, type DbOrTx, type OperatorContext } from "../operator.ts";
import { describeRemaining, overLimit, policyUsage, type PolicyUsage } from "./usage.ts";

export const ShouldRunInput = z.object({
  goalId: Id,
  agentId: Id,
  todoId: Id.optional(),
  /** What the next turn is expected to cost; a turn that would not fit is throttled. */
  estimate: z.object({ steps: Count.default(1), tokens: Count.default(0), microUsd: BigCount.default(0) }).optional(),
});
export type ShouldRunInput = z.input<typeof ShouldRunInput>;


export type ShouldRunResult =
  | { decision: "run"; usage: PolicyUsage[] }
  | { decision: "skip"; reason: SkipReason; message: string; retryAfterMs: number | null; usage: PolicyUsage[] };

export async function shouldRun(db: DbOrTx, raw: ShouldRunInput, ctx?: OperatorContext): Promise<ShouldRunResult> {
  const i = parseInput(ShouldRunInput, raw, "quota.shouldRun");
  const goal = await db.goal.findUnique({ where: { id: i.goalId }, select: { status: true } });
  if (!goal) throw new StateError("NOT_FOUND", `Goal ${i.goalId} does not exist.`, { goalId: i.goalId });
  const usage = await policyUsage(db, { goalId: i.goalId, agentId: i.agentId, at: atParam(ctx) });
  const skip = (reason: SkipReason, message: string, retryAfterMs: number | null = null): ShouldRunResult => ({ decision: "skip", reason, message, retryAfterMs, usage });
  if (goal.status !== "active") return skip(`goal_${goal.status}`, `The goal is ${goal.status}.`);
  const gates = await db.gate.findMany({
    where: { goalId: i.goalId, status: "open", OR: [{ todoId: null }, ...(i.todoId ? [{ todoId: i.todoId }] : [])] },
    orderBy: { createdAt: "asc" },
    select: { id: true, question: true, answerRoles: true },
  });
  const gate = gates[0];
  if (gate) return skip("gate_waiting", `Gate ${gate.id} waits for ${gate.answerRoles.join(" or ")}: ${gate.question}`);
  if (i.todoId) {
    const todo = await db.todo.findUnique({ where: { id: i.todoId }, select: { state: true, reason: true, lastResult: true } });
    if (!todo) throw new StateError("NOT_FOUND", `Todo ${i.todoId} does not exist.`, { todoId: i.todoId });
    // A step whose spend the quota refused (a direct endpoint's usage, spent with its step record) blocked the todo:
    // the quota is why the run stops, whatever is left in the window.
    if (todo.state === "blocked" && todo.lastResult === "quota_spend_failed") return skip("exhausted", `The quota refused the last step's spend: ${todo.reason ?? "no room left"}`);
    if (todo.state === "blocked") return skip("todo_blocked", `The todo is blocked${todo.reason ? `: ${todo.reason}` : ""}.`);
    if (todo.state === "done" || todo.state === "superseded" || todo.state === "failed") return skip("todo_finished", `The todo is ${todo.state}.`);
  }
  const over = quotaSkip(usage, i.estimate);
  if (over) return skip(over.reason, over.message, over.retryAfterMs);
  return { decision: "run", usage };
}

/** What the quota alone says of the next turn: null when it fits, else exhausted, or throttled when the estimate would not fit. */
export function quotaSkip(usage: PolicyUsage[], estimate?: { steps: number; tokens: number; microUsd: number }): { reason: "exhausted" | "throttled"; message: string; retryAfterMs: number | null } | null {
  const exhausted = usage.find((u) => u.exhausted);
  if (exhausted) return { reason: "exhausted", message: `Quota exhausted: ${describeRemaining(exhausted)}.`, retryAfterMs: exhausted.windowResetsInMs };
  const tight = estimate ? usage.find((u) => overLimit(u, estimate).length > 0) : undefined;
  if (tight) return { reason: "throttled", message: `The next turn would not fit: ${describeRemaining(tight)}.`, retryAfterMs: tight.windowResetsInMs };
  return null;
}
