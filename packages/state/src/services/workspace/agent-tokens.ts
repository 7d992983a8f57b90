// Agent tokens: how an agent (the CLI's agent, a worker, a browser tab's runner) proves who it is. Scoped to one
// workspace, revocable, listed with their last use; the token itself is returned once, at issue.
import { z } from "zod";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { pageOf, PageFields, type Page } from "../../domain/page.ts";
import { cursorOf, keysetPage, pageOrder } from "../../projections/page-query.ts";
import { Id, ShortText } from "../../domain/schemas.ts";
import { actorOf, appendEvent, clockDate, currentTime, inTx, randomId, rawStatement, timeCte, type DbOrTx, type OperatorContext } from "../operator.ts";
import { hashSecret, newSecret } from "./secret-token.ts";
import type { Role } from "../../domain/roles.ts";

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
  /** Who answers for it: the member who issued it (or an admin re-owned it to), and their role now. */
  issuedBy: string;
  issuerRole: Role;
  /** A browser tab's token (it expires once unused for its idle timeout); else a worker's. */
  tab: boolean;
}

/** Why a token stopped working: a person revoked it, or its issuer left the workspace (member.remove). */
export const REVOKED_REASONS = ["revoked", "issuer_removed"] as const;
export type RevokedReason = (typeof REVOKED_REASONS)[number];

// A token works while it is not revoked, not expired (unused for its idle timeout) and its issuer is a member of
// its workspace: its power is then bounded by that member's role (the API's permission check reads issuerRole).
const LIVE_TOKEN = `
  SELECT a."id", a."workspaceId", a."agentId", a."lastUsedAt", a."issuedBy", m."role" AS "issuerRole", a."idleTimeoutMs" IS NOT NULL AS "tab"
  FROM "AgentToken" a
  JOIN "Membership" m ON m."workspaceId" = a."workspaceId" AND m."userId" = a."issuedBy", tm
  WHERE a."revokedAt" IS NULL
    AND (a."idleTimeoutMs" IS NULL OR COALESCE(a."lastUsedAt", a."createdAt") > tm."now" - a."idleTimeoutMs" * interval '1 millisecond')`;

/**
 * The token's principal fields, or null when it is unknown, revoked, expired (unused for its idle timeout) or its
 * issuer is no member of its workspace. Records the use to the minute: one statement
 * that reads the token and moves `lastUsedAt` only when it is older than LAST_USED_RESOLUTION_MS, so the requests
 * of an agent at work (several per step) do not each write and flush a row.
 */
export async function verifyAgentToken(db: DbOrTx, token: string, ctx?: OperatorContext): Promise<VerifiedAgentToken | null> {
  if (!token.startsWith(AGENT_TOKEN_PREFIX) || token.length > 200) return null;
  const rows = await rawStatement<VerifiedAgentToken>(
    db,
    `WITH ${timeCte("$1")},
     t AS (${LIVE_TOKEN} AND a."tokenHash" = $2),
     used AS (
       UPDATE "AgentToken" a SET "lastUsedAt" = tm."now" FROM t, tm
       WHERE a."id" = t."id" AND a."revokedAt" IS NULL
         AND (t."lastUsedAt" IS NULL OR t."lastUsedAt" <= tm."now" - $3 * interval '1 millisecond')
     )
     SELECT "id" AS "tokenId", "workspaceId", "agentId", "issuedBy", "issuerRole", "tab" FROM t`,
    [clockDate(ctx) ?? null, hashSecret(token), LAST_USED_RESOLUTION_MS],
  );
  return rows[0] ?? null;
}

