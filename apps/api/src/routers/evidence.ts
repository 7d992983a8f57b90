import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { appendEvidence, AppendEvidenceInput, evidenceByKey, EvidenceByKeyInput, evidenceList, EvidenceListInput, getBlob } from "@phoneloop/state";
import { allow } from "../trpc.ts";

export const BlobInput = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "a lowercase hex sha256") });

export const evidenceRouter = {
  /** A goal's evidence, oldest first, by run, todo or kind. */
  list: allow("read", EvidenceListInput).query(({ ctx, input }) => evidenceList(ctx.db, input)),
  /** One evidence row of this workspace by its idempotency key, or null. */
  byKey: allow("read", EvidenceByKeyInput.omit({ workspaceId: true })).query(({ ctx, input }) =>
    evidenceByKey(ctx.db, { ...input, workspaceId: ctx.workspaceId }),
  ),
  append: allow("run", AppendEvidenceInput).mutation(({ ctx, input }) => appendEvidence(ctx.db, input, { actor: ctx.actor })),
  /** A blob this workspace stored — or, for a share link's holder, one that the shared run shows. */
  blob: allow("read", BlobInput, { shareLink: true }).query(async ({ ctx, input }) => {
    const scope = ctx.caller.kind === "share" ? { share: ctx.caller } : { workspaceId: ctx.workspaceId };
    const blob = await getBlob(ctx.db, input.sha256, scope);
    if (!blob) throw new TRPCError({ code: "NOT_FOUND", message: `No blob has sha256 ${input.sha256}; upload it with POST /blobs first (the raw image as the body).` });
    return { sha256: input.sha256, mime: blob.mime, base64: Buffer.from(blob.bytes).toString("base64") };
  }),
} satisfies TRPCRouterRecord;
