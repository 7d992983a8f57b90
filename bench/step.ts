// `npm run bench -- step`: 200 executor steps of the headless agent (packages/cli's composition root) against the
// virtual phone (social app over real ADB/TCP), its state written through packages/client to the API and a durable
// Postgres (fsync on): per step the checkpoint, the step row, its evidence and the screenshot blob. The model is a
// zero-latency scripted server reached through the product's OpenAI client. Overhead = step wall time minus the
// time spent waiting for the model (the HTTP round trip to the scripted server counts as model time) minus the
// phone's own time carrying out the action (the input-injection call: a scroll's swipe lasts its 400 ms gesture on
// the phone, a tap a few ms) — that is the action, not the runtime's. Settling after the action (waitForStable's
// frames and its UI-tree read) is overhead, and so are sensing, the writes and the rest. Tokens = the executor
// request as sent (o200k text tokens + OpenAI high-detail image tokens) for 1080×2400.
// The phone and the API each run in their own process, as they do in production.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { createModels, countTextTokens, runAgent, systemClock, type AgentEvent, type RunOutcome } from "@phoneloop/agent";
import { nodeImages } from "@phoneloop/agent/node";
import { MemoryControlPlane, startScriptedModelServer, planOf } from "@phoneloop/agent/testing";
import { runHeadless } from "@phoneloop/cli";
import { resolveGate } from "@phoneloop/state";
import { browsingModel } from "./support/browsing-model.ts";
import { percentile, startBenchCore, startProcess } from "./support/stack.ts";

const STEPS = 200;
const config = { maxStepsPerTodo: STEPS + 10, maxStepsPerRun: STEPS + 10 };
// A durable Postgres (as in production), migrated, with a workspace whose admin issues the agent's token and
// answers any gate the run opens (straight through the state core: the person's side is not what is measured).
const core = await startBenchCore("step");
const { dir, db, admin, apiUrl, issueToken } = core;
const agentToken = await issueToken("bench");
const approve = (gateId: string) => void resolveGate(db, { gateId, userId: admin.id, decision: "approve", rationale: "benchmark" }).catch(() => undefined);
// the phone already lists the bench's key in adb_keys (--adb-keys), as a phone that allowed this computer does
const credentialStore = new MemoryCredentialStore("bench@phoneloop");
const benchKey = await credentialStore.generateKey();
writeFileSync(join(dir, "adbkey.pub"), adbPublicKeyLine(benchKey.buffer, benchKey.name ?? credentialStore.name));
const phone = await startProcess(
  ["packages/virtual-phone/src/cli.ts", "--scenario", "social", "--seed", "3", "--adb-port", "0", "--ws-port", "0", "--control-port", "0", "--adb-keys", join(dir, "adbkey.pub")],
  {},
  /adb connect [^:\s]+:(\d+)/,
);
const device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: Number(phone.match[1]), credentialStore }));


/** One benchmark run: a fresh scripted model (its own step count), the run's step events, the figures. */
async function measure(run: (models: ReturnType<typeof createModels>, onEvent: (e: AgentEvent) => void) => Promise<RunOutcome>) {
  const executor = browsingModel(STEPS);
  const server = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "planner", replies: [planOf([{ id: "browse", title: "Browse the Loop feed" }])] },
      { match: (r) => r.model === "summarizer", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Benchmark run." }) }], repeatLast: true },
      { match: (r) => r.model === "executor", replies: [executor], repeatLast: true },
    ],
  });
  const models = createModels({
    executor: { baseURL: server.baseURL, model: "executor" },
    planner: { baseURL: server.baseURL, model: "planner" },
    summarizer: { baseURL: server.baseURL, model: "summarizer" },
  });
  const steps: Extract<AgentEvent, { type: "step" }>[] = [];
  const started = performance.now();
  try {
    const out = await run(models, (e) => {
      if (e.type === "step") steps.push(e);
      if (e.type === "gate") approve(e.gateId);
    });
    const executed = steps.filter((s) => s.promptTokens > 0).slice(0, STEPS);
    const overhead = executed.map((s) => s.overheadMs);
    const phaseNames = [...new Set(executed.flatMap((s) => Object.keys(s.phases ?? {})))];
    return {
      out,
      wall: performance.now() - started,
      executed,
      overhead,
      figures: `overhead_p50_ms=${Math.round(percentile(overhead, 50))} overhead_p95_ms=${Math.round(percentile(overhead, 95))} input_tokens_per_step=${Math.round(mean(executed.map((s) => s.promptTokens)))}`,
      phases: [
        ...phaseNames.map((n) => `${n} ${percentile(executed.map((s) => s.phases?.[n] ?? 0), 50).toFixed(1)} ms`),
        `of perform the action itself ${percentile(executed.map((s) => s.actionMs ?? 0), 50).toFixed(1)} ms (not overhead)`,
      ].join(", "),
    };
  } finally {
    await server.stop();
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
countTextTokens("warm up the tokenizer once per process");

try {
  // For comparison: the same run with the state kept in this process (the runtime's memory double).
  const inMemory = await measure((models, onEvent) =>
    runAgent(
      { device, models, controlPlane: new MemoryControlPlane({ onGate: () => ({ status: "approved", rationale: "benchmark" }) }), clock: systemClock, images: nodeImages },
      { goal: "Browse the Loop feed (benchmark, in memory)", agent: { name: "bench", kind: "headless", capabilities: ["phone"] }, config, onEvent },
    ),
  );
  console.log(`in-memory ControlPlane (no API, no Postgres): ${inMemory.figures}; p50 per step: ${inMemory.phases}`);

  const r = await measure((models, onEvent) => runHeadless({ apiUrl, agentToken, device, models, goal: "Browse the Loop feed (benchmark)", agentName: "bench", config, onEvent }));
  const run = await db.run.findUniqueOrThrow({ where: { id: r.out.runId }, select: { checkpoint: true, _count: { select: { steps: true } } } });
  const evidence = await db.evidence.findMany({ where: { runId: r.out.runId }, select: { blobSha256: true } });
  console.log(`run ${r.out.runId}: ${r.out.status} (${r.out.endReason}), ${r.executed.length} executor steps in ${(r.wall / 1000).toFixed(1)} s`);
  console.log(
    `written through the API: ${run._count.steps} step rows, ${evidence.length} evidence rows (${evidence.filter((e) => e.blobSha256).length} with a screenshot blob), checkpoint keys ${Object.keys(run.checkpoint as object).length} (${JSON.stringify(run.checkpoint).length} bytes of JSON)`,
  );
  console.log(`model wait (scripted, loopback HTTP): p50 ${percentile(r.executed.map((s) => s.modelMs), 50).toFixed(1)} ms`);
  console.log(`overhead: min ${Math.min(...r.overhead).toFixed(1)} ms, mean ${mean(r.overhead).toFixed(1)} ms, max ${Math.max(...r.overhead).toFixed(1)} ms`);
  console.log(`where the time goes (p50 per step): ${r.phases}`);
  console.log(r.figures);
} finally {
  await device.close().catch(() => undefined);
  phone.proc.kill("SIGTERM");
  await core.stop();
}