/** The same check as verifyAgentToken by the token's id, without recording a use: an open event stream re-checks its token so. */
export async function agentTokenStanding(db: DbOrTx, tokenId: string, ctx?: OperatorContext): Promise<VerifiedAgentToken | null> {
  const rows = await rawStatement<VerifiedAgentToken>(
    db,
    `WITH ${timeCte("$1")}, t AS (${LIVE_TOKEN} AND a."id" = $2)
     SELECT "id" AS "tokenId", "workspaceId", "agentId", "issuedBy", "issuerRole", "tab" FROM t`,
    [clockDate(ctx) ?? null, tokenId],
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
    const row = found.revokedAt ? found : await tx.agentToken.update({ where: { id: found.id }, data: { revokedAt: clockDate(ctx) ?? new Date(), revokedReason: "revoked" } });
    if (!found.revokedAt) await appendEvent(tx, { operator: "agentToken.revoke", actor: actorOf(ctx, undefined), subjectId: row.id, workspaceId: i.workspaceId }, ctx);
    return viewOf(row);
  });
}

/** Revokes, in the member's removal, every live token they issued in the workspace; answers their ids. */
export async function revokeTokensOfIssuer(tx: DbOrTx, workspaceId: string, issuedBy: string, ctx?: OperatorContext): Promise<string[]> {
  const live = await tx.agentToken.findMany({ where: { workspaceId, issuedBy, revokedAt: null }, select: { id: true } });
  if (live.length === 0) return [];
  const ids = live.map((r) => r.id);
  await tx.agentToken.updateMany({ where: { id: { in: ids } }, data: { revokedAt: clockDate(ctx) ?? new Date(), revokedReason: "issuer_removed" } });
  return ids;
}

export const ReassignAgentTokenInput = z.object({ workspaceId: Id, tokenId: Id, /** The member who answers for it from now on. */ userId: Id });
export type ReassignAgentTokenInput = z.input<typeof ReassignAgentTokenInput>;

/**
 * Re-owns a live token to another member of its workspace (an admin's explicit act, e.g. before removing the
 * person who issued a worker's token): from then on the token is bounded by the new issuer's role and ends with
 * their membership. A revoked or expired token is not re-owned: issue a new one.
 */
export async function reassignAgentToken(db: DbOrTx, raw: ReassignAgentTokenInput, ctx?: OperatorContext): Promise<AgentTokenView> {
  const i = parseInput(ReassignAgentTokenInput, raw, "agentToken.reassign");
  return inTx(db, async (tx) => {
    const found = await tx.agentToken.findFirst({ where: { id: i.tokenId, workspaceId: i.workspaceId } });
    if (!found) throw new StateError("NOT_FOUND", `Agent token ${i.tokenId} does not exist in this workspace.`, { tokenId: i.tokenId });
    const owner = await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: i.workspaceId, userId: i.userId } }, select: { id: true } });
    if (!owner) throw new StateError("NOT_FOUND", `That person is not a member of this workspace; a token is re-owned only to a member.`, { userId: i.userId });
    const expiresAt = viewOf(found).expiresAt;
    if (found.revokedAt || (expiresAt && expiresAt <= (await currentTime(tx, ctx)))) {
      throw new StateError("PRECONDITION_FAILED", `Agent token ${found.id} is revoked or expired; issue a new token instead.`, { tokenId: found.id });
    }
    if (found.issuedBy === i.userId) return viewOf(found);
    const row = await tx.agentToken.update({ where: { id: found.id }, data: { issuedBy: i.userId } });
    await appendEvent(tx, { operator: "agentToken.reassign", actor: actorOf(ctx, undefined), subjectId: row.id, workspaceId: i.workspaceId, payload: { from: found.issuedBy, to: i.userId } }, ctx);
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
  /** Why it was revoked (REVOKED_REASONS), null while it is not. */
  revokedReason: string | null;
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

function viewOf(r: { id: string; name: string; agentId: string | null; issuedBy: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null; revokedReason: string | null; idleTimeoutMs: number | null }): AgentTokenView {
  const expiresAt = r.idleTimeoutMs === null ? null : new Date((r.lastUsedAt ?? r.createdAt).getTime() + r.idleTimeoutMs);
  return { id: r.id, name: r.name, agentId: r.agentId, issuedBy: r.issuedBy, createdAt: r.createdAt, lastUsedAt: r.lastUsedAt, revokedAt: r.revokedAt, revokedReason: r.revokedReason, expiresAt };
}
