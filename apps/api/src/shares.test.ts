// Share links over real HTTP: the token carries 256 random bits and only its hash is stored; a revoked or expired
// link is "not found"; a link opens only its own run (steps and evidence) and only that run's blobs.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { appendEvidence, appendStep, createShare, putBlob, registerAgent, revokeShare, startRun } from "@phoneloop/state";
import { manualClock, rid, seedGoal, seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let ws: string;
let adminId: string;
let agentId: string;

beforeAll(async () => {
  const seeded = await seedWorkspace(t.db);
  ws = seeded.workspace.id;
  adminId = seeded.admin.id;
  agentId = (await registerAgent(t.db, { id: rid("agent"), name: "Worker", kind: "headless", workspaceId: ws })).id;
});

/** A query over HTTP by someone holding only the link (no session, no token). */
async function anonymous(path: string, json: unknown): Promise<{ status: number; data: unknown }> {
  const res = await fetch(`${api.url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json }))}`);
  const body = (await res.json()) as { result?: { data: { json: unknown } } };
  return { status: res.status, data: body.result?.data.json };
}

/** A blob read with the link's token as the share parameter of GET /blobs (the only way to its bytes). */
const sharedRead = (token: string, sha256: string) => fetch(`${api.url}/blobs/${sha256}?share=${encodeURIComponent(token)}`);

/** A run with one step whose screen is a blob, and one evidence row with another blob. */
async function recordedRun(goalId: string) {
  const run = await startRun(t.db, { goalId, agentId });
  const screenBytes = randomBytes(32);
  const screen = await putBlob(t.db, { bytes: screenBytes, mime: "image/png", workspaceId: ws });
  const shot = await putBlob(t.db, { bytes: randomBytes(32), mime: "image/png", workspaceId: ws });
  // The step's screenshot is its observation's blob.
  await appendEvidence(t.db, { goalId, runId: run.id, stepIndex: 0, kind: "observation", summary: "the step's screen", blobSha256: screen.sha256, idempotencyKey: rid("ev") });
  await appendStep(t.db, { runId: run.id, agentId, index: 0, node: "executor" });
  await appendEvidence(t.db, { goalId, runId: run.id, kind: "observation", summary: "the booking screen", blobSha256: shot.sha256, idempotencyKey: rid("ev") });
  return { run, screen: screen.sha256, screenBytes, shot: shot.sha256 };
}

describe("shares", () => {
  it("a token carries at least 128 random bits and is never stored", async () => {
    const goal = await seedGoal(t.db, { workspaceId: ws });
    const { run } = await recordedRun(goal.id);
    const tokens = await Promise.all([1, 2, 3].map(() => createShare(t.db, { workspaceId: ws, runId: run.id }, { actor: adminId })));
    for (const { token, share } of tokens) {
      const secret = Buffer.from(token.replace(/^pls_/, ""), "base64url");
      expect(secret.length * 8).toBeGreaterThanOrEqual(128);
      const row = await t.db.share.findUniqueOrThrow({ where: { id: share.id } });
      expect(row.tokenHash).not.toContain(token.slice(4));
      expect(JSON.stringify(row)).not.toContain(token);
    }
    expect(new Set(tokens.map((x) => x.token)).size).toBe(3);
  });

  it("opens only its run: that run's steps and evidence, not the goal's other run", async () => {
    const goal = await seedGoal(t.db, { workspaceId: ws });
    const shared = await recordedRun(goal.id);
    const other = await recordedRun(goal.id);
    const { token } = await createShare(t.db, { workspaceId: ws, runId: shared.run.id }, { actor: adminId });
    const opened = await anonymous("share.open", { token });
    expect(opened.status).toBe(200);
    const replay = opened.data as { run: { id: string }; timeline: { kind: string; summary: string }[]; goal: { id: string }; stepCount: number };
    expect(replay.run.id).toBe(shared.run.id);
    expect(replay.stepCount).toBe(1);
    expect(replay.timeline.map((e) => [e.kind, e.summary])).toEqual([["observation", "the booking screen"]]);
    const steps = (await anonymous("share.steps", { token })).data as { items: { screen: { sha256: string } | null }[]; nextCursor: string | null };
    expect(steps.items.map((s) => s.screen?.sha256)).toEqual([shared.screen]);
    expect(JSON.stringify([replay, steps])).not.toContain(other.run.id);

    // Its run's blobs (a step's screen, an evidence's screenshot) through the blob route, and no other blob of the
    // workspace; the bytes are the stored ones, as a member reads them.
    for (const sha256 of [shared.screen, shared.shot]) expect((await sharedRead(token, sha256)).status).toBe(200);
    for (const sha256 of [other.screen, other.shot]) expect((await sharedRead(token, sha256)).status).toBe(404);
    const screen = await sharedRead(token, shared.screen);
    expect(screen.headers.get("content-length")).toBe(String(shared.screenBytes.length));
    expect(Buffer.from(await screen.arrayBuffer()).equals(shared.screenBytes)).toBe(true);
    // No procedure answers a blob's bytes (base64 inside JSON): share.blob and evidence.blob are gone.
    expect((await anonymous("share.blob", { token, sha256: shared.shot })).status).toBe(404);
    expect((await anonymous("evidence.blob", { sha256: shared.shot })).status).toBe(404);
    // The link is no session: nothing else opens with it.
    const board = await fetch(`${api.url}/trpc/board.goals?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, { headers: { "x-phoneloop-share": token } });
    expect(board.status).toBe(401);
  });

  it("a revoked, expired or made-up token is 404", async () => {
    const goal = await seedGoal(t.db, { workspaceId: ws });
    const { run, shot } = await recordedRun(goal.id);
    const revoked = await createShare(t.db, { workspaceId: ws, runId: run.id }, { actor: adminId });
    expect((await anonymous("share.open", { token: revoked.token })).status).toBe(200);
    await revokeShare(t.db, { workspaceId: ws, shareId: revoked.share.id }, { actor: adminId });
    expect((await anonymous("share.open", { token: revoked.token })).status).toBe(404);
    expect((await sharedRead(revoked.token, shot)).status).toBe(404);

    // Created an hour ago for ten minutes: expired now.
    const anHourAgo = { clock: manualClock(new Date(Date.now() - 3_600_000)), actor: adminId };
    const expired = await createShare(t.db, { workspaceId: ws, runId: run.id, expiresInMs: 600_000 }, anHourAgo);
    expect((await anonymous("share.open", { token: expired.token })).status).toBe(404);
    expect((await anonymous("share.open", { token: `pls_${randomBytes(32).toString("base64url")}` })).status).toBe(404);
  });
});
