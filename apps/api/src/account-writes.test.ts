// What the account routes and the model settings write goes through the core's services, each with its Event: the
// setup link's use (with the seeded model settings), an invite's issue and use, an admin's save of model settings —
// over HTTP, as the web app calls them — and no Event holds a link's token or a model key.
import { describe, expect, it } from "vitest";
import { createApiClient } from "@phoneloop/client";
import { issueSetupToken } from "@phoneloop/state";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { signUpMember } from "./auth/testing.ts";

const WEB = "http://127.0.0.1:3000";
const SEED_KEY = "sk-seed-7d3e0b55";
const ADMIN_KEY = "sk-admin-c41f9a02";
const t = useTestDatabase();
const api = useApiServer(t, { webOrigins: [WEB], modelSeed: { baseUrl: "https://models.example.com/v1", apiKey: SEED_KEY, models: { planner: "seeded" } } });
const password = "correct horse battery";

const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(new URL(path, api.url), { method: "POST", headers: { "content-type": "application/json", origin: WEB, ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const eventsOf = (workspaceId: string) => t.db.event.findMany({ where: { workspaceId }, orderBy: { id: "asc" } });
const holdsNo = (events: { payload: unknown }[], ...secrets: string[]) => {
  const text = JSON.stringify(events.map((e) => e.payload));
  for (const secret of secrets) expect(text).not.toContain(secret);
};

describe("writes of the account routes and model settings", () => {
  it("setup: setupLink.use by the new admin, the workspace, and its seeded model settings (the key named, never shown)", async () => {
    const token = await issueSetupToken(t.db);
    const made = await post("/api/account/setup", { token, name: "Ada", email: "ada@example.test", password, workspaceName: "Ada's team" });
    expect(made.status).toBe(201);
    const { userId, workspaceId } = made.body as { userId: string; workspaceId: string };
    const used = await t.db.event.findMany({ where: { operator: "setupLink.use", actor: userId } });
    expect(used).toHaveLength(1);
    const events = await eventsOf(workspaceId);
    expect(events.map((e) => [e.operator, e.actor])).toEqual([["workspace.create", userId], ["modelSettings.set", userId]]);
    expect(events[1]!.payload).toMatchObject({ baseUrl: "https://models.example.com/v1", apiKey: "set", models: { planner: "seeded" } });
    const [row] = await t.db.$queryRaw<{ apiKeyEncrypted: string }[]>`SELECT "apiKeyEncrypted" FROM "ModelSettings" WHERE "workspaceId" = ${workspaceId}`;
    holdsNo([...used, ...events], token, SEED_KEY, row!.apiKeyEncrypted);
  });

  it("invite: invite.issue by the admin, invite.use and member.add for the person who joins", async () => {
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const client = createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: admin.headers.cookie! } });
    const { path } = await client.invite.create.mutate({ role: "operator" });
    const token = new URL(path, WEB).searchParams.get("token")!;
    const joined = await post("/api/account/invite", { token, name: "Op", email: "op@example.test", password });
    expect(joined.status).toBe(201);
    const userId = (joined.body as { userId: string }).userId;
    const all = await eventsOf(admin.workspaceId);
    const events = all.slice(all.findIndex((e) => e.operator === "invite.issue"));
    expect(events.map((e) => [e.operator, e.actor])).toEqual([["invite.issue", admin.userId], ["invite.use", userId], ["member.add", admin.userId]]);
    holdsNo(events, token);
  });

  it("an admin's save: modelSettings.set by the admin, the key named, never shown", async () => {
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const client = createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: admin.headers.cookie! } });
    await client.modelSettings.set.mutate({ baseUrl: "https://api.example.com/v1", apiKey: ADMIN_KEY, models: { executor: "m" } });
    await client.modelSettings.set.mutate({ baseUrl: "https://api.example.com/v1", models: { executor: "m" } });
    const saves = (await eventsOf(admin.workspaceId)).filter((e) => e.operator === "modelSettings.set");
    expect(saves.map((e) => [e.actor, (e.payload as { apiKey: string }).apiKey])).toEqual([[admin.userId, "set"], [admin.userId, "kept"]]);
    expect((await client.modelSettings.get.query({}))?.hasApiKey).toBe(true);
    holdsNo(saves, ADMIN_KEY);
  });
});
