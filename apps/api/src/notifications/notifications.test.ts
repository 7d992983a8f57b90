// Notifications through the real API (HTTP, better-auth sessions, an agent token, the dispatcher on its timer and
// woken by LISTEN): an admin's webhook endpoint receives a signed gate-opened payload that verifies against the
// secret shown once; an endpoint answering 500 is retried and then delivered (the delivery log says so); the SMTP
// server on loopback receives the e-mail to the members who may answer; a Web Push to a loopback push endpoint
// decrypts (RFC 8291, aes128gcm, with http_ece and the subscription's own private key) to the gate's payload.
// Loopback receivers need NOTIFY_ALLOW_PRIVATE_TARGETS (allowPrivateTargets), which the last test shows refused
// without it.
import { createECDH, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SMTPServer } from "smtp-server";
import ece from "http_ece";
import webpush from "web-push";
import { useTestDatabase } from "@phoneloop/state/testing";
import { agentTokenHeaders, callOverHttp, signUpMember, type SignedUpMember } from "../auth/testing.ts";
import { useApiServer } from "../use-api-server.ts";
import { isPublicAddress, targetUrlProblem } from "./targets.ts";

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** An HTTP receiver on loopback that records every POST; `answer` says the status per path and call. */
async function receiver(answer: (path: string, nth: number) => number) {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      got.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(answer(path, got.filter((g) => g.path === path).length)).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const hooks = await receiver((path, nth) => (path === "/flaky" && nth === 1 ? 500 : 200));
const push = await receiver(() => 201);
const mails: { to: string[]; raw: string }[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  logger: false,
  onData(stream, session, done) {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString("utf8") });
      done();
    });
  },
});
await new Promise<void>((r) => smtp.listen(0, "127.0.0.1", r));
const smtpPort = (smtp.server.address() as AddressInfo).port;
afterAll(async () => {
  await hooks.close();
  await push.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

const WEB = "http://127.0.0.1:3999";
const t = useTestDatabase();
const api = useApiServer(t, {
  webOrigins: [WEB],
  notifications: {
    allowPrivateTargets: true,
    pollMs: 200,
    retryBaseMs: 50,
    timeoutMs: 5_000,
    smtp: { host: "127.0.0.1", port: smtpPort, secure: false, from: "PhoneLoop <phoneloop@example.test>" },
    vapid: { ...webpush.generateVAPIDKeys(), subject: "mailto:admin@example.test" },
  },
});

let admin: SignedUpMember;
let approver: SignedUpMember;
let agent: Record<string, string>;
const call = async <T,>(path: string, input: unknown, headers: Record<string, string>): Promise<T> => {
  const r = await callOverHttp(api.url, path, input, headers);
  expect(r.status, `${path}: ${r.message}`).toBe(200);
  return r.data as T;
};

beforeAll(async () => {
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  approver = await signUpMember({ db: t.db, auth: api.auth }, { role: "approver", workspaceId: admin.workspaceId });
  agent = (await agentTokenHeaders(t.db, { workspaceId: admin.workspaceId, issuedBy: admin.userId })).headers;
});

async function openGate(question: string) {
  const goal = await call<{ id: string }>("goal.create", { title: "Buy paper", objective: "Order two packs of A4 paper in the shop app." }, admin.headers);
  const { gate } = await call<{ gate: { id: string } }>("gate.open", { goalId: goal.id, question, options: ["approve", "deny"], kind: "approval" }, agent);
  return gate.id;
}

/** The signature header's check as a receiver makes it: HMAC-SHA256 over "<t>.<raw body>". */
function verifies(secret: string, header: string, body: Buffer): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  const want = createHmac("sha256", secret).update(`${m[1]}.`).update(body).digest();
  return timingSafeEqual(want, Buffer.from(m[2]!, "hex"));
}

describe("notifications through the API", () => {
  it("a webhook endpoint gets a signed gate-opened payload, with the gate's link and nothing that acts", async () => {
    const made = await call<{ endpoint: { id: string; secretSealed?: string }; secret: string }>("notification.createEndpoint", { url: `${hooks.url}/hook`, format: "generic", kinds: ["gate_opened"] }, admin.headers);
    expect(made.secret).toMatch(/^whsec_/);
    expect(made.endpoint.secretSealed).toBeUndefined();
    // Not an admin: refused; the list never shows the secret.
    expect((await callOverHttp(api.url, "notification.endpoints", {}, approver.headers)).status).toBe(403);
    expect(JSON.stringify(await call("notification.endpoints", {}, admin.headers))).not.toContain(made.secret);

    const gateId = await openGate("Tap Pay 21.00 USD in the shop app?");
    await vi.waitFor(() => expect(hooks.got.filter((g) => g.path === "/hook")).toHaveLength(1), { timeout: 15_000, interval: 50 });
    const hit = hooks.got.find((g) => g.path === "/hook")!;
    expect(verifies(made.secret, String(hit.headers["x-phoneloop-signature"]), hit.body)).toBe(true);
    expect(verifies("whsec_wrong", String(hit.headers["x-phoneloop-signature"]), hit.body)).toBe(false);
    const body = JSON.parse(hit.body.toString("utf8"));
    expect(body).toMatchObject({ kind: "gate_opened", url: `${WEB}/gates/${gateId}`, gate: { id: gateId, question: "Tap Pay 21.00 USD in the shop app?" } });
    expect(hit.headers["x-phoneloop-delivery"]).toBe(body.id);
    expect(hit.body.toString("utf8")).not.toMatch(/token|approve\?|plt_|pls_/);
  });

  it("an endpoint answering 500 is retried and then delivered; the delivery log shows the attempts and the code", async () => {
    const made = await call<{ endpoint: { id: string } }>("notification.createEndpoint", { url: `${hooks.url}/flaky`, format: "slack", kinds: ["gate_opened"] }, admin.headers);
    await openGate("Delete the draft order in the shop app?");
    await vi.waitFor(() => expect(hooks.got.filter((g) => g.path === "/flaky")).toHaveLength(2), { timeout: 15_000, interval: 50 });
    const [first, second] = hooks.got.filter((g) => g.path === "/flaky");
    expect(second!.headers["x-phoneloop-delivery"]).toBe(first!.headers["x-phoneloop-delivery"]);
    expect(JSON.parse(second!.body.toString("utf8")).text).toContain("Delete the draft order");
    await vi.waitFor(async () => {
      const log = await call<{ endpointId: string; status: string; attempts: number; lastStatusCode: number }[]>("notification.deliveries", { endpointId: made.endpoint.id }, admin.headers);
      expect(log[0]).toMatchObject({ status: "delivered", attempts: 2, lastStatusCode: 200 });
    }, { timeout: 10_000, interval: 50 });
  });

  it("the SMTP server receives the e-mail to each member who may answer, with the gate's link", async () => {
    const gateId = await openGate("Send the invoice to the accountant by e-mail?");
    await vi.waitFor(() => expect(mails.filter((m) => m.raw.includes(gateId)).map((m) => m.to).flat().sort()).toEqual([admin.email, approver.email].sort()), { timeout: 15_000, interval: 50 });
    const mail = mails.find((m) => m.raw.includes(gateId))!;
    expect(mail.raw).toContain("Send the invoice to the accountant");
    expect(mail.raw).toContain(`${WEB}/gates/${gateId}`);
  });

  it("a Web Push to the approver's subscription decrypts (RFC 8291) to the gate's payload", async () => {
    const channels = await call<{ webPush: boolean; vapidPublicKey: string }>("notification.channels", {}, approver.headers);
    expect(channels.webPush).toBe(true);
    const browser = createECDH("prime256v1");
    browser.generateKeys();
    const authSecret = randomBytes(16);
    const endpoint = `${push.url}/push/${randomBytes(6).toString("hex")}`;
    await call("notification.subscribePush", { endpoint, p256dh: browser.getPublicKey("base64url"), auth: authSecret.toString("base64url") }, approver.headers);
    expect(await call("notification.pushStatus", { endpoint }, approver.headers)).toEqual({ subscribed: true });

    const gateId = await openGate("Grant the shop app access to contacts?");
    await vi.waitFor(() => expect(push.got.some((g) => g.path === new URL(endpoint).pathname)).toBe(true), { timeout: 15_000, interval: 50 });
    const hit = push.got.find((g) => g.path === new URL(endpoint).pathname)!;
    expect(hit.headers["content-encoding"]).toBe("aes128gcm");
    expect(String(hit.headers.authorization)).toMatch(new RegExp(`^vapid t=.+, k=${channels.vapidPublicKey}$`));
    const plain = ece.decrypt(hit.body, { version: "aes128gcm", privateKey: browser, authSecret: authSecret.toString("base64url") });
    expect(JSON.parse(plain.toString("utf8"))).toMatchObject({ kind: "gate_opened", url: `${WEB}/gates/${gateId}`, gate: { id: gateId, question: "Grant the shop app access to contacts?" } });
  });

  it("without NOTIFY_ALLOW_PRIVATE_TARGETS, loopback and private targets are refused", () => {
    expect(targetUrlProblem("http://127.0.0.1:9/hook", false)).toContain("NOTIFY_ALLOW_PRIVATE_TARGETS");
    expect(targetUrlProblem("http://localhost/hook", false)).toContain("loopback");
    expect(targetUrlProblem("https://user:pw@hooks.example.com/x", false)).toContain("no user name");
    expect(targetUrlProblem("https://hooks.slack.com/services/T/B/x", false)).toBeNull();
    for (const a of ["127.0.0.1", "10.1.2.3", "192.168.1.1", "169.254.169.254", "::1", "fd00::1", "::ffff:127.0.0.1", "100.64.0.1"]) expect(isPublicAddress(a), a).toBe(false);
    expect(isPublicAddress("93.184.216.34")).toBe(true);
  });
});
