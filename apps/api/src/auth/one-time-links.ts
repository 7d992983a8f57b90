// The setup link (the first admin on a fresh install) and invite links: random 256-bit tokens of which only the
// sha256 is kept, in better-auth's "verification" table, each usable once before it expires.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Db, Role } from "@phoneloop/state";

const SETUP = "phoneloop-setup";
const INVITE = "phoneloop-invite";
export const SETUP_TTL_MS = 24 * 60 * 60 * 1000;
export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface InviteTerms {
  workspaceId: string;
  role: Role;
  invitedBy: string;
}

const digest = (token: string) => createHash("sha256").update(token).digest("hex");
const newToken = () => randomBytes(32).toString("base64url");

/** Whether anybody has an account yet (no one = the install still needs its setup link). */
export async function hasAccounts(db: Db): Promise<boolean> {
  const rows = await db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "user"`;
  return (rows[0]?.n ?? 0) > 0;
}

/** A new setup token; earlier ones stop working (only the link printed last opens setup). */
export async function issueSetupToken(db: Db): Promise<string> {
  const token = newToken();
  await db.$transaction([
    db.$executeRaw`DELETE FROM "verification" WHERE "value" = ${SETUP}`,
    db.$executeRaw`INSERT INTO "verification" ("id", "identifier", "value", "expiresAt") VALUES (${randomUUID()}, ${digest(token)}, ${SETUP}, ${new Date(Date.now() + SETUP_TTL_MS)})`,
  ]);
  return token;
}

export async function setupTokenValid(db: Db, token: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT "id" FROM "verification" WHERE "identifier" = ${digest(token)} AND "value" = ${SETUP} AND "expiresAt" > now()`;
  return rows.length > 0;
}

/** Uses the setup token up; false when it was used (or replaced) meanwhile. */
export async function consumeSetupToken(db: Db, token: string): Promise<boolean> {
  const n = await db.$executeRaw`DELETE FROM "verification" WHERE "identifier" = ${digest(token)} AND "value" = ${SETUP} AND "expiresAt" > now()`;
  return n > 0;
}

export async function issueInvite(db: Db, terms: InviteTerms): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken();
  const expiresAt = new Date(Date.now() + INVITE_TTL_MS);
  const value = JSON.stringify({ kind: INVITE, ...terms });
  await db.$executeRaw`INSERT INTO "verification" ("id", "identifier", "value", "expiresAt") VALUES (${randomUUID()}, ${digest(token)}, ${value}, ${expiresAt})`;
  return { token, expiresAt };
}

export async function readInvite(db: Db, token: string): Promise<InviteTerms | null> {
  const rows = await db.$queryRaw<{ value: string }[]>`
    SELECT "value" FROM "verification" WHERE "identifier" = ${digest(token)} AND "expiresAt" > now()`;
  return parseInvite(rows[0]?.value);
}

/** Uses the invite up; null when it was used meanwhile or has expired. */
export async function consumeInvite(db: Db, token: string): Promise<InviteTerms | null> {
  const rows = await db.$queryRaw<{ value: string }[]>`
    DELETE FROM "verification" WHERE "identifier" = ${digest(token)} AND "expiresAt" > now() RETURNING "value"`;
  return parseInvite(rows[0]?.value);
}

function parseInvite(value: string | undefined): InviteTerms | null {
  if (!value?.startsWith("{")) return null;
  const parsed = JSON.parse(value) as InviteTerms & { kind?: string };
  return parsed.kind === INVITE ? { workspaceId: parsed.workspaceId, role: parsed.role, invitedBy: parsed.invitedBy } : null;
}
