// Notifications: where a workspace's gates and runs reach people — its webhook endpoints, the Web Push subscriptions
// of members who allowed them, and e-mail — through a durable outbox of deliveries (NotificationDelivery).
//
// The outbox is filled by a reader of the Event stream, not inside the operators' transactions: every operator
// appends its Event through one function and the gate operators change under other hands, so the outbox subscribes
// by operator name (NOTIFIED_OPERATORS) and touches none of them. That is safe because it reads in id order only up to
// the Event stream's horizon (services/event-horizon.ts: no running transaction can still commit an id below it), so
// the cursor (NotificationCursor, advanced in the same transaction as the deliveries it read into) never skips an Event,
// and the unique key (eventId, destination) makes writing a delivery twice impossible, whichever API process reads.
// Deliveries are claimed with FOR UPDATE SKIP LOCKED and held for a while (lockedUntil), so two processes never send
// one at once; a process that died mid-send leaves it to be taken again after the hold.
//
// A notification carries what happened and a link to the gate or run (a path of the web app, which opens after
// sign-in); nothing in it can approve or answer by itself.
import { z } from "zod";
import type { NotificationDelivery, PushSubscription, WebhookEndpoint } from "../../generated/prisma/client.ts";
import { StateError } from "../../domain/errors.ts";
import { parseInput } from "../../domain/input.ts";
import { Id, Text } from "../../domain/schemas.ts";
import { actorOf, appendEvent, inTx, randomId, type DbOrTx, type OperatorContext } from "../operator.ts";
import { advanceEventHorizon } from "../event-horizon.ts";

