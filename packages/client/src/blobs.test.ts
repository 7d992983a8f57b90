// Blobs through the client over the real API and Postgres: an upload is read back streamed by GET /blobs/<sha256>
// with the client's credentials, or with a share link's token for a blob its run shows; anything else is NOT_FOUND.
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { crc32, deflateSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { TRPCClientError } from "@trpc/client";
import { agentTokenHeaders, type SignedUpMember, signUpMember, useApiServer } from "@phoneloop/api/testing";
import { appendEvidence, createShare, registerAgent, startRun, createGoal } from "@phoneloop/state";
import { useTestDatabase } from "@phoneloop/state/testing";
import { createApiClient } from "./api-client.ts";
import { readBlob, uploadBlob } from "./blobs.ts";
import { createControlPlane } from "./control-plane.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let admin: SignedUpMember;

beforeAll(async () => {
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
});

const bytesOf = async (read: { body: ReadableStream<Uint8Array> }) => new Uint8Array(await new Response(read.body).arrayBuffer());
/** A real 16×16 PNG of random pixels (a new one each call); uploaded with `exact`, it is stored byte for byte. */
function png(): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(16, 0);
  header.writeUInt32BE(16, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  const rows = Buffer.concat(Array.from({ length: 16 }, () => Buffer.concat([Buffer.from([0]), randomBytes(16 * 3)])));
  return new Uint8Array(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]));
}

describe("readBlob", () => {
  it("reads back what uploadBlob stored, streamed, with the agent token; another workspace's caller gets NOT_FOUND", async () => {
    const { token } = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId });
    const agent = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
    const bytes = png();
    const { sha256 } = await uploadBlob(agent, { bytes, mime: "image/png", exact: true });
    const read = await readBlob(agent, sha256);
    expect(read).toMatchObject({ mime: "image/png", size: bytes.byteLength });
    expect(await bytesOf(read)).toEqual(bytes);

    const outsider = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    const stranger = createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: outsider.headers.cookie! } });
    const refused = await readBlob(stranger, sha256).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<never>).data).toMatchObject({ code: "NOT_FOUND", httpStatus: 404 });
    expect((refused as Error).message).toMatch(/No blob/);
  });

  it("with a share link's token, a blob of the shared run and no other", async () => {
    const member = createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: admin.headers.cookie! } });
    const shown = png();
    const { sha256 } = await uploadBlob(member, { bytes: shown, mime: "image/png", exact: true });
    const { sha256: unshown } = await uploadBlob(member, { bytes: png(), mime: "image/png", exact: true });
    const goal = await createGoal(t.db, { workspaceId: admin.workspaceId, title: "Shared", objective: "Show a screen" });
    const agent = await registerAgent(t.db, { id: `agent_share_${goal.id}`, workspaceId: admin.workspaceId, name: "w", kind: "headless" });
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
    await appendEvidence(t.db, { goalId: goal.id, runId: run.id, kind: "observation", summary: "a screen", blobSha256: sha256, idempotencyKey: `ev_${run.id}` });
    const { token } = await createShare(t.db, { workspaceId: admin.workspaceId, runId: run.id }, { actor: admin.userId });

    const anyone = createApiClient({ apiUrl: api.url });
    expect(await bytesOf(await readBlob(anyone, sha256, { share: token }))).toEqual(shown);
    expect(((await readBlob(anyone, unshown, { share: token }).catch((e: unknown) => e)) as TRPCClientError<never>).data).toMatchObject({ code: "NOT_FOUND" });
    expect(((await readBlob(anyone, sha256).catch((e: unknown) => e)) as TRPCClientError<never>).data).toMatchObject({ code: "UNAUTHORIZED", httpStatus: 401 });
  });
});

describe("uploads while the caller's upload slots are taken", () => {
  it("are tried again after the API's Retry-After instead of failing the step: the ControlPlane stores the screenshot once a slot is free", async () => {
    const { token } = await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId });
    const { port } = new URL(api.url);
    // Two uploads of the same token whose bodies are still coming hold both of its slots. (One that reached the API
    // after a probe below took its slot is refused itself — it reads an answer — and is opened again.)
    const hold = () =>
      new Promise<Socket & { refused?: boolean }>((resolve, reject) => {
        const s: Socket & { refused?: boolean } = connect(Number(port), "127.0.0.1", () =>
          s.write(`POST /blobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: image/png\r\nContent-Length: 100000\r\n\r\n${"x".repeat(100)}`, () => resolve(s)),
        );
        s.once("data", () => (s.refused = true));
        s.once("error", reject);
      });
    let held = [await hold(), await hold()];
    const agent = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
    const retried: string[] = [];
    const cp = createControlPlane(agent, { apiUrl: api.url, onRetry: (n) => retried.push(n.reason) });
    // Until a slot is free the API answers 429 with Retry-After.
    let busy: unknown = null;
    for (let i = 0; i < 50 && !(busy instanceof TRPCClientError); i++) {
      await new Promise((r) => setTimeout(r, 200));
      held = await Promise.all(held.map((s) => (s.refused ? (s.destroy(), hold()) : s)));
      busy = await uploadBlob(agent, { bytes: png(), mime: "image/png" }).catch((e: unknown) => e);
    }
    expect((busy as TRPCClientError<never>).data).toMatchObject({ code: "TOO_MANY_REQUESTS", httpStatus: 429, retryAfterMs: 1000 });
    // One frees while the ControlPlane waits the Retry-After: the screenshot is stored, not the step failed.
    const stored = cp.putBlob({ bytes: png(), mime: "image/png" });
    setTimeout(() => held.forEach((s) => s.destroy()), 300);
    expect(await stored).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(retried.length).toBeGreaterThan(0);
  });
});
