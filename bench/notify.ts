// Notifications end to end: 200 gates opened over the real API (an agent token; 20 runs, 10 gates each, the runs
// at once) on durable Postgres, each announced by the API's dispatcher (the core's outbox, claimed FOR UPDATE SKIP
// LOCKED) to a webhook receiver and to a Web Push endpoint, both on loopback. The webhook's signature is verified
// and each push message is decrypted (RFC 8291, http_ece with the subscription's private key) before it counts.
// Latency: from the gate's opening (gate.open's answer, right after its commit) to the receiver's arrival; the line
// before the last gives it from the gate's createdAt too (its transaction's start, before the commit). delivered: gates whose signed webhook and
// decrypted push both arrived; duplicates: arrivals past the first per delivery (webhook) and per gate (push).
//
// Run: npm run bench -- notify   (the API's NOTIFY_* settings may be passed in the environment, e.g. NOTIFY_POLL_MS)
import { createECDH, createHmac, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import ece from "http_ece";
import webpush from "web-push";
import { createApiClient } from "@phoneloop/client";
import { createAuth } from "../apps/api/src/auth/auth.ts";
import { signUpMember } from "../apps/api/src/auth/testing.ts";
import { percentile, startBenchCore } from "./support/stack.ts";

const RUNS = 20;
const GATES_PER_RUN = 10;
const SECRET = "bench-secret-key-not-for-production-0000"; // startBenchCore's API is started with it
const vapid = webpush.generateVAPIDKeys();

const openedAt = new Map<string, number>();
const createdAt = new Map<string, number>();
const webhookAt = new Map<string, number>();
const pushAt = new Map<string, number>();
const seenDeliveries = new Map<string, number>();
let duplicates = 0;
let badSignatures = 0;
let webhookSecret = "";

/** A loopback receiver; `take` reads each POST's raw body. */
async function receiver(take: (path: string, headers: Record<string, string | string[] | undefined>, body: Buffer) => void) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      take(req.url ?? "/", req.headers, Buffer.concat(chunks));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const hooks = await receiver((_path, headers, body) => {
  const at = Date.now();
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(headers["x-phoneloop-signature"]));
  if (!m || createHmac("sha256", webhookSecret).update(`${m[1]}.`).update(body).digest("hex") !== m[2]) return void (badSignatures += 1);
  const delivery = String(headers["x-phoneloop-delivery"]);
  seenDeliveries.set(delivery, (seenDeliveries.get(delivery) ?? 0) + 1);
  if (seenDeliveries.get(delivery)! > 1) return void (duplicates += 1);
  const gateId = (JSON.parse(body.toString("utf8")) as { gate?: { id: string } }).gate?.id;
  if (gateId && !webhookAt.has(gateId)) webhookAt.set(gateId, at);
});
const browser = createECDH("prime256v1");
browser.generateKeys();
const authSecret = randomBytes(16).toString("base64url");
const pushes = await receiver((_path, _headers, body) => {
  const at = Date.now();
  const plain = ece.decrypt(body, { version: "aes128gcm", privateKey: browser, authSecret });
  const gateId = (JSON.parse(plain.toString("utf8")) as { gate?: { id: string } }).gate?.id;
  if (!gateId) return;
  if (pushAt.has(gateId)) duplicates += 1;
  else pushAt.set(gateId, at);
});

