// Abuse: does one member's heavy or over-quota traffic stall another member's reads, or spend past a quota?
//
// A running stack on loopback: an embedded Postgres, the real API server (its own process, from the sources), the
// product's client (packages/client's tRPC client and uploadBlob, the agent's `openai` model adapter) and a scripted
// OpenAI-compatible model server that behaves like a provider (it counts the prompt it gets, and its reply stops at
// the request's max_tokens). Two members of one workspace: a viewer whose ordinary reads (the board of a goal with
// 50 todos, the goal list) are timed back to back for the whole run, and an operator who meanwhile sends, all at
// once:
// - a 1,000-item `agent.heartbeat` batch (1,000 calls in one tick: the client's batch link sends them as one request);
// - 8 decode-heavy images: small PNGs (one colour, deflated) declaring 6000×6600 pixels, posted to /blobs;
// - 50 concurrent over-quota model calls through the API's model proxy, with two agents' tokens: 25 on a goal capped
//   at 100 tokens, 25 on a goal capped at 1,000 µ$ (each call alone asks for 290 tokens, 2,396 µ$ at the role's
//   prices of 2 µ$ in and 10 µ$ out per token).
// Then it reads the usage recorded against each goal. Overspend is the recorded or the answered spend (what the 200
// answers report, whichever is larger) beyond the cap.
//
// The last line: member_read_p99_ms=<n> overspend_tokens=<n> overspend_micro_usd=<n>
// Run: npm run bench -- abuse
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import sharp from "sharp";
import { countRequestTokens, createOpenAIModel } from "@phoneloop/agent";
import { startScriptedModelServer, type RecordedRequest } from "@phoneloop/agent/testing";
import { createApiClient, uploadBlob } from "@phoneloop/client";
import { issueAgentToken, registerAgent, setQuotaPolicy, startRun } from "@phoneloop/state";
import { seedGoal, seedTodos } from "@phoneloop/state/testing";
import { createAuth } from "../apps/api/src/auth/auth.ts";
import { signUpMember } from "../apps/api/src/auth/testing.ts";
import { modelSettingsStore } from "../apps/api/src/model-settings.ts";
import { percentile, startBenchCore } from "./support/stack.ts";

const SECRET = "bench-secret-key-not-for-production-0000"; // startBenchCore's API is started with it
const HEARTBEATS = 1_000;
const IMAGES = 8;
const CALLS = 50;
const TOKEN_CAP = 100;
const MICRO_USD_CAP = 1_000;
const PRICES = { in: 2, out: 10 };
const PROMPT = "Look at the screen and answer with the next action for the todo. ".repeat(4).trim();
const PROMPT_TOKENS = countRequestTokens([{ role: "user", content: PROMPT }]).total;
const REPLY_TOKENS = 290 - PROMPT_TOKENS;

