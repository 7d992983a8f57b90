import type { TRPCRouterRecord } from "@trpc/server";
import { deleteSkill, listSkills, ListSkillsInput, PAGE_LIMIT, recordSkillUse, RecordSkillUseInput, recordSkillValidation, saveSkill, SaveSkillInput, SkillRefInput, updateSkill, UpdateSkillInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

/** Skills of the caller's workspace: agents save and use them; people read, edit, disable and delete them. */
export const skillRouter = {
  list: procedure(ListSkillsInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) => listSkills(ctx.db, { ...input, workspaceId: ctx.workspaceId })),
  /** A skill distilled from a run; the same app, app version and name again is a repair (the next version). */
  save: procedure(SaveSkillInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => saveSkill(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  recordUse: procedure(RecordSkillUseInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => recordSkillUse(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  /** A replay on a fresh phone reached the skill's end: a candidate becomes validated (a disabled one stays disabled). */
  recordValidation: procedure(SkillRefInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => recordSkillValidation(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  update: procedure(UpdateSkillInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => updateSkill(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  delete: procedure(SkillRefInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => deleteSkill(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
