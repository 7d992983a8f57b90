// The result after a turn: one transition from TURN_RESULT_TRANSITION, fenced by the lease. Quota is spent only
// after a validated result is written back (a separate, later transaction); if that spend fails the turn's
// result becomes quota_spend_failed, whose own transition is then applied.
import { z } from "zod";
import type { Todo } from "../../generated/prisma/client.ts";
import { isStateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { canTransitionTodo } from "../../domain/todo-transitions.ts";
import { Id, IdempotencyKey, JsonObject } from "../../domain/schemas.ts";
import { SPENDING_RESULTS, TURN_RESULT_KINDS, TURN_RESULT_TRANSITION, type TurnResultKind } from "../../domain/turn.ts";
import { actorOf, appendEvent, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { spendQuota, type QuotaSpendView } from "../quota/spend-quota.ts";
import { holderTransition, lockTodo, transitionAsHolder } from "../todo/held.ts";

export const RecordTurnResultInput = z.object({
  todoId: Id,
  agentId: Id,
  leaseKey: IdempotencyKey,
  kind: z.enum(TURN_RESULT_KINDS),
  summary: z.string().trim().min(1).max(2000),
  /** Written back with a validated result (merged into the todo's values). */
  values: JsonObject.optional(),
  outputs: z.array(z.string().max(200)).optional(),
  /** Spent after a validated writeback; ignored for other results (they spend nothing). */
  spend: z.object({ key: IdempotencyKey, steps: z.number().int().min(0).default(0), tokens: z.number().int().min(0).default(0), microUsd: z.number().int().min(0).default(0) }).optional(),
});
export type RecordTurnResultInput = z.input<typeof RecordTurnResultInput>;

export interface RecordTurnResultResult {
  /** The result as recorded: the input kind, or quota_spend_failed when the spend after writeback failed. */
  kind: TurnResultKind;
  todo: Todo;
  transitions: { kind: TurnResultKind; from: Todo["state"]; to: Todo["state"] }[];
  spend: QuotaSpendView | null;
  spendError: { code: string; message: string; details: Record<string, unknown> } | null;
}

export async function recordTurnResult(db: DbOrTx, raw: RecordTurnResultInput, ctx?: OperatorContext): Promise<RecordTurnResultResult> {
  const i = parseInput(RecordTurnResultInput, raw, "turn.result");
  const actor = actorOf(ctx, i.agentId);
  const validated = SPENDING_RESULTS.includes(i.kind);
  const written = await holderTransition(
      db,
      i,
      TURN_RESULT_TRANSITION[i.kind],
      {
        actor,
        operator: "turn.result",
        patch: {
          lastResult: i.kind,
          ...(validated ? { values: i.values, outputs: i.outputs } : {}),
          ...(TURN_RESULT_TRANSITION[i.kind] === "block" ? { reason: i.summary } : {}),
        },
        payload: { kind: i.kind, summary: i.summary },
      },
      ctx,
  );
  const transitions: RecordTurnResultResult["transitions"] = [{ kind: i.kind, from: written.from, to: written.to }];
  if (!validated || !i.spend) return { kind: i.kind, todo: written.todo, transitions, spend: null, spendError: null };
  try {
    const spent = await spendQuota(db, { ...i.spend, goalId: written.todo.goalId, agentId: i.agentId, todoId: i.todoId }, ctx);
    return { kind: i.kind, todo: written.todo, transitions, spend: spent.spend, spendError: null };
  } catch (e) {
    if (!isStateError(e)) throw e;
    const spendError = { code: e.code, message: e.message, details: e.details };
    const failed = await inTx(db, async (tx) => {
      const todo = await lockTodo(tx, i.todoId, ctx);
      const event = TURN_RESULT_TRANSITION.quota_spend_failed;
      const payload = { kind: "quota_spend_failed", summary: e.message, after: i.kind };
      if (canTransitionTodo(todo.state, event)) {
        return transitionAsHolder(tx, i, event, { actor, operator: "turn.result", patch: { lastResult: "quota_spend_failed", reason: e.message }, payload }, ctx);
      }
      // A completed todo stays done: its validated work stands; the failed spend is recorded, not undone.
      await appendEvent(tx, { operator: "turn.result", actor, subjectId: todo.id, goalId: todo.goalId, payload: { ...payload, from: todo.state, to: todo.state } }, ctx);
      return { todo, from: todo.state, to: todo.state };
    });
    transitions.push({ kind: "quota_spend_failed", from: failed.from, to: failed.to });
    const { goalStatus: _g, now: _n, ...todo } = failed.todo as Todo & { goalStatus?: unknown; now?: unknown };
    return { kind: "quota_spend_failed", todo, transitions, spend: null, spendError };
  }
}
