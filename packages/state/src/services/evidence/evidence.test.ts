import { describe, expect, it } from "vitest";
import { useTestDatabase, seedClaimed, seedGoal, seedWorkspaceId } from "../../testing/index.ts";
import { type StateError } from "../../domain/errors.ts";
import { appendEvidence } from "./append-evidence.ts";
import { EVIDENCE_KINDS } from "../../domain/vocabulary.ts";
import { EVIDENCE_SAMPLES } from "../../testing/evidence-samples.ts";
import { putBlob } from "../blob/put-blob.ts";
import { getBlob } from "../blob/read-blob.ts";

const t = useTestDatabase();

describe("evidence", () => {
  it("append is idempotent: a repeat (even concurrent) returns the first row and appends no second Event", async () => {
    const goal = await seedGoal(t.db);
    const key = `${goal.id}-obs-1`;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, n) => appendEvidence(t.db, { goalId: goal.id, kind: "observation", summary: `Home screen visible (${n})`, idempotencyKey: key })),
    );
    const ids = new Set(results.map((r) => r.evidence.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const first = results.find((r) => r.created)!.evidence;
    for (const r of results) expect(r.evidence.summary).toBe(first.summary);
    expect(await t.db.evidence.count({ where: { idempotencyKey: key } })).toBe(1);
    expect(await t.db.event.count({ where: { goalId: goal.id, operator: "evidence.append" } })).toBe(1);
  });

  it("accepts every kind (its data as its writers write it; evidence-schemas.test.ts refuses malformed data)", async () => {
    const goal = await seedGoal(t.db);
    for (const kind of EVIDENCE_KINDS) {
      const r = await appendEvidence(t.db, { goalId: goal.id, kind, summary: kind, data: EVIDENCE_SAMPLES[kind][0]!, idempotencyKey: `${goal.id}-${kind}` });
      expect(r.evidence.kind).toBe(kind);
    }
    const bad = await appendEvidence(t.db, { goalId: goal.id, kind: "rumour" as "action", summary: "x", idempotencyKey: "x" }).catch((e: StateError) => e);
    expect((bad as StateError).code).toBe("INVALID_INPUT");
    expect((bad as StateError).message).toContain("kind");
  });

  it("a lease-fenced append from someone who does not hold the lease is rejected", async () => {
    const { goal, todo, claim } = await seedClaimed(t.db);
    const ok = await appendEvidence(t.db, { goalId: goal.id, todoId: todo.id, agentId: claim.lease.ownerId, leaseKey: claim.lease.leaseKey, kind: "action", summary: "tap Book", data: { action: { type: "click", element: "Book" } }, idempotencyKey: `${todo.id}-a1` });
    expect(ok.created).toBe(true);
    const e = await appendEvidence(t.db, { goalId: goal.id, todoId: todo.id, agentId: "agent_other", leaseKey: "stale", kind: "action", summary: "tap", data: { action: { type: "click", x: 500, y: 500 } }, idempotencyKey: `${todo.id}-a2` }).catch((x: StateError) => x);
    expect((e as StateError).code).toBe("CONFLICT");
    expect((e as StateError).details.currentHolder).toBe(claim.lease.ownerId);
  });

  it("blobs are content-addressed by sha256 and putting them again is a no-op", async () => {
    const bytes = new TextEncoder().encode(`screenshot ${Math.random()}`);
    const workspaceId = await seedWorkspaceId(t.db);
    const a = await putBlob(t.db, { bytes, mime: "image/png", workspaceId });
    const b = await putBlob(t.db, { bytes: Buffer.from(bytes), mime: "image/png", workspaceId });
    expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toEqual({ ...a, created: false });
    expect(a.created).toBe(true);
    expect(Buffer.from((await getBlob(t.db, a.sha256, { workspaceId }))!.bytes)).toEqual(Buffer.from(bytes));
    expect(await t.db.event.count({ where: { subjectId: a.sha256 } })).toBe(1);
    const goal = await seedGoal(t.db);
    const ev = await appendEvidence(t.db, { goalId: goal.id, kind: "observation", summary: "screen", blobSha256: a.sha256, idempotencyKey: `${goal.id}-shot` });
    expect(ev.evidence.blobSha256).toBe(a.sha256);
    const missing = await appendEvidence(t.db, { goalId: goal.id, kind: "observation", summary: "screen", blobSha256: "0".repeat(64), idempotencyKey: `${goal.id}-shot2` }).catch((e: StateError) => e);
    expect((missing as StateError).code).toBe("NOT_FOUND");
  });
});
