// Agent tokens: how an agent (the CLI's agent, a worker, a browser tab's runner) proves who it is. Scoped to one
// workspace, revocable, listed with their last use; the token itself is returned once, at issue.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { pageOf, PageFields, type Page } from "../../domain/page.ts";
import { cursorOf, keysetPage, pageOrder } from "../../projections/page-query.ts";
import { Id, ShortText } from "../../domain/schemas.ts";
import { actorOf, appendEvent, clockDate, inTx, randomId, rawStatement, timeCte, type DbOrTx, type OperatorContext } from "../operator.ts";
import { hashSecret, newSecret } from "./secret-token.ts";

export const AGENT_TOKEN_PREFIX = "plt_";

/** How fresh a token's `lastUsedAt` is kept: the list shows its last use to the minute. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export const IssueAgentTokenInput = z.object({
  workspaceId: Id,
  name: ShortText,
  /** Who issued it (the member's userId). */
  issuedBy: Id,
  /** The token expires once unused this long; without it, it lasts until revoked. */
  idleTimeoutMs: z.number().int().min(LAST_USED_RESOLUTION_MS * 2).max(30 * 24 * 60 * 60_000).optional(),
});
export type IssueAgentTokenInput = z.input<typeof IssueAgentTokenInput>;

/** `idleTimeoutMs`: as issued (null: the token lasts until revoked); the holder renews or replaces it in time. */
export async function issueAgentToken(db: DbOrTx, raw: IssueAgentTokenInput, ctx?: OperatorContext): Promise<{ token: string; tokenId: string; idleTimeoutMs: number | null }> {
  const i = parseInput(IssueAgentTokenInput, raw, "agentToken.issue");
  const { token, hash } = newSecret(AGENT_TOKEN_PREFIX);
  return inTx(db, async (tx) => {
    const row = await tx.agentToken.create({
      data: { id: randomId("tok"), workspaceId: i.workspaceId, name: i.name, tokenHash: hash, issuedBy: i.issuedBy, idleTimeoutMs: i.idleTimeoutMs ?? null, ...(ctx?.clock ? { createdAt: clockDate(ctx) } : {}) },
    });
    await appendEvent(tx, { operator: "agentToken.issue", actor: actorOf(ctx, i.issuedBy), subjectId: row.id, workspaceId: i.workspaceId, payload: { name: i.name } }, ctx);
    return { token, tokenId: row.id, idleTimeoutMs: row.idleTimeoutMs };
  });
}

export interface VerifiedAgentToken {
  tokenId: string;
  workspaceId: string;
  /** null until the token registers an agent. */
  agentId: string | null;
}

/**
 * The token's principal fields, or null when it is unknown, revoked or expired (unused for its idle timeout). Records the use to the minute: one statement
 * that reads the token and moves `lastUsedAt` only when it is older than LAST_USED_RESOLUTION_MS, so the requests
 * of an agent at work (several per step) do not each write and flush a row.
 */
export async function verifyAgentToken(db: DbOrTx, token: string, ctx?: OperatorContext): Promise<VerifiedAgentToken | null> {
  if (!token.startsWith(AGENT_TOKEN_PREFIX) || token.length > 200) return null;
  const rows = await rawStatement<VerifiedAgentToken>(
    db,
    `WITH ${timeCte("$1")},
     t AS (
       SELECT a."id", a."workspaceId", a."agentId", a."lastUsedAt" FROM "AgentToken" a, tm
       WHERE a."tokenHash" = $2 AND a."revokedAt" IS NULL
         AND (a."idleTimeoutMs" IS NULL OR COALESCE(a."lastUsedAt", a."createdAt") > tm."now" - a."idleTimeoutMs" * interval '1 millisecond')
     ),
     used AS (
       UPDATE "AgentToken" a SET "lastUsedAt" = tm."now" FROM t, tm
       WHERE a."id" = t."id" AND a."revokedAt" IS NULL
         AND (t."lastUsedAt" IS NULL OR t."lastUsedAt" <= tm."now" - $3 * interval '1 millisecond')
     )
     SELECT "id" AS "tokenId", "workspaceId", "agentId" FROM t`,
    [clockDate(ctx) ?? null, hashSecret(token), LAST_USED_RESOLUTION_MS],
  );
  return rows[0] ?? null;
}

export const RevokeAgentTokenInput = z.object({ workspaceId: Id, tokenId: Id, /** Only a token this member issued. */ issuedBy: Id.optional() });
export type RevokeAgentTokenInput = z.input<typeof RevokeAgentTokenInput>;

export async function revokeAgentToken(db: DbOrTx, raw: RevokeAgentTokenInput, ctx?: OperatorContext): Promise<AgentTokenView> {
  const i = parseInput(RevokeAgentTokenInput, raw, "agentToken.revoke");
  return inTx(db, async (tx) => {
    const found = await tx.agentToken.findFirst({ where: { id: i.tokenId, workspaceId: i.workspaceId, ...(i.issuedBy ? { issuedBy: i.issuedBy } : {}) } });
    if (!found) throw new StateError("NOT_FOUND", `Agent token ${i.tokenId} does not exist in this workspace.`, { tokenId: i.tokenId });
    const row = found.revokedAt ? found : await tx.agentToken.update({ where: { id: found.id }, data: { revokedAt: clockDate(ctx) ?? new Date() } });
    if (!found.revokedAt) await appendEvent(tx, { operator: "agentToken.revoke", actor: actorOf(ctx, undefined), subjectId: row.id, workspaceId: i.workspaceId }, ctx);
    return viewOf(row);
  });
}

export interface AgentTokenView {
  id: string;
  name: string;
  agentId: string | null;
  issuedBy: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** When it expires unless used before (a tab's token); null: it lasts until revoked. */
  expiresAt: Date | null;
}

/** A page of tokens, newest first (ties by id); the cursor is opaque. */
export const ListAgentTokensInput = z.object({ workspaceId: Id, issuedBy: Id.optional(), ...PageFields });
export type ListAgentTokensInput = z.input<typeof ListAgentTokensInput>;

const TOKEN_ORDER = pageOrder(["createdAt", "desc", Date], ["id", "asc", String]);

/** Newest first; never the token or its hash. */
export async function listAgentTokens(db: DbOrTx, raw: ListAgentTokensInput): Promise<Page<AgentTokenView>> {
  const i = parseInput(ListAgentTokensInput, raw, "agentToken.list");
  const rows = await db.agentToken.findMany(keysetPage(TOKEN_ORDER, i, { workspaceId: i.workspaceId, ...(i.issuedBy ? { issuedBy: i.issuedBy } : {}) }));
  return pageOf(rows.map(viewOf), i.limit, cursorOf(TOKEN_ORDER));
}

function viewOf(r: { id: string; name: string; agentId: string | null; issuedBy: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null; idleTimeoutMs: number | null }): AgentTokenView {
  const expiresAt = r.idleTimeoutMs === null ? null : new Date((r.lastUsedAt ?? r.createdAt).getTime() + r.idleTimeoutMs);
  return { id: r.id, name: r.name, agentId: r.agentId, issuedBy: r.issuedBy, createdAt: r.createdAt, lastUsedAt: r.lastUsedAt, revokedAt: r.revokedAt, expiresAt };
}
