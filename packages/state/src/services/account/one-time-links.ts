// The setup link (the first admin on a fresh install) and invite links: random 256-bit tokens of which only the
// sha256 is kept, in better-auth's "verification" table (better-auth keeps its own one-time values there), each
// usable once before it expires. Issuing and using one is a transaction with its Event; no Event holds the token
// or its digest (the verification row's id names it).
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { parseInput } from "../../domain/input.ts";
import { Id, RoleSchema } from "../../domain/schemas.ts";
import type { Role } from "../../domain/roles.ts";
import { actorOf, appendEvent, inTx, type DbOrTx, type OperatorContext } from "../operator.ts";
import { hashSecret, newSecret } from "../workspace/secret-token.ts";

const SETUP = "phoneloop-setup";
const INVITE = "phoneloop-invite";
/** How every invite's stored value begins (issueInvite's JSON names its kind first). */
const INVITE_PREFIX = `{"kind":"${INVITE}"`;
const SETUP_TTL_MS = 24 * 60 * 60 * 1000;
const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface InviteTerms {
  workspaceId: string;
  role: Role;
  invitedBy: string;
}

/** Whether anybody has an account yet (no one = the install still needs its setup link). */
export async function hasAccounts(db: DbOrTx): Promise<boolean> {
  const rows = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "user"`;
  return (rows[0]?.n ?? 0) > 0;
}

/** A new setup token; earlier ones stop working (only the link printed last opens setup). */
export async function issueSetupToken(db: DbOrTx, ctx?: OperatorContext): Promise<string> {
  const { token, hash } = newSecret("");
  const id = randomUUID();
  const expiresAt = new Date(Date.now() + SETUP_TTL_MS);
  await inTx(db, async (tx) => {
    await tx.$executeRaw`DELETE FROM "verification" WHERE "value" = ${SETUP}`;
    await tx.$executeRaw`INSERT INTO "verification" ("id", "identifier", "value", "expiresAt") VALUES (${id}, ${hash}, ${SETUP}, ${expiresAt})`;
    await appendEvent(tx, { operator: "setupLink.issue", actor: actorOf(ctx, undefined), subjectId: id, payload: { expiresAt: expiresAt.toISOString() } }, ctx);
  });
  return token;
}

export async function setupTokenValid(db: DbOrTx, token: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT "id" FROM "verification" WHERE "identifier" = ${hashSecret(token)} AND "value" = ${SETUP} AND "expiresAt" > now()`;
  return rows.length > 0;
}

export const UseOneTimeLinkInput = z.object({
  token: z.string().min(1).max(200),
  /** The account that uses it (made from it, or signed in). */
  userId: Id,
});
export type UseOneTimeLinkInput = z.input<typeof UseOneTimeLinkInput>;

/** Uses the setup token up; false when it was used (or replaced) meanwhile. */
export async function consumeSetupToken(db: DbOrTx, raw: UseOneTimeLinkInput, ctx?: OperatorContext): Promise<boolean> {
  const i = parseInput(UseOneTimeLinkInput, raw, "setupLink.use");
  return inTx(db, async (tx) => {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      DELETE FROM "verification" WHERE "identifier" = ${hashSecret(i.token)} AND "value" = ${SETUP} AND "expiresAt" > now() RETURNING "id"`;
    if (!rows[0]) return false;
    await appendEvent(tx, { operator: "setupLink.use", actor: actorOf(ctx, i.userId), subjectId: rows[0].id, payload: { userId: i.userId } }, ctx);
    return true;
  });
}

export const IssueInviteInput = z.object({ workspaceId: Id, role: RoleSchema, /** The admin who invites. */ invitedBy: Id });
export type IssueInviteInput = z.input<typeof IssueInviteInput>;

export async function issueInvite(db: DbOrTx, raw: IssueInviteInput, ctx?: OperatorContext): Promise<{ token: string; expiresAt: Date }> {
  const terms = parseInput(IssueInviteInput, raw, "invite.issue");
  const { token, hash } = newSecret("");
  const id = randomUUID();
  const expiresAt = new Date(Date.now() + INVITE_TTL_MS);
  const value = JSON.stringify({ kind: INVITE, ...terms });
  await inTx(db, async (tx) => {
    await tx.$executeRaw`INSERT INTO "verification" ("id", "identifier", "value", "expiresAt") VALUES (${id}, ${hash}, ${value}, ${expiresAt})`;
    const payload = { role: terms.role, expiresAt: expiresAt.toISOString() };
    await appendEvent(tx, { operator: "invite.issue", actor: actorOf(ctx, terms.invitedBy), subjectId: id, workspaceId: terms.workspaceId, payload }, ctx);
  });
  return { token, expiresAt };
}

export async function readInvite(db: DbOrTx, token: string): Promise<InviteTerms | null> {
  const rows = await db.$queryRaw<{ value: string }[]>`
    SELECT "value" FROM "verification" WHERE "identifier" = ${hashSecret(token)} AND "expiresAt" > now()`;
  return parseInvite(rows[0]?.value);
}

/** Uses the invite up; null when it was used meanwhile or has expired. */
export async function consumeInvite(db: DbOrTx, raw: UseOneTimeLinkInput, ctx?: OperatorContext): Promise<InviteTerms | null> {
  const i = parseInput(UseOneTimeLinkInput, raw, "invite.use");
  return inTx(db, async (tx) => {
    const rows = await tx.$queryRaw<{ id: string; value: string }[]>`
      DELETE FROM "verification" WHERE "identifier" = ${hashSecret(i.token)} AND "value" LIKE ${`${INVITE_PREFIX}%`} AND "expiresAt" > now() RETURNING "id", "value"`;
    const terms = parseInvite(rows[0]?.value);
    if (!terms) return null;
    const payload = { userId: i.userId, role: terms.role, invitedBy: terms.invitedBy };
    await appendEvent(tx, { operator: "invite.use", actor: actorOf(ctx, i.userId), subjectId: rows[0]!.id, workspaceId: terms.workspaceId, payload }, ctx);
    return terms;
  });
}

function parseInvite(value: string | undefined): InviteTerms | null {
  if (!value?.startsWith("{")) return null;
  const parsed = JSON.parse(value) as InviteTerms & { kind?: string };
  return parsed.kind === INVITE ? { workspaceId: parsed.workspaceId, role: parsed.role, invitedBy: parsed.invitedBy } : null;
}
