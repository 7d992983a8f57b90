import type { TRPCRouterRecord } from "@trpc/server";
import {
  addTodos,
  AddTodosInput,
  blockTodo,
  BlockTodoInput,
  claimNext,
  ClaimNextInput,
  claimTodo,
  ClaimTodoInput,
  completeTodo,
  CompleteTodoInput,
  failTodo,
  FailTodoInput,
  reopenTodo,
  ReopenTodoInput,
  replanTodos,
  ReplanTodosInput,
  retryTodo,
  RetryTodoInput,
  startTodo,
  todoList,
  TodoListInput,
  StartTodoInput,
  validateTodo,
  ValidateTodoInput,
  writebackTodo,
  WritebackTodoInput,
} from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const todoRouter = {
  /** A goal's todos in plan order with inputs, outputs, capabilities, values, holder and open gate. */
  list: procedure(TodoListInput).query(({ ctx, input }) => todoList(ctx.db, input)),
  add: procedure(AddTodosInput).mutation(({ ctx, input }) => addTodos(ctx.db, input, { actor: ctx.actor })),
  /** add / reorder / supersede ops in one transaction; a repeated idempotencyKey returns the stored result. */
  replan: procedure(ReplanTodosInput).mutation(({ ctx, input }) => replanTodos(ctx.db, input, { actor: ctx.actor })),
  /** The next eligible todo of the agent's workspace, in order (reclaiming an expired lease), in one statement. */
  claimNext: procedure(ClaimNextInput).mutation(({ ctx, input }) => claimNext(ctx.db, input, { actor: ctx.actor })),
  /** A named todo (an explicit claim). */
  claim: procedure(ClaimTodoInput).mutation(({ ctx, input }) => claimTodo(ctx.db, input, { actor: ctx.actor })),
  start: procedure(StartTodoInput).mutation(({ ctx, input }) => startTodo(ctx.db, input, { actor: ctx.actor })),
  validate: procedure(ValidateTodoInput).mutation(({ ctx, input }) => validateTodo(ctx.db, input, { actor: ctx.actor })),
  writeback: procedure(WritebackTodoInput).mutation(({ ctx, input }) => writebackTodo(ctx.db, input, { actor: ctx.actor })),
  complete: procedure(CompleteTodoInput).mutation(({ ctx, input }) => completeTodo(ctx.db, input, { actor: ctx.actor })),
  fail: procedure(FailTodoInput).mutation(({ ctx, input }) => failTodo(ctx.db, input, { actor: ctx.actor })),
  block: procedure(BlockTodoInput).mutation(({ ctx, input }) => blockTodo(ctx.db, input, { actor: ctx.actor })),
  retry: procedure(RetryTodoInput).mutation(({ ctx, input }) => retryTodo(ctx.db, input, { actor: ctx.actor })),
  reopen: procedure(ReopenTodoInput).mutation(({ ctx, input }) => reopenTodo(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
