import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { appendEvidence, AppendEvidenceInput, evidenceByKey, EvidenceByKeyInput, evidenceList, EvidenceListInput, getBlob, putBlob, PutBlobInput } from "@phoneloop/state";
import { acting, publicProcedure } from "../trpc.ts";

export const evidenceRouter = {
  /** A goal's evidence, oldest first, by run, todo or kind. */
  list: publicProcedure.input(EvidenceListInput).query(({ ctx, input }) => evidenceList(ctx.db, input)),
  /** One evidence row by its idempotency key, or null. */
  byKey: publicProcedure.input(EvidenceByKeyInput).query(({ ctx, input }) => evidenceByKey(ctx.db, input)),
  append: publicProcedure.input(AppendEvidenceInput).mutation(({ ctx, input }) => appendEvidence(ctx.db, input, acting(ctx))),
  /** Stores bytes (base64 over JSON) by content hash; evidence refers to them by sha256. */
  putBlob: publicProcedure.input(PutBlobInput).mutation(({ ctx, input }) => putBlob(ctx.db, input, acting(ctx))),
  blob: publicProcedure
    .input(z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "a lowercase hex sha256") }))
    .query(async ({ ctx, input }) => {
      const blob = await getBlob(ctx.db, input.sha256);
      if (!blob) throw new TRPCError({ code: "NOT_FOUND", message: `No blob has sha256 ${input.sha256}; store it with evidence.putBlob first.` });
      return { sha256: input.sha256, mime: blob.mime, base64: Buffer.from(blob.bytes).toString("base64") };
    }),
} satisfies TRPCRouterRecord;
