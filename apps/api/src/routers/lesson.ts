import type { TRPCRouterRecord } from "@trpc/server";
import { addLessons, AddLessonsInput, deleteLesson, LessonRefInput, listLessons, ListLessonsInput, PAGE_LIMIT, updateLesson, UpdateLessonInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

/** Lessons of the caller's workspace, per app: the summarizer adds them; people read, edit and delete them. */
export const lessonRouter = {
  list: procedure(ListLessonsInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) => listLessons(ctx.db, { ...input, workspaceId: ctx.workspaceId })),
  add: procedure(AddLessonsInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => addLessons(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  update: procedure(UpdateLessonInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => updateLesson(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  delete: procedure(LessonRefInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => deleteLesson(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
