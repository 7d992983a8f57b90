import type { TRPCRouterRecord } from "@trpc/server";
import { listShortcuts, ListShortcutsInput, PAGE_LIMIT, recordShortcutValidation, RecordShortcutValidationInput, saveShortcuts, SaveShortcutsInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

/** Deeplink shortcuts of the caller's workspace, per app version: agents discover and validate them. */
export const shortcutRouter = {
  list: procedure(ListShortcutsInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) => listShortcuts(ctx.db, { ...input, workspaceId: ctx.workspaceId })),
  save: procedure(SaveShortcutsInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => saveShortcuts(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  recordValidation: procedure(RecordShortcutValidationInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => recordShortcutValidation(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