export const NOTIFICATION_KINDS = ["gate_opened", "gate_answered", "gate_expired", "takeover_asked", "run_ended"] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
export const WEBHOOK_FORMATS = ["generic", "slack", "teams", "feishu", "dingtalk"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** The Event operators that notify, and the kind each one is. An escalation is the gate's time-to-live passing. */
export const NOTIFIED_OPERATORS: Record<string, NotificationKind> = {
  "gate.open": "gate_opened",
  "gate.resolve": "gate_answered",
  "gate.expire": "gate_expired",
  "gate.escalate": "gate_expired",
  "takeover.ask": "takeover_asked",
  "run.finish": "run_ended",
};
/** Push and e-mail go to people who can act: a gate opened, escalated, or a takeover asked for. */
const PEOPLE_KINDS: ReadonlySet<string> = new Set(["gate.open", "gate.escalate", "takeover.ask"]);

/** After this many failed attempts a delivery is given up (status failed). */
export const MAX_DELIVERY_ATTEMPTS = 8;
const CURSOR = "notifications";

/** What every channel's message is made from (the API shapes it per webhook format, push and e-mail). */
export interface NotificationPayload {
  kind: NotificationKind;
  /** The Event's id (a decimal string); null for a test delivery. */
  eventId: string | null;
  workspaceId: string;
  occurredAt: string;
  /** One line a person reads first ("A gate waits for an answer: Pay $21.00 at Shop?"). */
  title: string;
  /** Where it opens in the web app after sign-in, e.g. /gates/gate_…; the API prefixes its web origin. */
  path: string;
  gate?: { id: string; question: string; options: string[]; status: string; category: string; runId: string | null; goalId: string; decision?: string | null; escalated?: boolean; screenshotSha256?: string | null };
  run?: { id: string; goalId: string; status: string; endReason: string | null };
  test?: boolean;
}

// ── webhook endpoints ────────────────────────────────────────────────────────────────────────────────────────

export const CreateWebhookEndpointInput = z.object({
  workspaceId: Id,
  url: Text.trim().min(8).max(2000),
  format: z.enum(WEBHOOK_FORMATS),
  kinds: z.array(z.enum(NOTIFICATION_KINDS)).min(1, "choose at least one kind of notification").max(NOTIFICATION_KINDS.length),
  /** The signing secret as the API sealed it (the core never sees it in the clear). */
  secretSealed: Text.min(16).max(1000),
});
export type CreateWebhookEndpointInput = z.input<typeof CreateWebhookEndpointInput>;

/** An endpoint as people see it: never its secret. */
export type WebhookEndpointView = Omit<WebhookEndpoint, "secretSealed">;
const endpointView = ({ secretSealed: _sealed, ...view }: WebhookEndpoint): WebhookEndpointView => view;

export async function createWebhookEndpoint(db: DbOrTx, raw: CreateWebhookEndpointInput, ctx?: OperatorContext): Promise<WebhookEndpointView> {
  const i = parseInput(CreateWebhookEndpointInput, raw, "notification.createEndpoint");
  return inTx(db, async (tx) => {
    const actor = actorOf(ctx, undefined);
    const row = await tx.webhookEndpoint.create({ data: { id: randomId("whk"), workspaceId: i.workspaceId, url: i.url, format: i.format, kinds: [...new Set(i.kinds)], secretSealed: i.secretSealed, createdBy: actor } });
    await appendEvent(tx, { operator: "notification.createEndpoint", actor, subjectId: row.id, workspaceId: i.workspaceId, payload: { url: row.url, format: row.format, kinds: row.kinds } }, ctx);
    return endpointView(row);
  });
}

export const WebhookEndpointInput = z.object({ workspaceId: Id, endpointId: Id });
export type WebhookEndpointInput = z.input<typeof WebhookEndpointInput>;

export async function deleteWebhookEndpoint(db: DbOrTx, raw: WebhookEndpointInput, ctx?: OperatorContext): Promise<{ deleted: true }> {
  const i = parseInput(WebhookEndpointInput, raw, "notification.deleteEndpoint");
  return inTx(db, async (tx) => {
    const gone = await tx.webhookEndpoint.deleteMany({ where: { id: i.endpointId, workspaceId: i.workspaceId } });
    if (!gone.count) throw new StateError("NOT_FOUND", `Webhook endpoint ${i.endpointId} does not exist in this workspace.`, { endpointId: i.endpointId });
    await appendEvent(tx, { operator: "notification.deleteEndpoint", actor: actorOf(ctx, undefined), subjectId: i.endpointId, workspaceId: i.workspaceId, payload: {} }, ctx);
    return { deleted: true };
  });
}

export async function listWebhookEndpoints(db: DbOrTx, raw: { workspaceId: string }): Promise<WebhookEndpointView[]> {
  const i = parseInput(z.object({ workspaceId: Id }), raw, "notification.listEndpoints");
  const rows = await db.webhookEndpoint.findMany({ where: { workspaceId: i.workspaceId }, orderBy: { createdAt: "asc" } });
  return rows.map(endpointView);
}

/** The sealed secrets of endpoints, by id (the API's dispatcher only, to sign). */
export async function webhookEndpointSecrets(db: DbOrTx, endpointIds: string[]): Promise<Map<string, { url: string; format: WebhookFormat; secretSealed: string }>> {
  const rows = await db.webhookEndpoint.findMany({ where: { id: { in: endpointIds } }, select: { id: true, url: true, format: true, secretSealed: true } });
  return new Map(rows.map((r) => [r.id, { url: r.url, format: r.format as WebhookFormat, secretSealed: r.secretSealed }]));
}

/** A test delivery to one endpoint ("send test"): it goes through the outbox like any other. */
export async function enqueueTestDelivery(db: DbOrTx, raw: WebhookEndpointInput, ctx?: OperatorContext): Promise<NotificationDelivery> {
  const i = parseInput(WebhookEndpointInput, raw, "notification.sendTest");
  return inTx(db, async (tx) => {
    const ep = await tx.webhookEndpoint.findFirst({ where: { id: i.endpointId, workspaceId: i.workspaceId } });
    if (!ep) throw new StateError("NOT_FOUND", `Webhook endpoint ${i.endpointId} does not exist in this workspace.`, { endpointId: i.endpointId });
    const payload: NotificationPayload = { kind: "gate_opened", eventId: null, workspaceId: i.workspaceId, occurredAt: new Date().toISOString(), title: "A test notification from PhoneLoop: this endpoint is reached.", path: "/settings/notifications", test: true };
    const row = await tx.notificationDelivery.create({ data: { id: randomId("dlv"), workspaceId: i.workspaceId, eventId: null, channel: "webhook", destination: `webhook:${ep.id}`, endpointId: ep.id, kind: payload.kind, payload: payload as object } });
    await appendEvent(tx, { operator: "notification.sendTest", actor: actorOf(ctx, undefined), subjectId: ep.id, workspaceId: i.workspaceId, payload: { deliveryId: row.id } }, ctx);
    return row;
  });
}

// ── Web Push subscriptions ───────────────────────────────────────────────────────────────────────────────────

export const SavePushSubscriptionInput = z.object({
  workspaceId: Id,
  userId: Id,
  endpoint: z.string().url().max(2000),
  p256dh: z.string().min(16).max(200),
  auth: z.string().min(8).max(100),
});
export type SavePushSubscriptionInput = z.input<typeof SavePushSubscriptionInput>;

/** "Notify me on this device": the browser's subscription, kept for this member (saving it again renews it). */
export async function savePushSubscription(db: DbOrTx, raw: SavePushSubscriptionInput, ctx?: OperatorContext): Promise<Pick<PushSubscription, "id" | "endpoint" | "createdAt">> {
  const i = parseInput(SavePushSubscriptionInput, raw, "notification.subscribePush");
  return inTx(db, async (tx) => {
    const row = await tx.pushSubscription.upsert({
      where: { workspaceId_endpoint: { workspaceId: i.workspaceId, endpoint: i.endpoint } },
      create: { id: randomId("push"), workspaceId: i.workspaceId, userId: i.userId, endpoint: i.endpoint, p256dh: i.p256dh, auth: i.auth },
      update: { userId: i.userId, p256dh: i.p256dh, auth: i.auth },
    });
    await appendEvent(tx, { operator: "notification.subscribePush", actor: actorOf(ctx, i.userId), subjectId: row.id, workspaceId: i.workspaceId, payload: {} }, ctx);
    return { id: row.id, endpoint: row.endpoint, createdAt: row.createdAt };
  });
}

export async function removePushSubscription(db: DbOrTx, raw: { workspaceId: string; userId: string; endpoint: string }, ctx?: OperatorContext): Promise<{ removed: number }> {
  const i = parseInput(z.object({ workspaceId: Id, userId: Id, endpoint: z.string().max(2000) }), raw, "notification.unsubscribePush");
  return inTx(db, async (tx) => {
    const rows = await tx.pushSubscription.findMany({ where: { workspaceId: i.workspaceId, userId: i.userId, endpoint: i.endpoint }, select: { id: true } });
    if (!rows.length) return { removed: 0 };
    await tx.pushSubscription.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
    await appendEvent(tx, { operator: "notification.unsubscribePush", actor: actorOf(ctx, i.userId), subjectId: rows[0]!.id, workspaceId: i.workspaceId, payload: {} }, ctx);
    return { removed: rows.length };
  });
}

/** Whether this member has a subscription at `endpoint` (the toggle's state on this device). */
export async function hasPushSubscription(db: DbOrTx, raw: { workspaceId: string; userId: string; endpoint: string }): Promise<boolean> {
  return (await db.pushSubscription.count({ where: { workspaceId: raw.workspaceId, userId: raw.userId, endpoint: raw.endpoint } })) > 0;
}

export async function pushSubscriptionsByIds(db: DbOrTx, ids: string[]): Promise<Map<string, PushSubscription>> {
  const rows = await db.pushSubscription.findMany({ where: { id: { in: ids } } });
  return new Map(rows.map((r) => [r.id, r]));
}

// ── the outbox ───────────────────────────────────────────────────────────────────────────────────────────────

export interface EnqueueNotificationsInput {
  /** How many Events one pass reads at most. */
  limit?: number;
  /** Whether e-mail is configured (SMTP): without it no e-mail delivery is written. */
  email?: boolean;
}

type EventRow = { id: bigint; workspaceId: string | null; operator: string; subjectId: string; payload: Record<string, unknown>; createdAt: Date };

/**
 * Reads the Events after the cursor and writes one delivery per Event and destination: each webhook endpoint of
 * the Event's workspace that chose its kind; for a gate opened or escalated, or a takeover asked, each push
 * subscription and (with e-mail) the address of each member whose role may answer it. The cursor moves in the same
 * transaction. A pass another process is making is not waited for (its cursor row is skipped): that one reads.
 */
export async function enqueueNotifications(db: DbOrTx, raw: EnqueueNotificationsInput = {}): Promise<{ events: number; deliveries: number }> {
  const limit = raw.limit ?? 500;
  // Only Events below the horizon: a running transaction may still commit an id between those already read.
  const upTo = await advanceEventHorizon(db);
  return inTx(db, async (tx) => {
    const cursor = await tx.$queryRaw<{ eventId: bigint }[]>`SELECT "eventId" FROM "NotificationCursor" WHERE "name" = ${CURSOR} FOR UPDATE SKIP LOCKED`;
    if (!cursor[0]) return { events: 0, deliveries: 0 };
    const events = await tx.$queryRaw<EventRow[]>`
      SELECT "id", "workspaceId", "operator", "subjectId", "payload", "createdAt" FROM "Event"
      WHERE "id" > ${cursor[0].eventId} AND "id" <= ${upTo} ORDER BY "id" LIMIT ${limit}`;
    if (!events.length) return { events: 0, deliveries: 0 };
    const last = events[events.length - 1]!.id;
    const notified = events.filter((e) => e.workspaceId && NOTIFIED_OPERATORS[e.operator]);
    let deliveries = 0;
    if (notified.length) {
      const rows = await deliveriesFor(tx, notified, raw.email ?? false);
      if (rows.length) deliveries = (await tx.notificationDelivery.createMany({ data: rows, skipDuplicates: true })).count;
    }
    await tx.$executeRaw`UPDATE "NotificationCursor" SET "eventId" = ${last} WHERE "name" = ${CURSOR}`;
    return { events: events.length, deliveries };
  });
}

async function deliveriesFor(tx: DbOrTx, events: EventRow[], email: boolean) {
  const workspaceIds = [...new Set(events.map((e) => e.workspaceId!))];
  const gateIds = events.filter((e) => e.operator.startsWith("gate.")).map((e) => e.subjectId);
  const runIds = events.filter((e) => e.operator === "run.finish").map((e) => e.subjectId);
  const [endpoints, subscriptions, gates, runs] = await Promise.all([
    tx.webhookEndpoint.findMany({ where: { workspaceId: { in: workspaceIds } }, select: { id: true, workspaceId: true, kinds: true, createdAt: true } }),
    tx.pushSubscription.findMany({ where: { workspaceId: { in: workspaceIds } }, select: { id: true, workspaceId: true, userId: true } }),
    gateIds.length ? tx.gate.findMany({ where: { id: { in: gateIds } } }) : Promise.resolve([]),
    runIds.length ? tx.run.findMany({ where: { id: { in: runIds } }, select: { id: true, goalId: true, status: true, endReason: true } }) : Promise.resolve([]),
  ]);
  const members = await tx.$queryRaw<{ workspaceId: string; userId: string; role: string; email: string }[]>`
    SELECT m."workspaceId", m."userId", m."role"::text AS "role", u."email" FROM "Membership" m JOIN "user" u ON u."id" = m."userId"
    WHERE m."workspaceId" = ANY(${workspaceIds})`;
  const evidenceIds = gates.flatMap((g) => g.evidenceIds);
  const shots = evidenceIds.length
    ? await tx.evidence.findMany({ where: { id: { in: evidenceIds }, blobSha256: { not: null } }, select: { id: true, blobSha256: true } })
    : [];
  const shotOf = new Map(shots.map((s) => [s.id, s.blobSha256]));
  const gateById = new Map(gates.map((g) => [g.id, g]));
  const runById = new Map(runs.map((r) => [r.id, r]));

  const out: Array<{ id: string; workspaceId: string; eventId: bigint; channel: string; destination: string; endpointId?: string; pushSubscriptionId?: string; kind: string; payload: object }> = [];
  for (const e of events) {
    // A takeover's gate.open tells nobody: the agent's ask is told by its takeover.ask, and a person who took over
    // unasked is at the phone already.
    if (e.operator === "gate.open" && gateById.get(e.subjectId)?.kind === "takeover") continue;
    const kind = NOTIFIED_OPERATORS[e.operator]!;
    const payload = payloadOf(e, kind, gateById, runById, shotOf);
    if (!payload) continue;
    const base = { workspaceId: e.workspaceId!, eventId: e.id, kind, payload: payload as unknown as object };
    for (const ep of endpoints) {
      if (ep.workspaceId !== e.workspaceId || !ep.kinds.includes(kind) || ep.createdAt > e.createdAt) continue;
      out.push({ ...base, id: randomId("dlv"), channel: "webhook", destination: `webhook:${ep.id}`, endpointId: ep.id });
    }
    if (!PEOPLE_KINDS.has(e.operator)) continue;
    // Who may answer: the gate's own roles (an escalated gate: admins only); a takeover, the approvers and admins.
    const roles = gateById.get(e.subjectId)?.answerRoles ?? ["approver", "admin"];
    const mayAct = new Set(members.filter((m) => m.workspaceId === e.workspaceId && roles.includes(m.role as never)).map((m) => m.userId));
    for (const s of subscriptions) {
      if (s.workspaceId !== e.workspaceId || !mayAct.has(s.userId)) continue;
      out.push({ ...base, id: randomId("dlv"), channel: "push", destination: `push:${s.id}`, pushSubscriptionId: s.id });
    }
    if (!email) continue;
    for (const m of members) {
      if (m.workspaceId !== e.workspaceId || !mayAct.has(m.userId)) continue;
      out.push({ ...base, id: randomId("dlv"), channel: "email", destination: `email:${m.email.toLowerCase()}` });
    }
  }
  return out;
}

function payloadOf(
  e: EventRow,
  kind: NotificationKind,
  gates: Map<string, { id: string; goalId: string; runId: string | null; question: string; options: string[]; status: string; category: string; evidenceIds: string[] }>,
  runs: Map<string, { id: string; goalId: string; status: string; endReason: string | null }>,
  shots: Map<string, string | null>,
): NotificationPayload | null {
  const base = { kind, eventId: e.id.toString(), workspaceId: e.workspaceId!, occurredAt: e.createdAt.toISOString() };
  if (e.operator === "run.finish") {
    const run = runs.get(e.subjectId);
    if (!run) return null;
    return { ...base, title: `A run ended: ${run.status}${run.endReason ? ` (${run.endReason})` : ""}.`, path: `/runs/${run.id}`, run };
  }
  if (e.operator === "takeover.ask") {
    const question = typeof e.payload.question === "string" ? e.payload.question : "The agent asks a person to take over the phone.";
    const runId = typeof e.payload.runId === "string" ? e.payload.runId : e.subjectId;
    return { ...base, title: `The agent asks for a takeover: ${question}`, path: `/runs/${runId}` };
  }
  const g = gates.get(e.subjectId);
  if (!g) return null;
  const screenshot = g.evidenceIds.map((id) => shots.get(id)).find(Boolean) ?? null;
  const decision = typeof e.payload.decision === "string" ? e.payload.decision : null;
  const escalated = e.operator === "gate.escalate";
  const title =
    kind === "gate_opened" ? `A gate waits for an answer: ${g.question}`
    : kind === "gate_answered" ? `A gate was answered (${decision ?? g.status}): ${g.question}`
    : escalated ? `A gate's time ran out and it waits for an admin: ${g.question}`
    : `A gate expired unanswered: ${g.question}`;
  return {
    ...base,
    title,
    path: `/gates/${g.id}`,
    gate: { id: g.id, question: g.question, options: g.options, status: g.status, category: g.category, runId: g.runId, goalId: g.goalId, decision, escalated, screenshotSha256: screenshot },
  };
}

export interface ClaimDeliveriesInput {
  limit?: number;
  /** How long the claimer holds them while sending (another process may take one after). */
  holdMs?: number;
}

/** The deliveries due now, claimed FOR UPDATE SKIP LOCKED and held for holdMs: each counts one more attempt. */
export async function claimDeliveries(db: DbOrTx, raw: ClaimDeliveriesInput = {}): Promise<NotificationDelivery[]> {
  const limit = raw.limit ?? 50;
  const holdMs = raw.holdMs ?? 60_000;
  return db.$queryRaw<NotificationDelivery[]>`
    UPDATE "NotificationDelivery" d SET "attempts" = d."attempts" + 1, "lockedUntil" = now() + (${holdMs}::int * interval '1 millisecond')
    WHERE d."id" IN (
      SELECT "id" FROM "NotificationDelivery"
      WHERE "status" = 'pending' AND "nextAttemptAt" <= now() AND ("lockedUntil" IS NULL OR "lockedUntil" < now())
      ORDER BY "nextAttemptAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING d.*`;
}

export interface FinishDeliveryInput {
  id: string;
  /** The attempt this claim counted (a stale claimer's answer, after another took it over, changes nothing). */
  attempts: number;
  ok: boolean;
  statusCode?: number | null;
  error?: string | null;
  /** When it failed: the wait before the next attempt (retryDelayMs); ignored after the last attempt. */
  retryInMs?: number;
}

/** The exponential backoff: base · 2^(attempt-1), at most an hour. */
export function retryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
}

