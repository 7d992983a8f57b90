// The API's notification dispatcher: fills the core's outbox from the Event stream (enqueueNotifications), claims
// the deliveries that are due (claimDeliveries: FOR UPDATE SKIP LOCKED, so several API processes never send one at
// once) and sends each — a signed webhook POST, an encrypted Web Push message, an e-mail over SMTP — then records a
// batch's outcomes in one statement (finishDeliveries): delivered on a 2xx, else again after an exponential backoff,
// failed after the last attempt. It wakes on every notifying Event this process hears (LISTEN) and polls every
// pollMs besides, so another process's Events and the retries that fell due are sent too. A process that dies
// mid-send leaves its claims to be taken again after their hold: delivery is at least once, and each carries its
// delivery id (X-PhoneLoop-Delivery) for a receiver to drop a repeat.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import nodemailer from "nodemailer";
import pLimit from "p-limit";
import webpush from "web-push";
import {
  claimDeliveries,
  enqueueNotifications,
  finishDeliveries,
  type FinishDeliveryInput,
  NOTIFIED_OPERATORS,
  pushSubscriptionsByIds,
  retryDelayMs,
  webhookEndpointSecrets,
  type Db,
  type NotificationDelivery,
  type NotificationPayload,
} from "@phoneloop/state";
import type { EventHub } from "../events.ts";
import { startPeriodicPass } from "../periodic-pass.ts";
import { deriveKey, openSecret } from "../auth/secret-key.ts";
import { DELIVERY_HEADER, emailMessage, KIND_HEADER, pushMessage, SIGNATURE_HEADER, signatureOf, webhookBody } from "./formats.ts";
import { guardedLookup } from "./targets.ts";

export interface SmtpConfig {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user?: string;
  password?: string;
  from: string;
}

export interface VapidConfig {
  publicKey: string;
  privateKey: string;
  /** A mailto: or https: contact the push services may use (VAPID's "sub"). */
  subject: string;
}

export interface NotificationConfig {
  /** Where links open (WEB_ORIGIN's first). */
  webOrigin: string;
  /** Send to loopback and private addresses too (NOTIFY_ALLOW_PRIVATE_TARGETS): tests, the benchmark, a closed network. */
  allowPrivateTargets: boolean;
  /** How often the dispatcher looks for due deliveries besides being woken by Events (NOTIFY_POLL_MS). */
  pollMs: number;
  /** The first retry's wait; each next one doubles (NOTIFY_RETRY_BASE_MS). */
  retryBaseMs: number;
  /** How long one send may take before it counts as failed (NOTIFY_TIMEOUT_MS). */
  timeoutMs: number;
  smtp: SmtpConfig | null;
  vapid: VapidConfig | null;
}

export const DEFAULT_NOTIFICATION_CONFIG: Omit<NotificationConfig, "webOrigin"> = {
  allowPrivateTargets: false,
  pollMs: 1_000,
  retryBaseMs: 5_000,
  timeoutMs: 10_000,
  smtp: null,
  vapid: null,
};

export interface NotificationDispatcher {
  /** One pass now: read new Events into deliveries, send what is due. */
  tick(): Promise<{ sent: number }>;
  close(): Promise<void>;
}

interface Outcome {
  ok: boolean;
  statusCode?: number | null;
  error?: string | null;
}

const CLAIM = 50;

