import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { approvalRules, setApprovalRule, SetApprovalRuleInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const approvalRuleRouter = {
  /** Every approval category's rule in force (the defaults where none was saved): admins only. */
  list: procedure(z.object({}).default({})).query(({ ctx }) => approvalRules(ctx.db, { workspaceId: ctx.workspaceId })),
  /** Saves one category's rule for gates opened from now on: admins only. */
  set: procedure(SetApprovalRuleInput.omit({ workspaceId: true })).mutation(({ ctx, input }) =>
    setApprovalRule(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor }),
  ),
} satisfies TRPCRouterRecord;
