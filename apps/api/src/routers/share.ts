import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { createShare, CreateShareInput, listShares, ListSharesInput, openShare, PAGE_LIMIT, PageFields, revokeShare, RevokeShareInput, RunReplayInput, Text, type Db } from "@phoneloop/state";
import { scanRun, sharedReplay, sharedSteps } from "../share/shared-replay.ts";
import { anyoneProcedure, procedure } from "../trpc.ts";

const ShareToken = Text.trim().min(1).max(200);
const GONE = "This share link does not exist, was revoked or has expired; ask whoever sent it for a new one.";

async function opened(db: Db, token: string) {
  const share = await openShare(db, token);
  if (!share) throw new TRPCError({ code: "NOT_FOUND", message: GONE });
  return share;
}

export const shareRouter = {
  /** A link to one run's replay; the token is shown once (only its hash is kept). */
  create: procedure(CreateShareInput.omit({ workspaceId: true })).mutation(({ ctx, input }) =>
    createShare(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor }),
  ),
  revoke: procedure(RevokeShareInput.omit({ workspaceId: true })).mutation(({ ctx, input }) =>
    revokeShare(ctx.db, { ...input, workspaceId: ctx.workspaceId }, { actor: ctx.actor }),
  ),
  list: procedure(ListSharesInput.omit({ workspaceId: true }).default({ limit: PAGE_LIMIT.default })).query(({ ctx, input }) =>
    listShares(ctx.db, { ...input, workspaceId: ctx.workspaceId }),
  ),
  /** Before a link is made: what the run would reveal (keys, tokens, cards, phone numbers, e-mail) and what a link masks. */
  scan: procedure(RunReplayInput).query(({ ctx, input }) => scanRun(ctx.db, input.runId)),
  /** Anyone with the link: the run's replay header, with text typed into password fields masked. A revoked or expired link is "not found". */
  open: anyoneProcedure(z.object({ token: ShareToken })).query(async ({ ctx, input }) => sharedReplay(ctx.db, await opened(ctx.db, input.token))),
  /** Anyone with the link: a page of the run's steps, masked as `open` is. */
  steps: anyoneProcedure(z.object({ token: ShareToken, ...PageFields })).query(async ({ ctx, input }) => {
    const { token, ...page } = input;
    return sharedSteps(ctx.db, await opened(ctx.db, token), page);
  }),
  // The run's screenshots are read with GET /blobs/<sha256>?share=<token>, streamed (blob-route.ts).
} satisfies TRPCRouterRecord;
