import type { TRPCRouterRecord } from "@trpc/server";
import { deleteSkill, listSkills, ListSkillsInput, PAGE_LIMIT, recordSkillUse, RecordSkillUseInput, saveSkill, SaveSkillInput, SkillRefInput, updateSkill, UpdateSkillInput } from "@phoneloop/state";
import { allow } from "../trpc.ts";

/** Skills of the caller's workspace: agents save and use them; people read, edit, disable and delete them. */
export const skillRouter = {
  list: allow("read", ListSkillsInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) => listSkills(ctx.db, { ...input, workspaceId: ctx.workspaceId })),
  /** A skill distilled from a run; the same app, app version and name again is a repair (the next version). */
  save: allow("run", SaveSkillInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => saveSkill(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  recordUse: allow("run", RecordSkillUseInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => recordSkillUse(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  update: allow("run", UpdateSkillInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => updateSkill(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  delete: allow("run", SkillRefInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => deleteSkill(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
