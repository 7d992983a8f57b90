// The outbox: deliveries are written once per Event and destination however many readers run at once, claims made
// at the same moment never share a delivery (FOR UPDATE SKIP LOCKED), a failure waits for its backoff and the last
// attempt gives up; push and e-mail go only to members whose role may answer the gate; an endpoint gets only the
// kinds it chose, and only Events after it was made.
import { describe, expect, it } from "vitest";
import { seedGoal, seedMember, seedWorkspace, useTestDatabase } from "../../testing/index.ts";
import { openGate } from "../gate/open-gate.ts";
import { resolveGate } from "../gate/resolve-gate.ts";
import {
  claimDeliveries,
  createWebhookEndpoint,
  enqueueNotifications,
  finishDeliveries,
  MAX_DELIVERY_ATTEMPTS,
  savePushSubscription,
  type NotificationPayload,
} from "./notifications.ts";

const t = useTestDatabase({ poolSize: 8 });

/** Reads the Event stream to its end (e-mail configured or not). */
async function drain(email = true) {
  for (;;) if ((await enqueueNotifications(t.db, { email })).events === 0) return;
}

describe("the notification outbox", () => {
  it("readers at once write each delivery once; claims at once never share one; a failure retries, then gives up", async () => {
    const { workspace } = await seedWorkspace(t.db, "Outbox A");
    await drain(false);
    const ep = await createWebhookEndpoint(t.db, { workspaceId: workspace.id, url: "https://hooks.example.com/a", format: "generic", kinds: ["gate_opened"], secretSealed: "v1.sealed-for-the-test" });
    const goal = await seedGoal(t.db, { workspaceId: workspace.id });
    const gates = await Promise.all(Array.from({ length: 30 }, (_, k) => openGate(t.db, { goalId: goal.id, question: `Tap Pay ${k + 1}.00 USD in the shop?`, options: ["approve", "deny"] })));
    await Promise.all(Array.from({ length: 4 }, () => drain(false)));
    const rows = await t.db.notificationDelivery.findMany({ where: { endpointId: ep.id } });
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => (r.payload as unknown as NotificationPayload).gate!.id))).toEqual(new Set(gates.map((g) => g.gate.id)));

    const claims = await Promise.all(Array.from({ length: 4 }, () => claimDeliveries(t.db, { limit: 10, holdMs: 60_000 })));
    const ids = claims.flat().map((d) => d.id);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    // Held: claimed again, nothing.
    expect(await claimDeliveries(t.db, { limit: 50 })).toHaveLength(0);

    const [first, ...rest] = claims.flat();
    await finishDeliveries(t.db, rest.map((d) => ({ id: d.id, attempts: d.attempts, ok: true, statusCode: 204 })));
    await finishDeliveries(t.db, [{ id: first!.id, attempts: first!.attempts, ok: false, statusCode: 500, error: "answered 500", retryInMs: 3_600_000 }]);
    // Its backoff has not passed: not due.
    expect(await claimDeliveries(t.db, { limit: 50 })).toHaveLength(0);
    // A stale claimer's outcome (an older attempt) changes nothing.
    await finishDeliveries(t.db, [{ id: first!.id, attempts: first!.attempts - 1, ok: true, statusCode: 200 }]);
    expect(await t.db.notificationDelivery.findUniqueOrThrow({ where: { id: first!.id } })).toMatchObject({ status: "pending", lastStatusCode: 500, lastError: "answered 500" });
    // The last attempt gives up.
    await t.db.notificationDelivery.update({ where: { id: first!.id }, data: { nextAttemptAt: new Date(0), attempts: MAX_DELIVERY_ATTEMPTS - 1 } });
    const [again] = await claimDeliveries(t.db, { limit: 50 });
    expect(again).toMatchObject({ id: first!.id, attempts: MAX_DELIVERY_ATTEMPTS });
    await finishDeliveries(t.db, [{ id: again!.id, attempts: again!.attempts, ok: false, statusCode: 500, error: "answered 500", retryInMs: 1 }]);
    expect((await t.db.notificationDelivery.findUniqueOrThrow({ where: { id: first!.id } })).status).toBe("failed");
    expect(await t.db.notificationDelivery.count({ where: { endpointId: ep.id, status: "delivered" } })).toBe(29);
  });

  it("push and e-mail go to the members who may answer; an endpoint gets its kinds, from its making on", async () => {
    const { workspace, admin } = await seedWorkspace(t.db, "Outbox B");
    const [approver, viewer] = await Promise.all([seedMember(t.db, "approver", workspace.id, "Abe"), seedMember(t.db, "viewer", workspace.id, "Vi")]);
    const goal = await seedGoal(t.db, { workspaceId: workspace.id });
    const before = await openGate(t.db, { goalId: goal.id, question: "Tap Pay 5.00 USD in the shop?", options: ["approve", "deny"] });
    await drain();
    const ep = await createWebhookEndpoint(t.db, { workspaceId: workspace.id, url: "https://hooks.example.com/b", format: "slack", kinds: ["gate_answered"], secretSealed: "v1.sealed-for-the-test" });
    for (const m of [approver, viewer]) await savePushSubscription(t.db, { workspaceId: workspace.id, userId: m.userId, endpoint: `https://push.example.com/${m.userId}`, p256dh: "B".repeat(87), auth: "a".repeat(22) });
    const gate = await openGate(t.db, { goalId: goal.id, question: "Tap Pay 9.00 USD in the shop?", options: ["approve", "deny"] });
    await resolveGate(t.db, { gateId: gate.gate.id, userId: approver.userId, decision: "approve", rationale: "on budget" });
    await drain();
    const rows = await t.db.notificationDelivery.findMany({ where: { workspaceId: workspace.id } });
    const of = (gateId: string) => rows.filter((r) => (r.payload as unknown as NotificationPayload).gate?.id === gateId);
    expect(of(gate.gate.id).map((r) => `${r.kind} ${r.destination}`).sort()).toEqual(
      [
        `gate_answered webhook:${ep.id}`,
        `gate_opened email:${admin.email.toLowerCase()}`,
        `gate_opened email:${approver.email.toLowerCase()}`,
        `gate_opened push:${(await t.db.pushSubscription.findFirstOrThrow({ where: { userId: approver.userId } })).id}`,
      ].sort(),
    );
    // The gate opened before the endpoint and the subscriptions: e-mail only (they did not exist).
    expect(of(before.gate.id).every((r) => r.channel === "email")).toBe(true);
    expect((of(gate.gate.id)[0]!.payload as unknown as NotificationPayload).path).toBe(`/gates/${gate.gate.id}`);
  });
});
