// The API's memory stays bounded under concurrent large reads: ten readers of one 16 MiB blob at once — with an agent
// token, or through a share link of a run that shows it — grow the API process's resident memory by far less than
// one copy of the blob per reader (the Postgres store streams 64 KiB slices). The API runs as its own process (server.ts), so its RSS is its own; the bound is generous, the old path
// (the whole blob per request, several copies) grew it by ~470 MB.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvidence, createShare, issueAgentToken, MAX_BLOB_BYTES, putBlob, registerAgent, startRun } from "@phoneloop/state";
import { rid, seedGoal, seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";

const READERS = 10;
const MiB = 1024 * 1024;
/** Generous: a third of one copy per reader, far below what buffering would take. */
const BOUND = 64 * MiB;

const t = useTestDatabase();
let child: ChildProcess;
let apiUrl: string;

function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
  return Number(line!.replace(/\D+/g, "")) * 1024;
}

beforeAll(async () => {
  const server = fileURLToPath(new URL("./server.ts", import.meta.url));
  child = spawn(process.execPath, ["--import", "tsx", server], {
    env: { ...process.env, DATABASE_URL: t.url, API_PORT: "0", API_HOST: "127.0.0.1", PHONELOOP_SECRET_KEY: randomBytes(32).toString("base64"), BLOB_STORE: "postgres" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  apiUrl = await new Promise<string>((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the API exited (${code}) before listening:\n${out}`)));
  });
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
});

/** Reads the blob through the API, hashing the stream as it comes (nothing kept here). */
async function read(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers });
  expect(res.status).toBe(200);
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  return { size, sha256: hash.digest("hex") };
}

/** The API's RSS growth while READERS read the blob at once; each read gets the whole blob. */
async function growthUnderReads(url: string, headers: Record<string, string>, sha256: string): Promise<number> {
  expect(await read(url, headers)).toEqual({ size: MAX_BLOB_BYTES, sha256 });
  await new Promise((r) => setTimeout(r, 300));
  const baseline = rssOf(child.pid!);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(child.pid!))), 10);
  try {
    const reads = await Promise.all(Array.from({ length: READERS }, () => read(url, headers)));
    for (const r of reads) expect(r).toEqual({ size: MAX_BLOB_BYTES, sha256 });
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, rssOf(child.pid!));
  console.log(`blob reads: API RSS ${(baseline / MiB).toFixed(0)} MiB before, peak ${(peak / MiB).toFixed(0)} MiB during ${READERS} concurrent 16 MiB reads (+${((peak - baseline) / MiB).toFixed(1)} MiB)`);
  return peak - baseline;
}

describe("blob reads", () => {
  it(`keep the API's memory bounded: ${READERS} concurrent reads of a 16 MiB blob grow its RSS by less than ${BOUND / MiB} MiB`, async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const { token } = await issueAgentToken(t.db, { workspaceId: workspace.id, name: "reader", issuedBy: admin.id });
    const bytes = randomBytes(MAX_BLOB_BYTES);
    const { sha256 } = await putBlob(t.db, { bytes, mime: "image/png", workspaceId: workspace.id });
    expect(await growthUnderReads(`${apiUrl}/blobs/${sha256}`, { authorization: `Bearer ${token}` }, sha256)).toBeLessThan(BOUND);
  }, 120_000);

  it(`a share link's reads stream too: ${READERS} concurrent reads of its run's 16 MiB blob grow the RSS by less than ${BOUND / MiB} MiB`, async () => {
    const { workspace, admin } = await seedWorkspace(t.db);
    const goal = await seedGoal(t.db, { workspaceId: workspace.id });
    const agent = await registerAgent(t.db, { id: rid("agent"), name: "Worker", kind: "headless", workspaceId: workspace.id });
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id });
    const { sha256 } = await putBlob(t.db, { bytes: randomBytes(MAX_BLOB_BYTES), mime: "image/png", workspaceId: workspace.id });
    await appendEvidence(t.db, { goalId: goal.id, runId: run.id, kind: "observation", summary: "a large screen", blobSha256: sha256, idempotencyKey: rid("ev") });
    const { token } = await createShare(t.db, { workspaceId: workspace.id, runId: run.id }, { actor: admin.id });
    expect(await growthUnderReads(`${apiUrl}/blobs/${sha256}?share=${encodeURIComponent(token)}`, {}, sha256)).toBeLessThan(BOUND);
  }, 120_000);
});
