import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { checkWorkspacePolicyRules } from "@phoneloop/agent";
import { currentPolicyRules, savePolicyRules, SavePolicyRulesInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

export const policyRouter = {
  /** The workspace's permission-policy rules in force (its newest version), or null: members and agents read them. */
  get: procedure(z.object({}).default({})).query(({ ctx }) => currentPolicyRules(ctx.db, { workspaceId: ctx.workspaceId })),
  /** Saves the rules as the next version; their shape is the agent's policy schema. */
  save: procedure(SavePolicyRulesInput.omit({ workspaceId: true })).mutation(({ ctx, input }) => {
    const checked = checkWorkspacePolicyRules(input.rules);
    if (!checked.ok) throw new TRPCError({ code: "BAD_REQUEST", message: checked.message });
    return savePolicyRules(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor });
  }),
} satisfies TRPCRouterRecord;
