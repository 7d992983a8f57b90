import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { Id, issueAgentToken, listAgentTokens, PAGE_LIMIT, PageFields, reassignAgentToken, revokeAgentToken, TAB_TOKEN_IDLE_MS, Text } from "@phoneloop/state";
import { procedure } from "../trpc.ts";

const Name = Text.trim().min(1).max(200);
const TokenRef = z.object({ tokenId: Text.trim().min(1).max(200) });
const PageInput = z.object(PageFields).default({ limit: PAGE_LIMIT.default });

export const agentTokenRouter = {
  /**
   * A token for the browser tab the person is using, issued from their session: the tab's runner acts with it. The
   * tab keeps it in memory only, so it expires after TAB_TOKEN_IDLE_MS unused (a closed tab's token lapses by itself).
   */
  mintForTab: procedure(z.object({ name: Name.default("Browser tab") }).default({ name: "Browser tab" })).mutation(({ ctx, input }) =>
    issueAgentToken(ctx.db, { workspaceId: ctx.workspaceId, name: input.name, issuedBy: ctx.actor, idleTimeoutMs: TAB_TOKEN_IDLE_MS }, { actor: ctx.actor }),
  ),
  /** A token for a headless agent or worker; shown once — give it to the agent as PHONELOOP_AGENT_TOKEN. */
  issue: procedure(z.object({ name: Name })).mutation(({ ctx, input }) =>
    issueAgentToken(ctx.db, { workspaceId: ctx.workspaceId, name: input.name, issuedBy: ctx.actor }, { actor: ctx.actor }),
  ),
  /** The caller's own tokens: name, created, last used, revoked. */
  list: procedure(PageInput).query(({ ctx, input }) => listAgentTokens(ctx.db, { ...input, workspaceId: ctx.workspaceId, issuedBy: ctx.actor })),
  /** Every token of the workspace. */
  listAll: procedure(PageInput).query(({ ctx, input }) => listAgentTokens(ctx.db, { ...input, workspaceId: ctx.workspaceId })),
  /** Revokes one of the caller's own tokens; another person's is "not found". */
  revoke: procedure(TokenRef).mutation(({ ctx, input }) =>
    revokeAgentToken(ctx.db, { workspaceId: ctx.workspaceId, tokenId: input.tokenId, issuedBy: ctx.actor }, { actor: ctx.actor }),
  ),
  /** Revokes any token of the workspace. */
  revokeAny: procedure(TokenRef).mutation(({ ctx, input }) =>
    revokeAgentToken(ctx.db, { workspaceId: ctx.workspaceId, tokenId: input.tokenId }, { actor: ctx.actor }),
  ),
  /**
   * Re-owns a live token to another member (an admin's explicit act): it is then bounded by that member's role and
   * ends with their membership — e.g. a worker's token kept running before its issuer is removed.
   */
  reassign: procedure(TokenRef.extend({ userId: Id })).mutation(({ ctx, input }) =>
    reassignAgentToken(ctx.db, { workspaceId: ctx.workspaceId, tokenId: input.tokenId, userId: input.userId }, { actor: ctx.actor }),
  ),
} satisfies TRPCRouterRecord;
