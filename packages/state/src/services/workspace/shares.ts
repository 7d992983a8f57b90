// Shares: a link that opens one run's replay without an account (the API shows it masked: apps/api/src/share). The link carries a 256-bit token (only its
// sha256 is stored); a revoked or expired share is "not found", and it opens only its run and that run's blobs.
import { z } from "zod";
import type { Share } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { pageOf, PageFields, type Page } from "../../domain/page.ts";
import { cursorOf, keysetPage, pageOrder } from "../../projections/page-query.ts";
import { Id } from "../../domain/schemas.ts";
import { actorOf, appendEvent, currentTime, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { hashSecret, newSecret } from "./secret-token.ts";

export const SHARE_TOKEN_PREFIX = "pls_";
const MAX_SHARE_MS = 365 * 24 * 60 * 60 * 1000;

export const CreateShareInput = z.object({
  workspaceId: Id,
  runId: Id,
  /** Without it the share lasts until revoked. */
  expiresInMs: z.number().int().min(1).max(MAX_SHARE_MS).optional(),
});
export type CreateShareInput = z.input<typeof CreateShareInput>;

export type ShareView = Omit<Share, "tokenHash">;

export async function createShare(db: DbOrTx, raw: CreateShareInput, ctx?: OperatorContext): Promise<{ token: string; share: ShareView }> {
  const i = parseInput(CreateShareInput, raw, "share.create");
  const { token, hash } = newSecret(SHARE_TOKEN_PREFIX);
  return inTx(db, async (tx) => {
    const run = await tx.run.findFirst({ where: { id: i.runId, goal: { workspaceId: i.workspaceId } }, select: { id: true, goalId: true } });
    if (!run) throw new StateError("NOT_FOUND", `Run ${i.runId} does not exist.`, { runId: i.runId });
    const now = await currentTime(tx, ctx);
    const { tokenHash: _hash, ...share } = await tx.share.create({
      data: {
        id: randomId("share"),
        workspaceId: i.workspaceId,
        runId: run.id,
        tokenHash: hash,
        createdBy: actorOf(ctx, undefined),
        createdAt: now,
        expiresAt: i.expiresInMs ? new Date(now.getTime() + i.expiresInMs) : null,
      },
    });
    await appendEvent(tx, { operator: "share.create", actor: actorOf(ctx, undefined), subjectId: share.id, goalId: run.goalId, payload: { runId: run.id, expiresAt: share.expiresAt } }, ctx);
    return { token, share };
  });
}

export const RevokeShareInput = z.object({ workspaceId: Id, shareId: Id });
export type RevokeShareInput = z.input<typeof RevokeShareInput>;

export async function revokeShare(db: DbOrTx, raw: RevokeShareInput, ctx?: OperatorContext): Promise<ShareView> {
  const i = parseInput(RevokeShareInput, raw, "share.revoke");
  return inTx(db, async (tx) => {
    const found = await tx.share.findFirst({ where: { id: i.shareId, workspaceId: i.workspaceId }, include: { run: { select: { goalId: true } } } });
    if (!found) throw new StateError("NOT_FOUND", `Share ${i.shareId} does not exist.`, { shareId: i.shareId });
    if (found.revokedAt) return withoutHash(found);
    const row = await tx.share.update({ where: { id: found.id }, data: { revokedAt: await currentTime(tx, ctx) } });
    await appendEvent(tx, { operator: "share.revoke", actor: actorOf(ctx, undefined), subjectId: row.id, goalId: found.run.goalId, payload: { runId: row.runId } }, ctx);
    return withoutHash(row);
  });
}

/** A page of shares, newest first; the cursor is opaque. */
export const ListSharesInput = z.object({ workspaceId: Id, runId: Id.optional(), ...PageFields });
export type ListSharesInput = z.input<typeof ListSharesInput>;

const SHARE_ORDER = pageOrder(["createdAt", "desc", Date], ["id", "asc", String]);

export async function listShares(db: DbOrTx, raw: ListSharesInput): Promise<Page<ShareView>> {
  const i = parseInput(ListSharesInput, raw, "share.list");
  const rows = await db.share.findMany(keysetPage(SHARE_ORDER, i, { workspaceId: i.workspaceId, ...(i.runId ? { runId: i.runId } : {}) }));
  return pageOf(rows.map(withoutHash), i.limit, cursorOf(SHARE_ORDER));
}

export interface OpenedShare {
  shareId: string;
  runId: string;
  workspaceId: string;
}

/** The share a token opens, or null when the token is unknown, revoked or expired. */
export async function openShare(db: DbOrTx, token: string, ctx?: OperatorContext): Promise<OpenedShare | null> {
  if (!token.startsWith(SHARE_TOKEN_PREFIX) || token.length > 200) return null;
  const share = await db.share.findUnique({ where: { tokenHash: hashSecret(token) } });
  if (!share || share.revokedAt) return null;
  if (share.expiresAt && share.expiresAt <= (await currentTime(db, ctx))) return null;
  return { shareId: share.id, runId: share.runId, workspaceId: share.workspaceId };
}

/** Whether a blob is part of the shared run: one of its evidence's (a step's screenshot is its observation's blob). */
export async function shareHasBlob(db: DbOrTx, share: OpenedShare, sha256: string): Promise<boolean> {
  return (await db.evidence.count({ where: { runId: share.runId, blobSha256: sha256 } })) > 0;
}

function withoutHash<T extends { tokenHash: string }>(row: T): Omit<T, "tokenHash"> {
  const { tokenHash: _hash, ...rest } = row;
  return rest;
}