const core = await startBenchCore("notify", {
  env: {
    NOTIFY_ALLOW_PRIVATE_TARGETS: "true",
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    WEB_ORIGIN: "http://127.0.0.1:3000",
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("NOTIFY_")) as [string, string][]),
  },
});
try {
  const { databaseUrl, db, workspace, apiUrl } = core;
  const accounts = createAuth({ databaseUrl, baseURL: apiUrl, trustedOrigins: [], secretKey: SECRET });
  const admin = await signUpMember({ db, auth: accounts.auth }, { workspaceId: workspace.id, role: "admin", name: "Ada Admin" });
  const approver = await signUpMember({ db, auth: accounts.auth }, { workspaceId: workspace.id, role: "approver", name: "Abe Approver" });
  await accounts.close();
  const asAdmin = createApiClient({ apiUrl, auth: { kind: "cookie", cookie: admin.headers.cookie! } });
  const asApprover = createApiClient({ apiUrl, auth: { kind: "cookie", cookie: approver.headers.cookie! } });
  const made = await asAdmin.notification.createEndpoint.mutate({ url: `${hooks.url}/hook`, format: "generic", kinds: ["gate_opened"] });
  webhookSecret = made.secret;
  await asApprover.notification.subscribePush.mutate({ endpoint: `${pushes.url}/push/bench`, p256dh: browser.getPublicKey("base64url"), auth: authSecret });

  // One worker per run, each with its own agent token (as 20 phones would be): the API's fair share is per caller.
  const runs = await Promise.all(
    Array.from({ length: RUNS }, async (_, r) => {
      const agent = createApiClient({ apiUrl, auth: { kind: "token", token: await core.issueToken(`bench notify worker ${r + 1}`) } });
      const agentId = `agent_bench_notify_${r + 1}`;
      await agent.agent.register.mutate({ id: agentId, name: `bench notify worker ${r + 1}`, kind: "headless", capabilities: ["android"] });
      const goal = await asAdmin.goal.create.mutate({ title: `Shop order ${r + 1}`, objective: "Order printer paper in the shop app and pay for it." });
      const run = await agent.run.start.mutate({ goalId: goal.id, agentId });
      return { agent, goalId: goal.id, runId: run.id };
    }),
  );
  const started = performance.now();
  const callMs: number[] = [];
  await Promise.all(
    runs.map(async ({ agent, goalId, runId }, r) => {
      for (let k = 0; k < GATES_PER_RUN; k++) {
        const t0 = performance.now();
        const { gate } = await agent.gate.open.mutate({ goalId, runId, question: `Tap Pay ${(r + 1) * 10 + k}.00 USD in the shop app?`, options: ["approve", "deny"], kind: "approval", tier: "high_risk" });
        const answered = Date.now();
        callMs.push(performance.now() - t0);
        // The gate is open once gate.open committed: its answer comes right after. (Its createdAt is when its
        // transaction began, before the commit queue; how long that took shows as gate.open's own latency.)
        openedAt.set(gate.id, answered);
        createdAt.set(gate.id, new Date(gate.createdAt).getTime());
      }
    }),
  );
  const total = RUNS * GATES_PER_RUN;
  const deadline = Date.now() + 60_000;
  while ((webhookAt.size < total || pushAt.size < total) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  // A moment more, for a duplicate that would arrive after the first of each.
  await new Promise((r) => setTimeout(r, 1_000));
  const lat = (arrived: Map<string, number>) => [...openedAt].map(([id, t0]) => (arrived.get(id) ?? deadline) - t0);
  const delivered = [...openedAt.keys()].filter((id) => webhookAt.has(id) && pushAt.has(id)).length;
  const log = await asAdmin.notification.deliveries.query({ limit: 200 });
  console.log(`gates opened: ${openedAt.size} over ${RUNS} runs in ${Math.round(performance.now() - started)} ms (gate.open p50 ${Math.round(percentile(callMs, 50))} ms); webhooks ${webhookAt.size}, pushes ${pushAt.size}, bad signatures ${badSignatures}`);
  const fromCreated = [...createdAt].map(([id, t]) => (webhookAt.get(id) ?? deadline) - t);
  console.log(`from the gates' createdAt (their transactions' start): webhook p50 ${Math.round(percentile(fromCreated, 50))} ms, p95 ${Math.round(percentile(fromCreated, 95))} ms`);
  console.log(`webhook p50 ${Math.round(percentile(lat(webhookAt), 50))} ms, push p50 ${Math.round(percentile(lat(pushAt), 50))} ms; newest deliveries' statuses: ${[...new Set(log.map((d) => d.status))].join(", ")}`);
  console.log(`gate_to_webhook_p95_ms=${Math.round(percentile(lat(webhookAt), 95))} gate_to_push_p95_ms=${Math.round(percentile(lat(pushAt), 95))} delivered=${delivered} duplicates=${duplicates}`);
} finally {
  await core.stop();
  await hooks.close();
  await pushes.close();
}
