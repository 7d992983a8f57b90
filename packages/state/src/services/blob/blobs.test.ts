// Blobs over both stores: stored once per content, owned per workspace, and the collector — unreferenced blobs go
// after their grace, referenced ones stay, retention deletes the bytes of old runs' screenshots (not of shared
// runs, nor the ones a skill's steps show), and bytes no row names are swept.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import S3rver from "s3rver";
import { useTestDatabase, manualClock, rid, seedAgent, seedGoal, seedWorkspace, type UsedTestDatabase } from "../../testing/index.ts";
import type { BlobStore } from "../../blobs/blob-store.ts";
import { postgresBlobStore } from "../../blobs/postgres-blob-store.ts";
import { s3BlobStore } from "../../blobs/s3-blob-store.ts";
import { appendEvidence } from "../evidence/append-evidence.ts";
import { appendStep } from "../run/append-step.ts";
import { finishRun } from "../run/finish-run.ts";
import { startRun } from "../run/start-run.ts";
import { deleteSkill, saveSkill } from "../skill/skills.ts";
import { createShare } from "../workspace/shares.ts";
import { collectBlobs } from "./collect-blobs.ts";
import { putBlob } from "./put-blob.ts";
import { getBlob, openBlob } from "./read-blob.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let s3: S3rver;
let s3Dir: string;
let s3Url = "";

beforeAll(async () => {
  s3Dir = mkdtempSync(join(tmpdir(), "phoneloop-s3-"));
  s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: "gc", configs: [] }] });
  s3Url = `http://127.0.0.1:${(await s3.run()).port}`;
});
afterAll(async () => {
  await s3?.close();
  rmSync(s3Dir, { recursive: true, force: true });
});

