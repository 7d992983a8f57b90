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
  append: procedure(AppendEvidenceInput).mutation(({ ctx, input }) => appendEvidence(ctx.db, input, { actor: ctx.actor })),
} satisfies TRPCRouterRecord;
