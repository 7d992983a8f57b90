// GET /blobs/<sha256>: a member of the blob's workspace reads its bytes with an immutable cache header; anyone
// else gets the answer for "not there", a share link opens only its run's blobs, and a signed-out caller is told to sign in.
// POST /blobs: raw image bytes in, sha256 out; PNG screenshots are stored as WebP, identical frames once.
import { createHash } from "node:crypto";
import { connect } from "node:net";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { appendEvidence, collectBlobs, createShare, issueAgentToken, putBlob, registerAgent, revokeShare, startRun, MAX_BLOB_BYTES } from "@phoneloop/state";
import { createApiClient, createControlPlane, uploadBlob } from "@phoneloop/client";
import { rid, seedGoal, seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { UPLOADS_PER_CALLER } from "./blob-route.ts";
import { useApiServer } from "./use-api-server.ts";
import { agentTokenHeaders, signUpMember } from "./auth/testing.ts";

const t = useTestDatabase();
const api = useApiServer(t);

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

const sha256Of = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** A screen-like PNG: a white page with a coloured card and a line of "text" blocks. */
async function screenPng(hue: string, width = 360, height = 800): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>` +
    `<rect x="20" y="120" width="${width - 40}" height="200" rx="12" fill="${hue}"/>` +
    Array.from({ length: 12 }, (_, i) => `<rect x="${24 + i * 26}" y="360" width="18" height="10" fill="#333"/>`).join("") + "</svg>";
  return sharp(Buffer.from(svg)).png().toBuffer();
}

describe("POST /blobs", () => {
  it("stores an agent's PNG screenshot as WebP under the sha256 it answers, once for identical frames; ?exact=1 keeps the PNG", async () => {
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const agent = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId });
    const png = await screenPng("#1d9bf0");
    const upload = (body: Uint8Array, type = "image/png", query = "") =>
      fetch(`${api.url}/blobs${query}`, { method: "POST", headers: { ...agent.headers, "content-type": type }, body: Buffer.from(body) });

    const first = await upload(png);
    expect(first.status).toBe(201);
    const stored = (await first.json()) as { sha256: string; size: number; mime: string; created: boolean };
    expect(stored).toMatchObject({ mime: "image/webp", created: true });
    expect(stored.size).toBeLessThan(png.length);
    const read = await fetch(`${api.url}/blobs/${stored.sha256}`, { headers: admin.headers });
    expect(read.status).toBe(200);
    expect(read.headers.get("content-type")).toBe("image/webp");
    expect(read.headers.get("etag")).toBe(`"${stored.sha256}"`);
    const bytes = new Uint8Array(await read.arrayBuffer());
    expect(sha256Of(bytes)).toBe(stored.sha256);
    expect(await sharp(bytes).metadata()).toMatchObject({ format: "webp", width: 360, height: 800 });

    // The same frame again: the same sha256, nothing new stored.
    const again = await upload(png);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ sha256: stored.sha256, created: false });
    expect(await t.db.blob.count({ where: { sha256: stored.sha256 } })).toBe(1);

    // ?exact=1: a PNG with the same pixels (blob-encoding.test.ts: without its metadata).
    const exact = (await (await upload(png, "image/png", "?exact=1")).json()) as { sha256: string; mime: string };
    expect(exact.mime).toBe("image/png");
    const exactBytes = new Uint8Array(await (await fetch(`${api.url}/blobs/${exact.sha256}`, { headers: admin.headers })).arrayBuffer());
    expect(sha256Of(exactBytes)).toBe(exact.sha256);
    expect(await sharp(exactBytes).raw().toBuffer()).toEqual(await sharp(png).raw().toBuffer());
    // A JPEG is stored as the JPEG it is (without metadata: blob-encoding.test.ts).
    const jpeg = await sharp(png).jpeg({ quality: 70 }).toBuffer();
    const storedJpeg = (await (await upload(jpeg, "image/jpeg")).json()) as { sha256: string; mime: string };
    expect(storedJpeg.mime).toBe("image/jpeg");
    const readJpeg = new Uint8Array(await (await fetch(`${api.url}/blobs/${storedJpeg.sha256}`, { headers: admin.headers })).arrayBuffer());
    expect(await sharp(readJpeg).metadata()).toMatchObject({ format: "jpeg", width: 360, height: 800 });
    expect(Buffer.from(readJpeg).equals(jpeg)).toBe(true);
  });

  it("frees the slot of an upload whose uploader hung up before its body was read (a killed worker), so its next uploads are stored", async () => {
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const agent = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId });
    const { port } = new URL(api.url);
    // More hang-ups than a caller has slots: each sends its headers and goes away while the API still decides who
    // it is (before the body is listened to).
    for (let i = 0; i < UPLOADS_PER_CALLER + 4; i++) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1", () => {
          const head = `POST /blobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${agent.headers.authorization}\r\nContent-Type: image/png\r\nContent-Length: 5000\r\n\r\n`;
          socket.write(head, () => {
            socket.destroy();
            resolve();
          });
        });
        socket.once("error", reject);
      });
    }
    // Give the API time to take the hung-up uploads' slots (before the fix it held them for good: 429 ever after).
    await new Promise((r) => setTimeout(r, 1000));
    const png = await screenPng("#0a7d32");
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 201; attempt++) {
      const res = await fetch(`${api.url}/blobs`, { method: "POST", headers: { ...agent.headers, "content-type": "image/png" }, body: Buffer.from(png) });
      status = res.status;
      await res.arrayBuffer();
      if (status === 429) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(201);
  });

  it("refuses what is not an upload of an image by someone who may run: 401, 403, 415, 400, 413 — each saying what to do", async () => {
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const viewer = await signUpMember({ db: t.db, auth: api.auth }, { role: "viewer", workspaceId: admin.workspaceId });
    const png = await screenPng("#c0392b", 40, 40);
    const post = (headers: Record<string, string>, body: Uint8Array | string) => fetch(`${api.url}/blobs`, { method: "POST", headers, body: typeof body === "string" ? body : Buffer.from(body) });
    const answer = async (r: Response) => ({ status: r.status, ...((await r.json()) as { error: { code: string; message: string } }).error });

    expect(await answer(await post({ "content-type": "image/png" }, png))).toMatchObject({ status: 401, code: "UNAUTHORIZED", message: expect.stringMatching(/agent token/) });
    expect(await answer(await post({ ...viewer.headers, "content-type": "image/png" }, png))).toMatchObject({ status: 403, code: "FORBIDDEN", message: expect.stringMatching(/"run" permission.*viewer/) });
    expect(await answer(await post({ ...admin.headers, "content-type": "image/svg+xml" }, "<svg/>"))).toMatchObject({ status: 415, code: "UNSUPPORTED_MEDIA_TYPE", message: expect.stringMatching(/image\/png, image\/jpeg, image\/webp/) });
    expect(await answer(await post({ ...admin.headers, "content-type": "image/png" }, "not an image at all"))).toMatchObject({ status: 400, code: "INVALID_INPUT" });
    expect(await answer(await post({ ...admin.headers, "content-type": "image/jpeg" }, png))).toMatchObject({ status: 400, code: "INVALID_INPUT", message: expect.stringMatching(/png image, not image\/jpeg/) });
    expect(await answer(await post({ ...admin.headers, "content-type": "image/png" }, new Uint8Array(0)))).toMatchObject({ status: 400, code: "INVALID_INPUT" });
    const huge = new Uint8Array(MAX_BLOB_BYTES + 1);
    expect(await answer(await post({ ...admin.headers, "content-type": "image/png" }, huge))).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE", message: expect.stringMatching(/16 MiB/) });
    // Without a Content-Length (chunked), reading stops at the cap and the answer still arrives.
    const chunked = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new Uint8Array(1024 * 1024));
        c.close();
      },
    });
    const streamed = await fetch(`${api.url}/blobs`, { method: "POST", headers: { ...admin.headers, "content-type": "image/png" }, body: chunked, duplex: "half" } as RequestInit);
    expect(await answer(streamed)).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" });
  });

  it("is how the client stores evidence screenshots: the ControlPlane uploads binary and the evidence names the stored sha256", async () => {
    const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const { token } = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId });
    const client = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
    const cp = createControlPlane(client, { apiUrl: api.url });
    const { agentId } = await cp.registerAgent({ name: "headless", kind: "headless", capabilities: ["android"] });
    const goal = await cp.createGoal({ objective: "Look at the home screen" });
    const run = await cp.startRun({ goalId: goal.id, agentId });
    const png = await screenPng("#27ae60");
    const { evidenceId } = await cp.appendEvidence({ idempotencyKey: rid("ev"), kind: "observation", goalId: goal.id, runId: run.id, summary: "home", data: {}, blob: { bytes: png, mime: "image/png" } });
    const [row] = await cp.listEvidence({ goalId: goal.id, runId: run.id });
    expect(row!.id).toBe(evidenceId);
    const { sha256 } = await uploadBlob(client, { bytes: png, mime: "image/png" });
    expect(row!.blobSha256).toBe(sha256);
    expect((await t.db.blob.findUnique({ where: { sha256 } }))!.mime).toBe("image/webp");
    // A refusal is the client's error with the API's code and message.
    await expect(uploadBlob(client, { bytes: new TextEncoder().encode("text"), mime: "text/plain" })).rejects.toMatchObject({ data: { code: "UNSUPPORTED_MEDIA_TYPE", httpStatus: 415 } });
  });

  it("answers 410 for a screenshot retention deleted, naming the rule, and the evidence still names it", async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const member = await signUpMember({ db: t.db, auth: api.auth }, { role: "viewer", workspaceId: workspace.id });
    const { tokenId } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "tab", issuedBy: admin.id });
    const agent = await registerAgent(t.db, { id: rid("agent"), name: "Pixel tab", kind: "browser", workspaceId: workspace.id, tokenId });
    const goal = await seedGoal(t.db, { workspaceId: workspace.id });
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
    const shot = await putBlob(t.db, { bytes: await screenPng("#8e44ad", 20, 20), mime: "image/png", workspaceId: workspace.id });
    await appendEvidence(t.db, { goalId: goal.id, runId: run.id, kind: "observation", summary: "the screen", blobSha256: shot.sha256, idempotencyKey: rid("ev") });
    await t.db.run.update({ where: { id: run.id }, data: { status: "completed", endedAt: new Date(Date.now() - 40 * 24 * 3_600_000) } });
    await collectBlobs(t.db, { retentionDays: 30, graceMs: 0 }, { clock: { now: () => Date.now() + 3_600_000, monotonic: () => 0, sleep: async () => {} } });
    const res = await fetch(`${api.url}/blobs/${shot.sha256}`, { headers: member.headers });
    expect(res.status).toBe(410);
    expect(await res.text()).toMatch(/deleted by the workspace's retention/);
    expect(await t.db.evidence.count({ where: { blobSha256: shot.sha256 } })).toBe(1);
  });
});
