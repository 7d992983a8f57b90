// The holder's operators on a todo it leases: start, validate, writeback, complete, fail, block, reopen.
// Each is one transition from domain/todo-transitions.ts, fenced by the lease.
import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { Id, IdempotencyKey, JsonObject } from "../../domain/schemas.ts";
import { actorOf, type DbOrTx, type OperatorContext } from "../operator.ts";
import { holderTransition, type TransitionResult } from "./held.ts";

/** Names the todo and, while it is held, the lease that fences the write. */
const HolderFields = {
  todoId: Id,
  agentId: Id.optional(),
  /** The lease's idempotency key from claim (or transfer); required while the todo is claimed, running or validating. */
  leaseKey: IdempotencyKey.optional(),
};

export const StartTodoInput = z.object({ ...HolderFields, agentId: Id, leaseKey: IdempotencyKey });
export type StartTodoInput = z.input<typeof StartTodoInput>;
export async function startTodo(db: DbOrTx, raw: StartTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(StartTodoInput, raw, "todo.start");
  return holderTransition(db, i, "start", { actor: actorOf(ctx, i.agentId), requireActiveGoal: true }, ctx);
}

export const ValidateTodoInput = z.object({ ...HolderFields, agentId: Id, leaseKey: IdempotencyKey, summary: z.string().max(2000).optional() });
export type ValidateTodoInput = z.input<typeof ValidateTodoInput>;
export async function validateTodo(db: DbOrTx, raw: ValidateTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(ValidateTodoInput, raw, "todo.validate");
  return holderTransition(db, i, "validate", { actor: actorOf(ctx, i.agentId), payload: { summary: i.summary ?? null } }, ctx);
}

const WritebackFields = {
  ...HolderFields,
  agentId: Id,
  leaseKey: IdempotencyKey,
  /** Merged into the todo's values (the todo's declared outputs usually land here). */
  values: JsonObject.optional(),
  outputs: z.array(z.string().max(200)).optional(),
  result: z.string().max(2000).optional(),
};

export const WritebackTodoInput = z.object(WritebackFields);
export type WritebackTodoInput = z.input<typeof WritebackTodoInput>;
export async function writebackTodo(db: DbOrTx, raw: WritebackTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(WritebackTodoInput, raw, "todo.writeback");
  return holderTransition(db, i, "writeback", { actor: actorOf(ctx, i.agentId), patch: { values: i.values, outputs: i.outputs, lastResult: i.result ?? "validated_progress" } }, ctx);
}

export const CompleteTodoInput = z.object(WritebackFields);
export type CompleteTodoInput = z.input<typeof CompleteTodoInput>;
export async function completeTodo(db: DbOrTx, raw: CompleteTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(CompleteTodoInput, raw, "todo.complete");
  return holderTransition(db, i, "complete", { actor: actorOf(ctx, i.agentId), patch: { values: i.values, outputs: i.outputs, lastResult: i.result ?? "validated_completion" } }, ctx);
}

export const FailTodoInput = z.object({ ...HolderFields, reason: z.string().trim().min(1).max(2000) });
export type FailTodoInput = z.input<typeof FailTodoInput>;
export async function failTodo(db: DbOrTx, raw: FailTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(FailTodoInput, raw, "todo.fail");
  return holderTransition(db, i, "fail", { actor: actorOf(ctx, i.agentId), patch: { reason: i.reason } }, ctx);
}

export const BlockTodoInput = z.object({ ...HolderFields, reason: z.string().trim().min(1).max(2000) });
export type BlockTodoInput = z.input<typeof BlockTodoInput>;
export async function blockTodo(db: DbOrTx, raw: BlockTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(BlockTodoInput, raw, "todo.block");
  return holderTransition(db, i, "block", { actor: actorOf(ctx, i.agentId), patch: { reason: i.reason } }, ctx);
}

export const RetryTodoInput = z.object({ ...HolderFields, agentId: Id, leaseKey: IdempotencyKey, result: z.string().trim().min(1).max(2000) });
export type RetryTodoInput = z.input<typeof RetryTodoInput>;
export async function retryTodo(db: DbOrTx, raw: RetryTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(RetryTodoInput, raw, "todo.retry");
  return holderTransition(db, i, "retry", { actor: actorOf(ctx, i.agentId), patch: { lastResult: i.result } }, ctx);
}

export const ReopenTodoInput = z.object({ todoId: Id, reason: z.string().max(2000).optional() });
export type ReopenTodoInput = z.input<typeof ReopenTodoInput>;
/** A blocked or failed todo goes back to the pool (after its gate is answered, or by a user). */
export async function reopenTodo(db: DbOrTx, raw: ReopenTodoInput, ctx?: OperatorContext): Promise<TransitionResult> {
  const i = parseInput(ReopenTodoInput, raw, "todo.reopen");
  return holderTransition(db, i, "reopen", { actor: actorOf(ctx, undefined), payload: { note: i.reason ?? null } }, ctx);
}
