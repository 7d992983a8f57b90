// Event retention through the API: the collector's pass prunes the Events older than EVENT_RETENTION_DAYS, and a
// stream resumed from a cursor below what was pruned gets a typed answer (PRECONDITION_FAILED, reason events_pruned)
// that says to reload, instead of a silent gap; a cursor above it resumes as before.
import { beforeAll, describe, expect, it } from "vitest";
import { TRPCClientError } from "@trpc/client";
import { createApiClient } from "@phoneloop/client";
import { pruneEvents } from "@phoneloop/state";
import { useTestDatabase } from "@phoneloop/state/testing";
import { agentTokenHeaders, signUpMember } from "./auth/testing.ts";
import type { StreamedEvent } from "./events.ts";
import { useApiServer } from "./use-api-server.ts";

const t = useTestDatabase();
const api = useApiServer(t, { blobs: { collector: { intervalMs: 3_600_000, graceMs: 3_600_000, eventRetentionDays: 7 } } });
let workspaceId: string;
let token: string;

beforeAll(async () => {
  const admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  workspaceId = admin.workspaceId;
  token = (await agentTokenHeaders(t.db, { workspaceId, issuedBy: admin.userId })).token;
});

async function eventAt(daysAgo: number): Promise<string> {
  const at = new Date(Date.now() - daysAgo * 24 * 3_600_000);
  return (await t.db.event.create({ data: { workspaceId, operator: "test.touch", actor: "test", subjectId: "s", createdAt: at } })).id.toString();
}
const readAll = async () => {
  const max = (await t.db.$queryRaw<{ max: bigint }[]>`SELECT max(id) AS max FROM "Event"`)[0]!.max;
  await t.db.$executeRaw`UPDATE "NotificationCursor" SET "eventId" = ${max} WHERE "name" = 'notifications'`;
};

/** The first event or the error a stream resumed after `lastEventId` answers. */
function resume(lastEventId: string): Promise<{ event: StreamedEvent } | { error: unknown }> {
  const client = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
  return new Promise((resolve) => {
    const sub = client.event.stream.subscribe(
      { lastEventId },
      {
        onData: ({ data }) => (sub.unsubscribe(), resolve({ event: data })),
        onError: (error) => (sub.unsubscribe(), resolve({ error })),
      },
    );
  });
}

describe("event retention", () => {
  it("the collector prunes old Events; a resume from below them is told to reload, one from above resumes", async () => {
    const first = await eventAt(30);
    const second = await eventAt(20);
    const young = await eventAt(1);
    await readAll();
    const r = await api.blobCollector!.tick();
    expect(r.eventsPruned).toBeGreaterThanOrEqual(2);
    expect(await t.db.event.count({ where: { id: { in: [BigInt(first), BigInt(second)] } } })).toBe(0);

    const below = await resume(first);
    expect("error" in below).toBe(true);
    const e = (below as { error: unknown }).error;
    expect(e).toBeInstanceOf(TRPCClientError);
    const data = (e as TRPCClientError<never>).data as unknown as { code: string; details: { reason: string; prunedThrough: string } };
    expect(data.code).toBe("PRECONDITION_FAILED");
    expect(data.details).toMatchObject({ reason: "events_pruned", prunedThrough: second });
    expect((e as Error).message).toContain("reload");

    // From the last pruned id on, nothing is missing: the stream resumes with the young Event.
    const above = await resume(second);
    expect(above).toMatchObject({ event: { id: young } });
  });

  it("a pass with nothing old prunes nothing", async () => {
    await eventAt(0);
    await readAll();
    expect((await pruneEvents(t.db, { retentionDays: 7 })).pruned).toBe(0);
  });
});
