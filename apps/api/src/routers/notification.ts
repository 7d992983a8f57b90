// Notifications on Settings → Notifications: the workspace's webhook endpoints (admins; the signing secret is
// answered once, when the endpoint is made, and never again), their delivery log and a test send, and each
// member's "notify me on this device" (Web Push: the browser's subscription; the API gives out only VAPID's public
// key). The sending is the dispatcher's (notifications/dispatcher.ts), from the core's outbox.
import { randomBytes } from "node:crypto";
import type { TRPCRouterRecord } from "@trpc/server";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import {
  createWebhookEndpoint,
  CreateWebhookEndpointInput,
  deleteWebhookEndpoint,
  enqueueTestDelivery,
  hasPushSubscription,
  listDeliveries,
  listWebhookEndpoints,
  removePushSubscription,
  savePushSubscription,
  SavePushSubscriptionInput,
} from "@phoneloop/state";
import { deriveKey, sealSecret } from "../auth/secret-key.ts";
import { targetUrlProblem } from "../notifications/targets.ts";
import { procedure } from "../trpc.ts";

export interface NotificationServices {
  /** PHONELOOP_SECRET_KEY: webhook secrets are sealed under a key derived from it. */
  secretKey: string;
  /** NOTIFY_ALLOW_PRIVATE_TARGETS. */
  allowPrivateTargets: boolean;
  /** VAPID's public key (null: Web Push is not configured). */
  vapidPublicKey: string | null;
  /** Whether SMTP is configured. */
  emailEnabled: boolean;
}

const Endpoint = z.object({ endpointId: z.string().min(1).max(200) });

export const notificationRouter = {
  /** What this installation can send: Web Push (with VAPID's public key) and e-mail. */
  channels: procedure(z.object({}).default({})).query(({ ctx }) => ({
    webPush: ctx.notifications.vapidPublicKey !== null,
    vapidPublicKey: ctx.notifications.vapidPublicKey,
    email: ctx.notifications.emailEnabled,
  })),
  endpoints: procedure(z.object({}).default({})).query(({ ctx }) => listWebhookEndpoints(ctx.db, { workspaceId: ctx.workspaceId })),
  /** Makes an endpoint and answers its signing secret: the only time it is shown. */
  createEndpoint: procedure(CreateWebhookEndpointInput.omit({ workspaceId: true, secretSealed: true })).mutation(async ({ ctx, input }) => {
    const problem = targetUrlProblem(input.url, ctx.notifications.allowPrivateTargets);
    if (problem) throw new TRPCError({ code: "BAD_REQUEST", message: `url: ${problem}` });
    const secret = `whsec_${randomBytes(32).toString("base64url")}`;
    const secretSealed = sealSecret(deriveKey(ctx.notifications.secretKey, "webhook-secrets"), secret);
    const endpoint = await createWebhookEndpoint(ctx.db, { ...input, workspaceId: ctx.workspaceId, secretSealed }, { actor: ctx.actor });
    return { endpoint, secret };
  }),
  deleteEndpoint: procedure(Endpoint).mutation(({ ctx, input }) => deleteWebhookEndpoint(ctx.db, { workspaceId: ctx.workspaceId, endpointId: input.endpointId }, { actor: ctx.actor })),
  /** Queues a test delivery to the endpoint; the delivery log shows how it went. */
  sendTest: procedure(Endpoint).mutation(async ({ ctx, input }) => {
    const d = await enqueueTestDelivery(ctx.db, { workspaceId: ctx.workspaceId, endpointId: input.endpointId }, { actor: ctx.actor });
    return { deliveryId: d.id };
  }),
  /** The newest deliveries (status, attempts, last response code), of one endpoint or all. */
  deliveries: procedure(z.object({ endpointId: z.string().min(1).max(200).optional(), limit: z.number().int().min(1).max(200).optional() }).default({})).query(({ ctx, input }) =>
    listDeliveries(ctx.db, { workspaceId: ctx.workspaceId, ...input }),
  ),
  /** "Notify me on this device": the browser's push subscription, for the calling member. */
  subscribePush: procedure(SavePushSubscriptionInput.omit({ workspaceId: true, userId: true })).mutation(async ({ ctx, input }) => {
    if (!ctx.notifications.vapidPublicKey) throw new TRPCError({ code: "PRECONDITION_FAILED", message: "Web Push is not configured on this installation (VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY); `npm start` makes them in .data." });
    const problem = targetUrlProblem(input.endpoint, ctx.notifications.allowPrivateTargets);
    if (problem) throw new TRPCError({ code: "BAD_REQUEST", message: `endpoint: ${problem}` });
    return savePushSubscription(ctx.db, { ...input, workspaceId: ctx.workspaceId, userId: ctx.actor }, { actor: ctx.actor });
  }),
  unsubscribePush: procedure(z.object({ endpoint: z.string().max(2000) })).mutation(({ ctx, input }) =>
    removePushSubscription(ctx.db, { workspaceId: ctx.workspaceId, userId: ctx.actor, endpoint: input.endpoint }, { actor: ctx.actor }),
  ),
  pushStatus: procedure(z.object({ endpoint: z.string().max(2000) })).query(async ({ ctx, input }) => ({
    subscribed: await hasPushSubscription(ctx.db, { workspaceId: ctx.workspaceId, userId: ctx.actor, endpoint: input.endpoint }),
  })),
} satisfies TRPCRouterRecord;