export function startNotificationDispatcher(db: Db, init: { events: EventHub | null; secretKey: string; apiOrigin: string; config: NotificationConfig; onLog?: (line: string) => void }): NotificationDispatcher {
  const cfg = init.config;
  const log = init.onLog ?? (() => {});
  const sealKey = deriveKey(init.secretKey, "webhook-secrets");
  const links = { webOrigin: cfg.webOrigin, apiOrigin: init.apiOrigin };
  const lookup = guardedLookup(cfg.allowPrivateTargets);
  const mailer = cfg.smtp
    ? nodemailer.createTransport({
        host: cfg.smtp.host,
        port: cfg.smtp.port,
        secure: cfg.smtp.secure,
        ...(cfg.smtp.user ? { auth: { user: cfg.smtp.user, pass: cfg.smtp.password ?? "" } } : {}),
        connectionTimeout: cfg.timeoutMs,
        greetingTimeout: cfg.timeoutMs,
        socketTimeout: cfg.timeoutMs,
      })
    : null;
  const sending = pLimit(32);

  /** One POST with a plain timer for its deadline (cleared when the answer ended); the answer's body is drained. */
  const post = (url: string, headers: Record<string, string>, body: Buffer | string): Promise<Outcome> =>
    new Promise((resolve) => {
      let settled = false;
      const done = (o: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(o);
      };
      const target = new URL(url);
      const send = target.protocol === "https:" ? httpsRequest : httpRequest;
      const req = send(target, { method: "POST", headers: { ...headers, "content-length": String(Buffer.byteLength(body)) }, lookup }, (res: IncomingMessage) => {
        res.resume();
        res.on("end", () => {
          const code = res.statusCode ?? 0;
          done({ ok: code >= 200 && code < 300, statusCode: code, error: code >= 200 && code < 300 ? null : `answered ${code}` });
        });
        res.on("error", (e) => done({ ok: false, statusCode: res.statusCode ?? null, error: e.message }));
      });
      const timer = setTimeout(() => {
        req.destroy();
        done({ ok: false, error: `no answer within ${cfg.timeoutMs} ms` });
      }, cfg.timeoutMs);
      req.on("error", (e: Error & { code?: string }) => done({ ok: false, error: e.code === "PRIVATE_TARGET" ? e.message : `${e.code ?? e.name}: ${e.message}` }));
      req.end(body);
    });

  const sendWebhook = async (d: NotificationDelivery, endpoints: Awaited<ReturnType<typeof webhookEndpointSecrets>>): Promise<Outcome> => {
    const ep = d.endpointId ? endpoints.get(d.endpointId) : undefined;
    if (!ep) return { ok: false, error: "the endpoint was deleted" };
    const body = JSON.stringify(webhookBody(ep.format, d.id, d.payload as unknown as NotificationPayload, links));
    const secret = openSecret(sealKey, ep.secretSealed, "webhook secret");
    return post(ep.url, {
      "content-type": "application/json",
      "user-agent": "PhoneLoop-Webhooks/1",
      [SIGNATURE_HEADER]: signatureOf(secret, body, Math.floor(Date.now() / 1000)),
      [DELIVERY_HEADER]: d.id,
      [KIND_HEADER]: d.kind,
    }, body);
  };

  const sendPush = async (d: NotificationDelivery, subs: Awaited<ReturnType<typeof pushSubscriptionsByIds>>): Promise<Outcome> => {
    if (!cfg.vapid) return { ok: false, error: "Web Push is not configured on the API (VAPID keys)" };
    const s = d.pushSubscriptionId ? subs.get(d.pushSubscriptionId) : undefined;
    if (!s) return { ok: false, error: "the subscription was removed" };
    const message = JSON.stringify(pushMessage(d.id, d.payload as unknown as NotificationPayload, links));
    const details = webpush.generateRequestDetails({ endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } }, message, {
      vapidDetails: cfg.vapid,
      contentEncoding: "aes128gcm",
      TTL: 3600,
      urgency: "high",
    });
    return post(details.endpoint, details.headers as Record<string, string>, details.body);
  };

  const sendEmail = async (d: NotificationDelivery): Promise<Outcome> => {
    if (!mailer || !cfg.smtp) return { ok: false, error: "e-mail is not configured on the API (SMTP_HOST)" };
    const to = d.destination.slice("email:".length);
    const m = emailMessage(d.payload as unknown as NotificationPayload, links);
    try {
      const info = await mailer.sendMail({ from: cfg.smtp.from, to, subject: m.subject, text: m.text, html: m.html });
      return { ok: info.rejected.length === 0, statusCode: 250, error: info.rejected.length ? `refused by the server: ${info.response}` : null };
    } catch (e) {
      const err = e as Error & { responseCode?: number; code?: string };
      return { ok: false, statusCode: err.responseCode ?? null, error: `${err.code ?? err.name}: ${err.message}` };
    }
  };

  const pass = async (): Promise<{ sent: number }> => {
    let sent = 0;
    for (;;) {
      for (;;) {
        const read = await enqueueNotifications(db, { email: Boolean(mailer) });
        if (read.events < 500) break;
      }
      const claimed = await claimDeliveries(db, { limit: CLAIM, holdMs: cfg.timeoutMs * 3 });
      if (!claimed.length) return { sent };
      const endpoints = await webhookEndpointSecrets(db, [...new Set(claimed.flatMap((d) => (d.endpointId ? [d.endpointId] : [])))]);
      const subs = await pushSubscriptionsByIds(db, [...new Set(claimed.flatMap((d) => (d.pushSubscriptionId ? [d.pushSubscriptionId] : [])))]);
      const outcomes: FinishDeliveryInput[] = [];
      await Promise.all(
        claimed.map((d) =>
          sending(async () => {
            const outcome: Outcome = await (d.channel === "webhook" ? sendWebhook(d, endpoints) : d.channel === "push" ? sendPush(d, subs) : sendEmail(d)).catch((e: unknown) => ({
              ok: false,
              error: e instanceof Error ? e.message : String(e),
            }));
            outcomes.push({ id: d.id, attempts: d.attempts, ok: outcome.ok, statusCode: outcome.statusCode ?? null, error: outcome.error ?? null, retryInMs: retryDelayMs(d.attempts, cfg.retryBaseMs) });
            if (outcome.ok) sent += 1;
            else log(`notifications: delivery ${d.id} (${d.channel}, attempt ${d.attempts}) failed: ${outcome.error ?? "unknown"}`);
          }),
        ),
      );
      await finishDeliveries(db, outcomes);
      if (claimed.length < CLAIM) return { sent };
    }
  };

  // Woken by this process's Events: at most one pass waits at a time, and a waiting pass, once it starts, reads every
  // Event committed before it.
  let queued = false;
  const run = () => {
    queued = false;
    return pass();
  };
  const periodic = startPeriodicPass("notifications", cfg.pollMs, run, log);
  const wake = () => {
    if (queued) return;
    queued = true;
    periodic.tick().catch((e: unknown) => log(`notifications: pass failed (${e instanceof Error ? e.name : typeof e}); the next poll tries again`));
  };
  const unsubscribe = init.events?.subscribe((e) => {
    if (NOTIFIED_OPERATORS[e.operator] || e.operator === "notification.sendTest") wake();
  });
  return {
    tick: () => periodic.tick(),
    async close() {
      unsubscribe?.();
      await periodic.close();
    },
  };
}
