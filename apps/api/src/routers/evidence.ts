import type { TRPCRouterRecord } from "@trpc/server";
import { appendEvidence, AppendEvidenceInput, evidenceByKey, EvidenceByKeyInput, evidenceList, EvidenceListInput } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

// A blob's bytes are no procedure's answer: they are read with GET /blobs/<sha256>, streamed (blob-route.ts).

export const evidenceRouter = {
  /** A goal's evidence, oldest first, by run, todo or kind. */
  list: procedure(EvidenceListInput).query(({ ctx, input }) => evidenceList(ctx.db, input)),
  /** One evidence row of this workspace by its idempotency key, or null. */
  byKey: procedure(EvidenceByKeyInput.omit({ workspaceId: true })).query(({ ctx, input }) =>
    evidenceByKey(ctx.db, { ...input, workspaceId: ctx.workspaceId }),
  ),
  /**
   * An agent's evidence is its own: a row naming no agent is the caller's (a model call the runtime metered is spent
   * against that agent's quota as the row is recorded). Naming another agent is refused (the acting-agent check).
   */
  append: procedure(AppendEvidenceInput).mutation(({ ctx, input }) =>
    appendEvidence(ctx.db, { ...input, ...(ctx.caller.kind === "agent" && ctx.caller.agentId && !input.agentId ? { agentId: ctx.caller.agentId } : {}) }, { actor: ctx.actor }),
  ),
} satisfies TRPCRouterRecord;
