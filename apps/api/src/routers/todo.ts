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
import { acting, publicProcedure } from "../trpc.ts";

export const todoRouter = {
  /** A goal's todos in plan order with inputs, outputs, capabilities, values, holder and open gate. */
  list: publicProcedure.input(TodoListInput).query(({ ctx, input }) => todoList(ctx.db, input)),
  add: publicProcedure.input(AddTodosInput).mutation(({ ctx, input }) => addTodos(ctx.db, input, acting(ctx))),
  /** add / reorder / supersede ops in one transaction; a repeated idempotencyKey returns the stored result. */
  replan: publicProcedure.input(ReplanTodosInput).mutation(({ ctx, input }) => replanTodos(ctx.db, input, acting(ctx))),
  /** The next eligible todo in order (reclaiming an expired lease), in one statement; `claimed: false` with a reason. */
  claimNext: publicProcedure.input(ClaimNextInput).mutation(({ ctx, input }) => claimNext(ctx.db, input, acting(ctx))),
  /** A named todo (an explicit claim). */
  claim: publicProcedure.input(ClaimTodoInput).mutation(({ ctx, input }) => claimTodo(ctx.db, input, acting(ctx))),
  start: publicProcedure.input(StartTodoInput).mutation(({ ctx, input }) => startTodo(ctx.db, input, acting(ctx))),
  validate: publicProcedure.input(ValidateTodoInput).mutation(({ ctx, input }) => validateTodo(ctx.db, input, acting(ctx))),
  writeback: publicProcedure.input(WritebackTodoInput).mutation(({ ctx, input }) => writebackTodo(ctx.db, input, acting(ctx))),
  complete: publicProcedure.input(CompleteTodoInput).mutation(({ ctx, input }) => completeTodo(ctx.db, input, acting(ctx))),
  fail: publicProcedure.input(FailTodoInput).mutation(({ ctx, input }) => failTodo(ctx.db, input, acting(ctx))),
  block: publicProcedure.input(BlockTodoInput).mutation(({ ctx, input }) => blockTodo(ctx.db, input, acting(ctx))),
  retry: publicProcedure.input(RetryTodoInput).mutation(({ ctx, input }) => retryTodo(ctx.db, input, acting(ctx))),
  reopen: publicProcedure.input(ReopenTodoInput).mutation(({ ctx, input }) => reopenTodo(ctx.db, input, acting(ctx))),
} satisfies TRPCRouterRecord;