/** Records the outcomes of claimed deliveries in one statement: delivered, pending again after its wait, or failed. */
export async function finishDeliveries(db: DbOrTx, outcomes: FinishDeliveryInput[]): Promise<void> {
  if (!outcomes.length) return;
  const ids = outcomes.map((o) => o.id);
  const attempts = outcomes.map((o) => o.attempts);
  const oks = outcomes.map((o) => o.ok);
  const codes = outcomes.map((o) => o.statusCode ?? null);
  const errors = outcomes.map((o) => (o.ok || !o.error ? null : o.error.slice(0, 500)));
  const waits = outcomes.map((o) => o.retryInMs ?? 0);
  await db.$executeRaw`
    UPDATE "NotificationDelivery" d SET
      "status" = CASE WHEN o.ok THEN 'delivered' WHEN d."attempts" >= ${MAX_DELIVERY_ATTEMPTS} THEN 'failed' ELSE 'pending' END,
      "deliveredAt" = CASE WHEN o.ok THEN now() ELSE NULL END,
      "lockedUntil" = NULL,
      "lastStatusCode" = o.code,
      "lastError" = o.error,
      "nextAttemptAt" = CASE WHEN o.ok THEN d."nextAttemptAt" ELSE now() + (o.wait * interval '1 millisecond') END
    FROM unnest(${ids}::text[], ${attempts}::int[], ${oks}::boolean[], ${codes}::int[], ${errors}::text[], ${waits}::int[]) AS o(id, attempts, ok, code, error, wait)
    WHERE d."id" = o.id AND d."attempts" = o.attempts AND d."status" = 'pending'`;
}

