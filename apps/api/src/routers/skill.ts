import type { TRPCRouterRecord } from "@trpc/server";
import { changeSkillStatus, deleteSkill, listSkills, listSkillVersions, ListSkillsInput, PAGE_LIMIT, recordSkillUse, RecordSkillUseInput, saveSkill, SaveSkillInput, SkillRefInput, updateSkill, UpdateSkillInput, type SkillChange } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

const change = (c: SkillChange) =>
  procedure(SkillRefInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => changeSkillStatus(ctx.db, { ...input, change: c, workspaceId: ctx.workspaceId }, { actor: ctx.actor }));

/**
 * Skills of the caller's workspace: agents propose (save) and use them, and the core validates or retires them from
 * the uses; people read, edit, disable, enable, approve and delete them.
 */
export const skillRouter = {
  list: procedure(ListSkillsInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) => listSkills(ctx.db, { ...input, workspaceId: ctx.workspaceId })),
  /** A skill's versions kept, newest first, each with what changed in its steps from the one before. */
  versions: procedure(SkillRefInput.omit({ workspaceId: true })).query(({ ctx, input }) => listSkillVersions(ctx.db, { ...input, workspaceId: ctx.workspaceId })),
  /** A skill distilled from a run; the same app, app version and name again is a repair (the next version). */
  save: procedure(SaveSkillInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => saveSkill(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  /** A run's use of a skill for a todo: reached its end, or handed back at a step (the second failure in a row retires the version). */
  recordUse: procedure(RecordSkillUseInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => recordSkillUse(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  /** Never offered to runs until enabled. */
  disable: change("disable"),
  /** Back to the status it had before it was disabled (enabling confirms nothing). */
  enable: change("enable"),
  /** A person's word validates this version with no replay made. */
  approve: change("approve"),
  update: procedure(UpdateSkillInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => updateSkill(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
  delete: procedure(SkillRefInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => deleteSkill(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
