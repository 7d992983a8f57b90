// What a notification looks like on each channel: the webhook body per format — the shapes the incoming webhooks
// of Slack (text + blocks), Microsoft Teams (a Workflows message carrying an Adaptive Card), Feishu/Lark (a custom
// bot's text message) and DingTalk (a custom robot's markdown) accept, or PhoneLoop's own JSON (generic) — its
// signature, the push message and the e-mail. Each carries the link that opens the gate or run after sign-in and
// nothing that acts: no token, no approve link.
import { createHmac } from "node:crypto";
import type { NotificationPayload, WebhookFormat } from "@phoneloop/state";

export const SIGNATURE_HEADER = "x-phoneloop-signature";
export const DELIVERY_HEADER = "x-phoneloop-delivery";
export const KIND_HEADER = "x-phoneloop-kind";

export interface Links {
  /** The web app's origin (WEB_ORIGIN's first), where the link opens after sign-in. */
  webOrigin: string;
}

export function linkOf(p: NotificationPayload, links: Links): string {
  return new URL(p.path, links.webOrigin).toString();
}

/** PhoneLoop's own JSON: what happened, the link, the gate or run (no secret, nothing that acts). */
export function genericBody(deliveryId: string, p: NotificationPayload, links: Links) {
  return { id: deliveryId, kind: p.kind, title: p.title, url: linkOf(p, links), occurredAt: p.occurredAt, eventId: p.eventId, workspaceId: p.workspaceId, ...(p.gate ? { gate: p.gate } : {}), ...(p.run ? { run: p.run } : {}), ...(p.test ? { test: true } : {}) };
}

export function webhookBody(format: WebhookFormat, deliveryId: string, p: NotificationPayload, links: Links): unknown {
  const url = linkOf(p, links);
  switch (format) {
    case "generic":
      return genericBody(deliveryId, p, links);
    case "slack":
      return {
        text: `${p.title} ${url}`,
        blocks: [
          { type: "section", text: { type: "mrkdwn", text: `*${escapeSlack(p.title)}*` } },
          { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open in PhoneLoop" }, url }] },
        ],
      };
    case "teams":
      return {
        type: "message",
        attachments: [
          {
            contentType: "application/vnd.microsoft.card.adaptive",
            contentUrl: null,
            content: {
              $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
              type: "AdaptiveCard",
              version: "1.4",
              body: [{ type: "TextBlock", text: p.title, wrap: true, weight: "Bolder" }],
              actions: [{ type: "Action.OpenUrl", title: "Open in PhoneLoop", url }],
            },
          },
        ],
      };
    case "feishu":
      return { msg_type: "text", content: { text: `${p.title}\n${url}` } };
    case "dingtalk":
      return { msgtype: "markdown", markdown: { title: p.title.slice(0, 64), text: `### ${p.title}\n\n[Open in PhoneLoop](${url})` } };
  }
}

function escapeSlack(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/**
 * The signature header's value: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the endpoint's
 * secret>`. A receiver recomputes it over the raw body and refuses an old t (replay).
 */
export function signatureOf(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${v1}`;
}

/** The push message (encrypted to the browser): the question, the gate link and its screenshot's link. */
export function pushMessage(deliveryId: string, p: NotificationPayload, links: Links & { apiOrigin: string }) {
  const sha = p.gate?.screenshotSha256;
  return { ...genericBody(deliveryId, p, links), ...(sha ? { screenshotUrl: new URL(`/blobs/${sha}`, links.apiOrigin).toString() } : {}) };
}

export function emailMessage(p: NotificationPayload, links: Links): { subject: string; text: string; html: string } {
  const url = linkOf(p, links);
  const subject = `PhoneLoop: ${p.title}`.slice(0, 200);
  const lines = [p.title, "", p.gate ? `Question: ${p.gate.question}` : "", "", `Open it (after signing in): ${url}`, "", "This e-mail cannot answer the gate itself: answer it on the page."].filter((l, i, a) => l !== "" || a[i - 1] !== "");
  const esc = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
  const html = `<p><strong>${esc(p.title)}</strong></p>${p.gate ? `<p>${esc(p.gate.question)}</p>` : ""}<p><a href="${esc(url)}">Open it in PhoneLoop</a> (after signing in).</p><p>This e-mail cannot answer the gate itself: answer it on the page.</p>`;
  return { subject, text: lines.join("\n"), html };
}