export type DeliveryView = Pick<NotificationDelivery, "id" | "channel" | "destination" | "endpointId" | "kind" | "status" | "attempts" | "lastStatusCode" | "lastError" | "createdAt" | "deliveredAt" | "nextAttemptAt"> & { eventId: string | null; title: string };

/** The workspace's newest deliveries (the delivery log), optionally of one endpoint; e-mail addresses shown as they are sent to. */
export async function listDeliveries(db: DbOrTx, raw: { workspaceId: string; endpointId?: string; limit?: number }): Promise<DeliveryView[]> {
  const i = parseInput(z.object({ workspaceId: Id, endpointId: Id.optional(), limit: z.number().int().min(1).max(200).default(50) }), raw, "notification.deliveries");
  const rows = await db.notificationDelivery.findMany({ where: { workspaceId: i.workspaceId, ...(i.endpointId ? { endpointId: i.endpointId } : {}) }, orderBy: { createdAt: "desc" }, take: i.limit });
  return rows.map((r) => ({
    id: r.id,
    eventId: r.eventId === null ? null : r.eventId.toString(),
    channel: r.channel,
    destination: r.destination,
    endpointId: r.endpointId,
    kind: r.kind,
    status: r.status,
    attempts: r.attempts,
    lastStatusCode: r.lastStatusCode,
    lastError: r.lastError,
    createdAt: r.createdAt,
    deliveredAt: r.deliveredAt,
    nextAttemptAt: r.nextAttemptAt,
    title: (r.payload as unknown as NotificationPayload).title,
  }));
}
