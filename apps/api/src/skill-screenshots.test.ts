// A skill's screenshots over real HTTP: the Learning page reads a skill's steps (skill.list) with its description,
// its parameters' example values and each step's screenshot sha256, and reads the screenshot through the one blob
// path (GET /blobs/<sha256>) as any other blob of the workspace — a member of another workspace gets 404, also when
// a skill of theirs names the same sha256 (naming a blob grants nothing). Once the run's evidence is gone, the
// collector keeps the screenshot the skill shows, and the member still reads it.
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { appendEvidence, collectBlobs, startRun } from "@phoneloop/state";
import { createApiClient, uploadBlob } from "@phoneloop/client";
import { rid, seedAgent, seedGoal, useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { agentTokenHeaders, callOverHttp, signUpMember } from "./auth/testing.ts";

const t = useTestDatabase();
const api = useApiServer(t);

const screen = { app: "com.loop", activity: "com.loop.Feed", required: [{ resourceId: "com.loop:id/search_box", at: { x: 500, y: 80 } }] };
const bodyShowing = (sha256: string) => ({
  format: 1,
  app: "com.loop",
  description: "search Loop for {query}",
  params: ["query"],
  example: { query: "red shoes" },
  pre: screen,
  steps: [
    { action: { type: "click" }, target: { resourceId: "com.loop:id/search_box", at: { x: 500, y: 80 } }, before: screen, shot: sha256 },
    { action: { type: "input_text", text: "{query}" }, before: { ...screen, activity: "com.loop.Search", required: [] } },
  ],
  post: { ...screen, activity: "com.loop.Results", required: [] },
});

describe("a skill's step screenshots", () => {
  it("a member reads the steps with their screenshot sha and the screenshot itself; another workspace's member gets 404; the collector keeps it after the run's evidence is gone", async () => {
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const viewer = await signUpMember({ db: t.db, auth: api.auth }, { role: "viewer", workspaceId: admin.workspaceId });
    const agent = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId });
    const png = await sharp({ create: { width: 180, height: 400, channels: 3, background: "#1d9bf0" } }).png().toBuffer();
    // The agent uploads the screen it observed and records it, as a run does.
    const { sha256 } = await uploadBlob(createApiClient({ apiUrl: api.url, auth: { kind: "token", token: agent.token } }), { bytes: new Uint8Array(png), mime: "image/png" });
    const goal = await seedGoal(t.db, { workspaceId: viewer.workspaceId });
    const run = await startRun(t.db, { goalId: goal.id, agentId: (await seedAgent(t.db, { workspaceId: viewer.workspaceId })).id });
    await appendEvidence(t.db, { goalId: goal.id, runId: run.id, stepIndex: 0, kind: "observation", summary: "the feed", blobSha256: sha256, idempotencyKey: rid("ev") });
    const saved = await callOverHttp(api.url, "skill.save", { app: "com.loop", appVersion: "1.0", name: "search", goal: "Search Loop", body: bodyShowing(sha256), runId: run.id }, agent.headers);
    expect(saved.status, saved.message).toBe(200);

    const listed = await callOverHttp(api.url, "skill.list", {}, viewer.headers);
    expect(listed.status, listed.message).toBe(200);
    const steps = (listed.data as { items: { steps: { description: string | null; parameters: string[]; example: Record<string, string>; steps: { shot: string | null }[] } }[] }).items[0]!.steps;
    expect(steps).toMatchObject({ description: "search Loop for {query}", parameters: ["query"], example: { query: "red shoes" } });
    expect(steps.steps.map((s) => s.shot)).toEqual([sha256, null]);

    const read = async (headers: Record<string, string>) => fetch(`${api.url}/blobs/${sha256}`, { headers });
    const ok = await read(viewer.headers);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("image/webp");
    const { width } = await sharp(Buffer.from(await ok.arrayBuffer())).metadata();
    expect(width).toBe(180);

    // A stranger whose own skill names the same sha256 still reads nothing.
    const stranger = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const theirAgent = await agentTokenHeaders(t.db, { workspaceId: stranger.workspaceId, issuedBy: stranger.userId });
    expect((await callOverHttp(api.url, "skill.save", { app: "com.loop", appVersion: "1.0", name: "borrowed", goal: "Search Loop", body: bodyShowing(sha256), runId: rid("run") }, theirAgent.headers)).status).toBe(200);
    const refused = await read(stranger.headers);
    expect(refused.status).toBe(404);
    expect(await refused.text()).toBe(`No blob ${sha256} in this workspace.`);

    // The run's evidence is gone and the collector runs with no grace: the skill's screenshot stays readable.
    await t.db.goal.delete({ where: { id: goal.id } });
    await collectBlobs(t.db, { graceMs: 0 });
    expect((await read(viewer.headers)).status).toBe(200);
    expect((await read(stranger.headers)).status).toBe(404);
  });
});
