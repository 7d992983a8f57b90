// Members of a workspace: a person ("user".id) with one role there. Another workspace's member is "not found".
import { z } from "zod";
import type { Membership } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { pageOf, PageFields, type Page } from "../../domain/page.ts";
import { cursorOf, keysetPage, pageOrder } from "../../projections/page-query.ts";
import { Id, RoleSchema } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, isUniqueViolation, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { revokeTokensOfIssuer } from "./agent-tokens.ts";

export const AddMemberInput = z.object({ workspaceId: Id, userId: Id, role: RoleSchema });
export type AddMemberInput = z.input<typeof AddMemberInput>;

export async function addMember(db: DbOrTx, raw: AddMemberInput, ctx?: OperatorContext): Promise<Membership> {
  const i = parseInput(AddMemberInput, raw, "member.add");
  return inTx(db, async (tx) => {
    const workspace = await tx.workspace.findUnique({ where: { id: i.workspaceId }, select: { id: true } });
    if (!workspace) throw new StateError("NOT_FOUND", `Workspace ${i.workspaceId} does not exist.`, { workspaceId: i.workspaceId });
    const membership = await tx.membership.create({ data: { id: randomId("mem"), workspaceId: i.workspaceId, userId: i.userId, role: i.role } }).catch((e: unknown) => {
      if (isUniqueViolation(e)) {
        throw new StateError("CONFLICT", `That person is already a member of this workspace; change their role instead.`, { workspaceId: i.workspaceId, userId: i.userId });
      }
      throw e;
    });
    await appendEvent(tx, { operator: "member.add", actor: actorOf(ctx, "system"), subjectId: i.userId, workspaceId: i.workspaceId, payload: { role: i.role } }, ctx);
    return membership;
  });
}

export const SetMemberRoleInput = z.object({ workspaceId: Id, userId: Id, role: RoleSchema });
export type SetMemberRoleInput = z.input<typeof SetMemberRoleInput>;

/** Changes a member's role; the last admin cannot stop being one (someone must be able to manage the workspace). */
export async function setMemberRole(db: DbOrTx, raw: SetMemberRoleInput, ctx?: OperatorContext): Promise<Membership> {
  const i = parseInput(SetMemberRoleInput, raw, "member.setRole");
  return inTx(db, async (tx) => {
    const current = await lockMembership(tx, i.workspaceId, i.userId);
    if (current.role === "admin" && i.role !== "admin") await assertAnotherAdmin(tx, i.workspaceId, i.userId);
    const membership = await tx.membership.update({ where: { id: current.id }, data: { role: i.role } });
    await appendEvent(tx, { operator: "member.setRole", actor: actorOf(ctx, "system"), subjectId: i.userId, workspaceId: i.workspaceId, payload: { from: current.role, to: i.role } }, ctx);
    return membership;
  });
}

export const RemoveMemberInput = z.object({ workspaceId: Id, userId: Id });
export type RemoveMemberInput = z.input<typeof RemoveMemberInput>;

/** Removes the member and revokes every agent token they issued here (revokedReason issuer_removed), in one transaction. */
export async function removeMember(db: DbOrTx, raw: RemoveMemberInput, ctx?: OperatorContext): Promise<{ removed: true }> {
  const i = parseInput(RemoveMemberInput, raw, "member.remove");
  return inTx(db, async (tx) => {
    const current = await lockMembership(tx, i.workspaceId, i.userId);
    if (current.role === "admin") await assertAnotherAdmin(tx, i.workspaceId, i.userId);
    await tx.membership.delete({ where: { id: current.id } });
    // Their agent tokens end with their membership (an admin re-owns one first to keep it: agentToken.reassign).
    const revokedTokens = await revokeTokensOfIssuer(tx, i.workspaceId, i.userId, ctx);
    await appendEvent(tx, { operator: "member.remove", actor: actorOf(ctx, "system"), subjectId: i.userId, workspaceId: i.workspaceId, payload: { role: current.role, revokedTokens } }, ctx);
    return { removed: true as const };
  });
}

/** A page of members, oldest first; the cursor is opaque. */
export const ListMembersInput = z.object({ workspaceId: Id, ...PageFields });
export type ListMembersInput = z.input<typeof ListMembersInput>;

const MEMBER_ORDER = pageOrder(["createdAt", "asc", Date], ["id", "asc", String]);

export async function listMembers(db: DbOrTx, raw: ListMembersInput): Promise<Page<Membership>> {
  const i = parseInput(ListMembersInput, raw, "member.list");
  const rows = await db.membership.findMany(keysetPage(MEMBER_ORDER, i, { workspaceId: i.workspaceId }));
  return pageOf(rows, i.limit, cursorOf(MEMBER_ORDER));
}

/** The workspaces a person belongs to, oldest first (the sign-in path picks the first unless told otherwise). */
export async function membershipsOf(db: DbOrTx, userId: string): Promise<Membership[]> {
  return db.membership.findMany({ where: { userId }, orderBy: { createdAt: "asc" } });
}

async function lockMembership(tx: DbOrTx, workspaceId: string, userId: string): Promise<Membership> {
  const rows = await tx.$queryRaw<Membership[]>`
    SELECT * FROM "Membership" WHERE "workspaceId" = ${workspaceId} AND "userId" = ${userId} FOR UPDATE`;
  const row = rows[0];
  if (!row) throw new StateError("NOT_FOUND", `That person is not a member of this workspace.`, { workspaceId, userId });
  return row;
}

async function assertAnotherAdmin(tx: DbOrTx, workspaceId: string, userId: string): Promise<void> {
  // Admin rows locked in one order, so two admins demoting each other cannot both succeed.
  const admins = await tx.$queryRaw<{ userId: string }[]>`
    SELECT "userId" FROM "Membership" WHERE "workspaceId" = ${workspaceId} AND "role" = 'admin' ORDER BY "id" FOR UPDATE`;
  if (!admins.some((a) => a.userId !== userId)) {
    throw new StateError("PRECONDITION_FAILED", `This is the workspace's last admin; make another member admin first.`, { workspaceId, userId });
  }
}
