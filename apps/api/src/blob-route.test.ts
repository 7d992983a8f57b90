// GET /blobs/<sha256>: a member of the blob's workspace reads its bytes with an immutable cache header; anyone
// else gets the answer for "not there", a share link opens only its run's blobs, and a signed-out caller is told to sign in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvidence, createShare, issueAgentToken, putBlob, registerAgent, revokeShare, startRun } from "@phoneloop/state";
import { createTestDatabase, rid, seedGoal, seedWorkspace, type TestDatabase } from "@phoneloop/state/testing";
import { createApiServer, type ApiServer } from "./api-server.ts";
import { signUpMember } from "./auth/testing.ts";

let t: TestDatabase;
let api: ApiServer;

beforeAll(async () => {
  t = await createTestDatabase();
  api = await createApiServer({ db: t.db, databaseUrl: t.url, port: 0, host: "127.0.0.1" });
});
afterAll(async () => {
  await api.close();
  await t.drop();
});

describe("GET /blobs/<sha256>", () => {
  it("serves the workspace's blob to its member, cacheable for good, and 304 on a repeat with its ETag", async () => {
    const viewer = await signUpMember({ db: t.db, auth: api.auth }, { role: "viewer" });
    const bytes = new Uint8Array([137, 80, 78, 71, 1, 2, 3, 4]);
    const { sha256 } = await putBlob(t.db, { bytes, mime: "image/png", workspaceId: viewer.workspaceId });

    const res = await fetch(`${api.url}/blobs/${sha256}`, { headers: viewer.headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);

    const again = await fetch(`${api.url}/blobs/${sha256}`, { headers: { ...viewer.headers, "if-none-match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });

  it("answers 404 to a member of another workspace and 401 to a signed-out caller, naming what to do", async () => {
    const owner = await signUpMember({ db: t.db, auth: api.auth }, { role: "operator" });
    const stranger = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const { sha256 } = await putBlob(t.db, { bytes: new Uint8Array([9, 9, 9]), mime: "image/png", workspaceId: owner.workspaceId });

    const other = await fetch(`${api.url}/blobs/${sha256}`, { headers: stranger.headers });
    expect(other.status).toBe(404);
    const anonymous = await fetch(`${api.url}/blobs/${sha256}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toMatch(/Sign in/);
    const malformed = await fetch(`${api.url}/blobs/not-a-hash`, { headers: owner.headers });
    expect(malformed.status).toBe(400);
  });

  it("opens through a share link (?share=) only the blobs of the shared run, and nothing once it is revoked", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const { tokenId } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "tab", issuedBy: admin.id });
    const agent = await registerAgent(t.db, { id: rid("agent"), name: "Pixel tab", kind: "browser", workspaceId: workspace.id, tokenId });
    const goal = await seedGoal(t.db, { workspaceId: workspace.id });
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
    const shown = await putBlob(t.db, { bytes: new Uint8Array([1, 1, 1]), mime: "image/png", workspaceId: workspace.id });
    const unshared = await putBlob(t.db, { bytes: new Uint8Array([2, 2, 2]), mime: "image/png", workspaceId: workspace.id });
    await appendEvidence(t.db, { goalId: goal.id, runId: run.id, stepIndex: 0, kind: "observation", summary: "the screen", blobSha256: shown.sha256, idempotencyKey: `${run.id}:0:observation` });
    const { token, share } = await createShare(t.db, { workspaceId: workspace.id, runId: run.id });

    expect((await fetch(`${api.url}/blobs/${shown.sha256}?share=${encodeURIComponent(token)}`)).status).toBe(200);
    expect((await fetch(`${api.url}/blobs/${unshared.sha256}?share=${encodeURIComponent(token)}`)).status).toBe(404);
    await revokeShare(t.db, { workspaceId: workspace.id, shareId: share.id });
    expect((await fetch(`${api.url}/blobs/${shown.sha256}?share=${encodeURIComponent(token)}`)).status).toBe(404);
  });
});