const core = await startBenchCore("abuse", { fast: true });
const { databaseUrl, db, workspace, admin, apiUrl } = core;
// Members sign up through better-auth on the API's database with the API's secret: their cookies are the API's sessions.
const accounts = createAuth({ databaseUrl, baseURL: apiUrl, trustedOrigins: [], secretKey: SECRET });
const auth = accounts.auth;
const provider = await startScriptedModelServer({
  fallback: (req: RecordedRequest) => ({
    text: '{"type":"wait"}',
    promptTokens: countRequestTokens(req.messages.map((m) => ({ role: m.role as "user", content: String(m.content) }))).total,
    completionTokens: Math.min(REPLY_TOKENS, typeof req.body.max_tokens === "number" ? req.body.max_tokens : REPLY_TOKENS),
    delayMs: 200,
  }),
});
try {
  await modelSettingsStore(db, SECRET).set(
    workspace.id,
    { baseUrl: provider.baseURL, apiKey: "sk-bench-upstream", models: { executor: "bench-vision" }, microUsdPerInputToken: PRICES.in, microUsdPerOutputToken: PRICES.out },
    admin.id,
  );
  const viewer = await signUpMember({ db, auth }, { workspaceId: workspace.id, role: "viewer", name: "Vera Viewer" });
  const operator = await signUpMember({ db, auth }, { workspaceId: workspace.id, role: "operator", name: "Otto Operator" });
  const reader = createApiClient({ apiUrl, auth: { kind: "cookie", cookie: viewer.headers.cookie! } });
  const abuser = createApiClient({ apiUrl, auth: { kind: "cookie", cookie: operator.headers.cookie! } });

  const boardGoal = await seedGoal(db, { workspaceId: workspace.id, title: "The board the viewer reads" });
  await seedTodos(db, boardGoal.id, 50);
  for (let k = 0; k < 20; k++) await seedGoal(db, { workspaceId: workspace.id, title: `Goal ${k + 1}` });

  /** An agent with its own token and a running run on a goal capped by `limits`. */
  const cappedRun = async (name: string, limits: { maxTokens?: number; maxMicroUsd?: number }) => {
    const { token, tokenId } = await issueAgentToken(db, { workspaceId: workspace.id, issuedBy: admin.id, name });
    const agent = await registerAgent(db, { id: `agent-${name}`, name, kind: "headless", workspaceId: workspace.id, tokenId });
    const goal = await seedGoal(db, { workspaceId: workspace.id, title: `Capped: ${name}` });
    await setQuotaPolicy(db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, ...limits });
    const run = await startRun(db, { goalId: goal.id, agentId: agent.id });
    return { token, agent, goal, run };
  };
  const byTokens = await cappedRun("tokens-capped", { maxTokens: TOKEN_CAP });
  const byMoney = await cappedRun("money-capped", { maxMicroUsd: MICRO_USD_CAP });

  // 8 PNGs of one colour each (distinct bytes, so none is a stored blob already), 6000×6600 pixels declared.
  const pngs = await Promise.all(
    Array.from({ length: IMAGES }, (_, k) => sharp({ create: { width: 6000, height: 6600, channels: 3, background: { r: k * 30, g: 90, b: 200 - k * 20 } } }).png({ compressionLevel: 9 }).toBuffer()),
  );
  console.log(`images: ${IMAGES} PNGs of 6000×6600 declared, ${Math.round(pngs.reduce((n, b) => n + b.length, 0) / IMAGES / 1024)} KiB each`);

  // The viewer's reads, back to back, from before the load starts until after it ends.
  const reads: { ms: number; ok: boolean; during: boolean }[] = [];
  let loading = false;
  let reading = true;
  const readLoop = (async () => {
    for (let n = 0; reading; n++) {
      const t0 = performance.now();
      const during = loading;
      const ok = await (n % 2 === 0 ? reader.board.get.query({ goalId: boardGoal.id }) : reader.board.goals.query({ limit: 100 })).then(
        () => true,
        () => false,
      );
      reads.push({ ms: performance.now() - t0, ok, during: during || loading });
    }
  })();
  await new Promise((r) => setTimeout(r, 2_000));
  const baseline = reads.filter((r) => !r.during).map((r) => r.ms);

  loading = true;
  const started = performance.now();
  const timed = async <T>(work: () => Promise<T>) => {
    const t0 = performance.now();
    const value = await work();
    return { value, ms: performance.now() - t0 };
  };
  const heartbeats = timed(() => Promise.allSettled(Array.from({ length: HEARTBEATS }, () => abuser.agent.heartbeat.mutate({ agentId: byTokens.agent.id }))));
  const images = Promise.all(pngs.map((bytes) => timed(() => uploadBlob(abuser, { mime: "image/png", bytes }).then(() => "stored", (e: Error) => `refused: ${e.message.slice(0, 120)}`))));
  const modelCall = (who: typeof byTokens) => {
    let answeredMicroUsd = 0;
    const model = createOpenAIModel({
      baseURL: `${apiUrl}/model/executor/v1`,
      apiKey: who.token,
      model: "",
      structuredOutput: "none",
      maxOutputTokens: REPLY_TOKENS,
      defaultHeaders: { "x-phoneloop-run": who.run.id },
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (res.ok) answeredMicroUsd = Number(res.headers.get("x-phoneloop-micro-usd") ?? 0);
        return res;
      },
    });
    return model.complete({ role: "executor", messages: [{ role: "user", content: PROMPT }] }).then((r) => ({ r, answeredMicroUsd }));
  };
  const calls = Promise.all(Array.from({ length: CALLS }, (_, k) => modelCall(k % 2 === 0 ? byTokens : byMoney)));
  const [hb, img, answers] = await Promise.all([heartbeats, images, calls]);
  const loadMs = performance.now() - started;
  loading = false;
  await new Promise((r) => setTimeout(r, 1_000));
  reading = false;
  await readLoop;

  const hbOk = hb.value.filter((r) => r.status === "fulfilled").length;
  const hbReason = hb.value.find((r) => r.status === "rejected") as PromiseRejectedResult | undefined;
  console.log(`heartbeat batch: ${hbOk} of ${HEARTBEATS} answered in ${Math.round(hb.ms)} ms${hbReason ? ` (first refusal: ${String((hbReason.reason as Error).message).slice(0, 160)})` : ""}`);
  for (const [k, u] of img.entries()) console.log(`image ${k + 1}: ${u.value} in ${Math.round(u.ms)} ms`);

  const answered = { tokens: 0, microUsd: 0 };
  const answeredBy = new Map<string, { tokens: number; microUsd: number; ok: number; refused: number }>();
  for (const [k, { r, answeredMicroUsd }] of answers.entries()) {
    const who = k % 2 === 0 ? byTokens : byMoney;
    const row = answeredBy.get(who.goal.id) ?? { tokens: 0, microUsd: 0, ok: 0, refused: 0 };
    if (r.ok) {
      row.ok++;
      row.tokens += r.value.usage.inputTokens + r.value.usage.outputTokens;
      row.microUsd += answeredMicroUsd;
    } else row.refused++;
    answeredBy.set(who.goal.id, row);
  }
  const firstRefusal = answers.find((a) => !a.r.ok)?.r;
  const recorded = async (goalId: string) => {
    const s = await db.quotaSpend.aggregate({ where: { goalId }, _sum: { tokens: true, microUsd: true } });
    return { tokens: s._sum.tokens ?? 0, microUsd: Number(s._sum.microUsd ?? 0) };
  };
  const tokensGoal = { recorded: await recorded(byTokens.goal.id), answered: answeredBy.get(byTokens.goal.id)! };
  const moneyGoal = { recorded: await recorded(byMoney.goal.id), answered: answeredBy.get(byMoney.goal.id)! };
  answered.tokens = tokensGoal.answered.tokens;
  answered.microUsd = moneyGoal.answered.microUsd;
  console.log(`model calls on the ${TOKEN_CAP}-token cap: ${tokensGoal.answered.ok} answered, ${tokensGoal.answered.refused} refused; answered ${tokensGoal.answered.tokens} tokens, recorded ${tokensGoal.recorded.tokens}`);
  console.log(`model calls on the ${MICRO_USD_CAP}-µ$ cap: ${moneyGoal.answered.ok} answered, ${moneyGoal.answered.refused} refused; answered ${moneyGoal.answered.microUsd} µ$, recorded ${moneyGoal.recorded.microUsd}`);
  if (firstRefusal && !firstRefusal.ok) console.log(`a refusal says: ${firstRefusal.error.message.slice(0, 300)}`);
  console.log(`upstream requests: ${provider.requests.length} (max_tokens sent: ${[...new Set(provider.requests.map((q) => q.body.max_tokens))].join(", ")})`);
  const overspendTokens = Math.max(0, Math.max(tokensGoal.recorded.tokens, tokensGoal.answered.tokens) - TOKEN_CAP);
  const overspendMicroUsd = Math.max(0, Math.max(moneyGoal.recorded.microUsd, moneyGoal.answered.microUsd) - MICRO_USD_CAP);

  const during = reads.filter((r) => r.during);
  const failed = during.filter((r) => !r.ok).length;
  console.log(`viewer reads: ${baseline.length} before the load (p50 ${Math.round(percentile(baseline, 50))} ms, p99 ${Math.round(percentile(baseline, 99))} ms); ${during.length} during the ${Math.round(loadMs)} ms of load (p50 ${Math.round(percentile(during.map((r) => r.ms), 50))} ms, max ${Math.round(Math.max(...during.map((r) => r.ms)))} ms, ${failed} failed)`);
  console.log(`machine load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`);
  console.log(`member_read_p99_ms=${Math.round(percentile(during.map((r) => r.ms), 99))} overspend_tokens=${overspendTokens} overspend_micro_usd=${overspendMicroUsd}`);
} finally {
  await provider.stop();
  await accounts.close();
  await core.stop();
}
