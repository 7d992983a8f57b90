import type { TRPCRouterRecord } from "@trpc/server";
import { addLessons, AddLessonsInput, deleteLesson, LessonRefInput, listLessons, ListLessonsInput, PAGE_LIMIT, updateLesson, UpdateLessonInput } from "@phoneloop/state";
import { allow } from "../trpc.ts";

/** Lessons of the caller's workspace, per app: the summarizer adds them; people read, edit and delete them. */
export const lessonRouter = {
  list: allow("read", ListLessonsInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) => listLessons(ctx.db, { ...input, workspaceId: ctx.workspaceId })),
  add: allow("run", AddLessonsInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => addLessons(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  update: allow("run", UpdateLessonInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => updateLesson(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  delete: allow("run", LessonRefInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => deleteLesson(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