const stores: [string, (t: UsedTestDatabase) => BlobStore][] = [
  ["postgres", (t) => postgresBlobStore(t.db)],
  ["s3", () => s3BlobStore({ endpoint: s3Url, bucket: "gc", region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER", forcePathStyle: true })],
];

const shot = (label: string) => new TextEncoder().encode(`frame ${label} ${rid("px")}`);

describe.each(stores)("blobs over the %s store", (_kind, make) => {
  const t = useTestDatabase();
  let store: BlobStore;
  beforeAll(() => {
    store = make(t);
  });

  const keysOf = async (sha256: string) => {
    const keys: string[] = [];
    for (let after: string | undefined = sha256; ; ) {
      const page = await store.list({ after, limit: 100 });
      keys.push(...page.map((o) => o.key).filter((k) => k.startsWith(sha256)));
      if (page.length < 100) return keys;
      after = page.at(-1)!.key;
    }
  };
  const row = (sha256: string) => t.db.blob.findUnique({ where: { sha256 }, select: { storageKey: true, expiredAt: true } });
  const owners = async (sha256: string) => (await t.db.workspaceBlob.findMany({ where: { sha256 }, select: { workspaceId: true } })).map((w) => w.workspaceId).sort();

  it("stores identical bytes once, whoever puts them, and each putting workspace owns them", async () => {
    const [a, b] = [(await seedWorkspace(t.db)).workspace.id, (await seedWorkspace(t.db)).workspace.id];
    const bytes = shot("home");
    const first = await putBlob(t.db, { bytes, mime: "image/webp", workspaceId: a }, { store });
    const again = await putBlob(t.db, { bytes, mime: "image/webp", workspaceId: a }, { store });
    const other = await putBlob(t.db, { bytes, mime: "image/webp", workspaceId: b }, { store });
    expect(first.created).toBe(true);
    expect(again).toEqual({ ...first, created: false });
    expect(other).toEqual({ ...first, created: true });
    expect(await keysOf(first.sha256)).toHaveLength(1);
    expect(await owners(first.sha256)).toEqual([a, b].sort());
    expect(Buffer.from((await getBlob(t.db, first.sha256, { workspaceId: b }, { store }))!.bytes).equals(Buffer.from(bytes))).toBe(true);
    expect(await getBlob(t.db, first.sha256, { workspaceId: (await seedWorkspace(t.db)).workspace.id }, { store })).toBeNull();
    // Ten concurrent puts of new bytes: one row, one stored copy.
    const burst = shot("burst");
    const results = await Promise.all(Array.from({ length: 10 }, () => putBlob(t.db, { bytes: burst, mime: "image/webp", workspaceId: a }, { store })));
    expect(new Set(results.map((r) => r.sha256)).size).toBe(1);
    expect(await keysOf(results[0]!.sha256)).toHaveLength(1);
  });

  it("collects unreferenced blobs after their grace, ends ownerships a workspace no longer uses, keeps what evidence and steps show", async () => {
    const clock = manualClock(Date.now());
    const ctx = { clock, store };
    const { workspace } = await seedWorkspace(t.db);
    const elsewhere = (await seedWorkspace(t.db)).workspace.id;
    const goal = await seedGoal(t.db, { workspaceId: workspace.id }, ctx);
    const agent = await seedAgent(t.db, { workspaceId: workspace.id }, ctx);
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id }, ctx);
    const loose = await putBlob(t.db, { bytes: shot("loose"), mime: "image/webp", workspaceId: workspace.id }, ctx);
    const shown = await putBlob(t.db, { bytes: shot("shown"), mime: "image/webp", workspaceId: workspace.id }, ctx);
    const shownBytes = (await getBlob(t.db, shown.sha256, { workspaceId: workspace.id }, { store }))!.bytes;
    await putBlob(t.db, { bytes: shownBytes, mime: "image/webp", workspaceId: elsewhere }, ctx);
    const screen = await putBlob(t.db, { bytes: shot("step"), mime: "image/webp", workspaceId: workspace.id }, ctx);
    await appendEvidence(t.db, { goalId: goal.id, runId: run.id, kind: "observation", summary: "the screen", blobSha256: shown.sha256, idempotencyKey: rid("ev") }, ctx);
    // A step's screenshot is its observation's blob.
    await appendEvidence(t.db, { goalId: goal.id, runId: run.id, stepIndex: 0, kind: "observation", summary: "the step's screen", blobSha256: screen.sha256, idempotencyKey: rid("ev") }, ctx);
    await appendStep(t.db, { runId: run.id, index: 0, node: "executor" }, ctx);

    clock.advance(HOUR / 2);
    await collectBlobs(t.db, { graceMs: HOUR }, ctx);
    expect(await row(loose.sha256)).not.toBeNull();

    clock.advance(HOUR);
    const r = await collectBlobs(t.db, { graceMs: HOUR }, ctx);
    expect(r.deleted).toBeGreaterThanOrEqual(1);
    expect(await row(loose.sha256)).toBeNull();
    expect(await keysOf(loose.sha256)).toEqual([]);
    // The other workspace put the shown bytes but never used them: it no longer owns them; the run's workspace does.
    expect(await owners(shown.sha256)).toEqual([workspace.id]);
    for (const kept of [shown, screen]) {
      expect(await row(kept.sha256)).toMatchObject({ expiredAt: null });
      expect(await getBlob(t.db, kept.sha256, { workspaceId: workspace.id }, { store })).not.toBeNull();
    }
  });

  it("retention deletes the bytes of old runs' screenshots, keeps the row (expired), and keeps recent and shared runs' ones", async () => {
    const clock = manualClock(Date.now());
    const ctx = { clock, store };
    const { workspace } = await seedWorkspace(t.db);
    const goal = await seedGoal(t.db, { workspaceId: workspace.id }, ctx);
    const agent = await seedAgent(t.db, { workspaceId: workspace.id }, ctx);
    const put = (label: string) => putBlob(t.db, { bytes: shot(label), mime: "image/webp", workspaceId: workspace.id }, ctx);
    const show = (runId: string, sha256: string) => appendEvidence(t.db, { goalId: goal.id, runId, kind: "observation", summary: "screen", blobSha256: sha256, idempotencyKey: rid("ev") }, ctx);

    const old = await startRun(t.db, { goalId: goal.id, agentId: agent.id }, ctx);
    const shared = await startRun(t.db, { goalId: goal.id, agentId: agent.id }, ctx);
    const [oldShot, sharedShot, bothShot] = [await put("old"), await put("shared"), await put("both")];
    const oldBytes = (await getBlob(t.db, oldShot.sha256, { workspaceId: workspace.id }, { store }))!.bytes;
    await show(old.id, oldShot.sha256);
    await show(old.id, bothShot.sha256);
    await show(shared.id, sharedShot.sha256);
    await finishRun(t.db, { runId: old.id, status: "completed" }, ctx);
    await finishRun(t.db, { runId: shared.id, status: "completed" }, ctx);
    await createShare(t.db, { workspaceId: workspace.id, runId: shared.id }, ctx);

    clock.advance(9 * DAY);
    const recent = await startRun(t.db, { goalId: goal.id, agentId: agent.id }, ctx);
    const recentShot = await put("recent");
    await show(recent.id, recentShot.sha256);
    await show(recent.id, bothShot.sha256);
    await finishRun(t.db, { runId: recent.id, status: "completed" }, ctx);

    clock.advance(DAY);
    // Without a retention, nothing referenced goes.
    await collectBlobs(t.db, { graceMs: HOUR }, ctx);
    expect(await row(oldShot.sha256)).toMatchObject({ expiredAt: null });

    const r = await collectBlobs(t.db, { graceMs: HOUR, retentionDays: 7 }, ctx);
    expect(r.expired).toBeGreaterThanOrEqual(1);
    const expired = await row(oldShot.sha256);
    expect(expired).toMatchObject({ storageKey: null });
    expect(expired!.expiredAt!.getTime()).toBe(clock.now());
    expect(await keysOf(oldShot.sha256)).toEqual([]);
    expect((await openBlob(t.db, oldShot.sha256, { workspaceId: workspace.id }, { store })).status).toBe("expired");
    for (const kept of [sharedShot, bothShot, recentShot]) expect((await openBlob(t.db, kept.sha256, { workspaceId: workspace.id }, { store })).status).toBe("ok");

    // The same frame seen again is stored again, under the same sha256.
    const back = await putBlob(t.db, { bytes: oldBytes, mime: "image/webp", workspaceId: workspace.id }, ctx);
    expect(back.sha256).toBe(oldShot.sha256);
    expect(await row(oldShot.sha256)).toMatchObject({ expiredAt: null });
    expect((await openBlob(t.db, oldShot.sha256, { workspaceId: workspace.id }, { store })).status).toBe("ok");
  });

  it("keeps the screenshot a skill's step shows once the run's evidence is gone and past the retention; a blob nobody references still goes", async () => {
    const clock = manualClock(Date.now());
    const ctx = { clock, store };
    const { workspace } = await seedWorkspace(t.db);
    const elsewhere = (await seedWorkspace(t.db)).workspace.id;
    const goal = await seedGoal(t.db, { workspaceId: workspace.id }, ctx);
    const agent = await seedAgent(t.db, { workspaceId: workspace.id }, ctx);
    const run = await startRun(t.db, { goalId: goal.id, agentId: agent.id }, ctx);
    const [stepShot, loose] = [await putBlob(t.db, { bytes: shot("skill step"), mime: "image/webp", workspaceId: workspace.id }, ctx), await putBlob(t.db, { bytes: shot("nobody's"), mime: "image/webp", workspaceId: workspace.id }, ctx)];
    await appendEvidence(t.db, { goalId: goal.id, runId: run.id, stepIndex: 0, kind: "observation", summary: "the feed", blobSha256: stepShot.sha256, idempotencyKey: rid("ev") }, ctx);
    await finishRun(t.db, { runId: run.id, status: "completed" }, ctx);
    const screen = { app: "com.loop", activity: ".Feed", required: [] };
    const body = (sha256: string) => ({ format: 1, app: "com.loop", pre: screen, steps: [{ action: { type: "click" }, before: screen, shot: sha256 }], post: screen });
    const skill = await saveSkill(t.db, { workspaceId: workspace.id, app: "com.loop", appVersion: "1.0", name: "open feed", goal: "Open the feed", body: body(stepShot.sha256), runId: run.id }, ctx);
    expect(skill.steps?.steps[0]?.shot).toBe(stepShot.sha256);
    // Another workspace's skill naming a blob it never owned keeps nothing.
    await saveSkill(t.db, { workspaceId: elsewhere, app: "com.loop", appVersion: "1.0", name: "borrowed", goal: "Borrow a screenshot", body: body(loose.sha256), runId: rid("run") }, ctx);

    // The run's evidence is gone (its goal deleted); ten days on, retention at seven.
    await t.db.goal.delete({ where: { id: goal.id } });
    clock.advance(10 * DAY);
    await collectBlobs(t.db, { graceMs: HOUR, retentionDays: 7 }, ctx);
    expect(await row(loose.sha256)).toBeNull();
    expect(await keysOf(loose.sha256)).toEqual([]);
    expect(await row(stepShot.sha256)).toMatchObject({ expiredAt: null });
    expect(await owners(stepShot.sha256)).toEqual([workspace.id]);
    expect((await openBlob(t.db, stepShot.sha256, { workspaceId: workspace.id }, { store })).status).toBe("ok");

    // Once the skill is deleted, nothing references the screenshot: it goes too.
    await deleteSkill(t.db, { workspaceId: workspace.id, skillId: skill.id }, ctx);
    await collectBlobs(t.db, { graceMs: HOUR, retentionDays: 7 }, ctx);
    expect(await row(stepShot.sha256)).toBeNull();
    expect(await keysOf(stepShot.sha256)).toEqual([]);
  });

  it("sweeps bytes no row names once they are older than the grace, page by page", async () => {
    const orphan = `${"0".repeat(64)}-orphan${rid("o").slice(-6)}`;
    await store.put(orphan, shot("orphan"), "image/webp");
    const { workspace } = await seedWorkspace(t.db);
    const named = await putBlob(t.db, { bytes: shot("named"), mime: "image/webp", workspaceId: workspace.id }, { store });
    await collectBlobs(t.db, { graceMs: HOUR }, { store });
    expect(await store.head(orphan)).not.toBeNull();

    const later = { store, clock: manualClock(Date.now() + 2 * HOUR) };
    let sweepAfter: string | undefined;
    let orphans = 0;
    do {
      const r = await collectBlobs(t.db, { graceMs: HOUR, batch: 2, ...(sweepAfter ? { sweepAfter } : {}) }, later);
      orphans += r.orphans;
      sweepAfter = r.sweepAfter;
    } while (sweepAfter);
    expect(orphans).toBeGreaterThanOrEqual(1);
    expect(await store.head(orphan)).toBeNull();
    // A blob its workspace owns but nothing shows goes after the grace too; one still owned within it stays.
    expect(await row(named.sha256)).toBeNull();
  });
});
