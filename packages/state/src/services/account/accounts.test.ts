// One-time links and discarded accounts through the core: each write is its row and its Event (operator, actor,
// subject), and no Event holds a token or its digest.
import { describe, expect, it } from "vitest";
import { useTestDatabase, seedUser, seedWorkspace } from "../../testing/index.ts";
import { hashSecret } from "../workspace/secret-token.ts";
import type { StateError } from "../../domain/errors.ts";
import { consumeInvite, consumeSetupToken, hasAccounts, issueInvite, issueSetupToken, readInvite, setupTokenValid } from "./one-time-links.ts";
import { discardAccount } from "./discard-account.ts";

const t = useTestDatabase();

const eventsOf = (subjectId: string) => t.db.event.findMany({ where: { subjectId }, orderBy: { id: "asc" } });
const verification = (token: string) => t.db.authVerification.findMany({ where: { identifier: hashSecret(token) } });
const holdsNo = (events: { payload: unknown }[], ...secrets: string[]) => {
  const text = JSON.stringify(events.map((e) => e.payload));
  for (const secret of secrets) expect(text).not.toContain(secret);
};

describe("setup link", () => {
  it("issuing stores the token's sha256 (replacing the last one) and appends setupLink.issue; using it up appends setupLink.use by the new account, once", async () => {
    const first = await issueSetupToken(t.db);
    const token = await issueSetupToken(t.db);
    expect(await setupTokenValid(t.db, first)).toBe(false);
    expect(await setupTokenValid(t.db, token)).toBe(true);
    const [row] = await verification(token);
    expect(row).toMatchObject({ value: "phoneloop-setup" });
    const issued = await eventsOf(row!.id);
    expect(issued).toMatchObject([{ operator: "setupLink.issue", actor: "system", subjectId: row!.id, workspaceId: null }]);
    expect((issued[0]!.payload as { expiresAt: string }).expiresAt).toBe(row!.expiresAt.toISOString());

    const admin = await seedUser(t.db, "Ada");
    expect(await consumeSetupToken(t.db, { token, userId: admin.id })).toBe(true);
    expect(await consumeSetupToken(t.db, { token, userId: admin.id })).toBe(false);
    expect(await verification(token)).toEqual([]);
    const events = await eventsOf(row!.id);
    expect(events.map((e) => [e.operator, e.actor])).toEqual([["setupLink.issue", "system"], ["setupLink.use", admin.id]]);
    expect(events[1]!.payload).toEqual({ userId: admin.id });
    holdsNo(events, token, hashSecret(token));
    expect(await hasAccounts(t.db)).toBe(true);
  });

  it("a malformed use is INVALID_INPUT naming the field, and changes nothing", async () => {
    const token = await issueSetupToken(t.db);
    const e = await consumeSetupToken(t.db, { token, userId: "" }).then(() => null, (x: unknown) => x as StateError);
    expect(e?.code).toBe("INVALID_INPUT");
    expect(e?.message).toMatch(/userId/);
    expect(await setupTokenValid(t.db, token)).toBe(true);
  });
});

describe("invites", () => {
  it("issuing appends invite.issue by the admin in the workspace; using it up returns the terms once and appends invite.use by the joining account", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const { token, expiresAt } = await issueInvite(t.db, { workspaceId: workspace.id, role: "approver", invitedBy: admin.id });
    const [row] = await verification(token);
    expect(row!.expiresAt.getTime()).toBe(expiresAt.getTime());
    expect(await readInvite(t.db, token)).toEqual({ workspaceId: workspace.id, role: "approver", invitedBy: admin.id });
    // A setup token is no invite: it is neither read nor used up as one.
    const setup = await issueSetupToken(t.db);
    const sam = await seedUser(t.db, "Sam");
    expect(await consumeInvite(t.db, { token: setup, userId: sam.id })).toBeNull();
    expect(await setupTokenValid(t.db, setup)).toBe(true);

    expect(await consumeInvite(t.db, { token, userId: sam.id })).toEqual({ workspaceId: workspace.id, role: "approver", invitedBy: admin.id });
    expect(await consumeInvite(t.db, { token, userId: sam.id })).toBeNull();
    expect(await readInvite(t.db, token)).toBeNull();
    const events = await eventsOf(row!.id);
    expect(events).toMatchObject([
      { operator: "invite.issue", actor: admin.id, workspaceId: workspace.id, payload: { role: "approver", expiresAt: expiresAt.toISOString() } },
      { operator: "invite.use", actor: sam.id, workspaceId: workspace.id, payload: { userId: sam.id, role: "approver", invitedBy: admin.id } },
    ]);
    holdsNo(events, token, hashSecret(token));
  });

  it("an invite's role is checked: INVALID_INPUT naming role, and no row", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const e = await issueInvite(t.db, { workspaceId: workspace.id, role: "owner" as "admin", invitedBy: admin.id }).then(() => null, (x: unknown) => x as StateError);
    expect(e?.code).toBe("INVALID_INPUT");
    expect(e?.message).toMatch(/role/);
    expect(await t.db.event.count({ where: { operator: "invite.issue", workspaceId: workspace.id } })).toBe(0);
  });
});

describe("discarded accounts", () => {
  it("deletes the account with its sessions and appends account.discard with the reason; a second discard finds none", async () => {
    const user = await seedUser(t.db, "Late");
    await t.db.$executeRaw`INSERT INTO "session" ("id", "expiresAt", "token", "updatedAt", "userId") VALUES (${`s_${user.id}`}, now() + interval '1 day', ${`tok_${user.id}`}, now(), ${user.id})`;
    expect(await discardAccount(t.db, { userId: user.id, reason: "link_used" })).toBe(true);
    expect(await t.db.authUser.findUnique({ where: { id: user.id } })).toBeNull();
    expect(await t.db.authSession.count({ where: { userId: user.id } })).toBe(0);
    expect(await discardAccount(t.db, { userId: user.id, reason: "link_used" })).toBe(false);
    expect(await eventsOf(user.id)).toMatchObject([{ operator: "account.discard", actor: "system", subjectId: user.id, payload: { reason: "link_used" } }]);
  });
});
