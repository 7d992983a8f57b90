// `npm run bench -- step`: 200 executor steps against the virtual phone (social app over real ADB/TCP) with a
// zero-latency scripted model reached through the product's OpenAI client. Overhead = step wall time minus the
// time spent waiting for the model (the HTTP round trip to the scripted server counts as model time).
// Tokens = the executor request as sent (o200k text tokens + OpenAI high-detail image tokens) for 1080×2400.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { connectTcp } from "@phoneloop/device/node";
import { runAgent, createModels, countTextTokens, systemClock, fencedRegions, type AgentEvent } from "@phoneloop/agent";
import { nodeImages } from "@phoneloop/agent/node";
import { MemoryControlPlane, startScriptedModelServer, planOf, type RecordedRequest, type ScriptedReply } from "@phoneloop/agent/testing";

const STEPS = 200;
const reply = (a: Record<string, unknown>): ScriptedReply => ({ text: JSON.stringify(a) });

function indexOf(req: RecordedRequest, test: (line: string) => boolean): string | undefined {
  const screen = fencedRegions(req.lastUserText).at(-1) ?? "";
  for (const line of screen.split("\n")) if (test(line)) return /^\[(\d+)\]/.exec(line)?.[1];
  return undefined;
}

/** Browses the feed: dismisses popups, opens posts, goes back, scrolls — a realistic mix of steps. */
function browsingModel() {
  let n = 0;
  return (req: RecordedRequest): ScriptedReply => {
    n++;
    if (n > STEPS) return reply({ type: "status", status: "complete", summary: "benchmark done" });
    for (const id of ["update_later", "login_wall_not_now", "follow_not_now"]) {
      const i = indexOf(req, (l) => l.includes(`id=${id}`));
      if (i) return reply({ type: "click", element: i, intent: "dismiss the popup" });
    }
    if (indexOf(req, (l) => l.includes("id=body"))) return reply({ type: "navigate_back", intent: "back to the list" });
    if (n % 4 === 0) return reply({ type: "scroll", direction: n % 8 === 0 ? "up" : "down", intent: "browse" });
    const posts: string[] = [];
    for (const line of (fencedRegions(req.lastUserText).at(-1) ?? "").split("\n")) if (/^\[\d+\] LinearLayout/.test(line)) posts.push(/^\[(\d+)\]/.exec(line)![1]!);
    if (posts.length) return reply({ type: "click", element: posts[n % posts.length]!, intent: "open a post" });
    return reply({ type: "navigate_back", intent: "back" });
  };
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

// The phone runs in its own process, as a real phone would: its rendering does not share our event loop.
const phoneProc = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("../packages/virtual-phone/src/cli.ts", import.meta.url)), "--scenario", "social", "--seed", "3", "--adb-port", "0", "--ws-port", "0", "--control-port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const adbPort = await new Promise<number>((resolve, reject) => {
  let out = "";
  phoneProc.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    const m = /adb connect [^:\s]+:(\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  });
  phoneProc.once("exit", (code) => reject(new Error(`virtual phone exited (${code}) before listening: ${out}`)));
});
const phone = { stop: async () => void phoneProc.kill("SIGTERM") };
const device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: adbPort, credentialStore: new MemoryCredentialStore() }));
const executor = browsingModel();
const server = await startScriptedModelServer({
  rules: [
    { match: (r) => r.model === "planner", replies: [planOf([{ id: "browse", title: "Browse the Loop feed" }])] },
    { match: (r) => r.model === "summarizer", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Benchmark run." }) }], repeatLast: true },
    { match: (r) => r.model === "executor", replies: [executor], repeatLast: true },
  ],
});
const controlPlane = new MemoryControlPlane({ onGate: () => ({ decision: "approve" }) });
const models = createModels({
  executor: { baseURL: server.baseURL, model: "executor" },
  planner: { baseURL: server.baseURL, model: "planner" },
  summarizer: { baseURL: server.baseURL, model: "summarizer" },
});
countTextTokens("warm up the tokenizer once per process");

const steps: Extract<AgentEvent, { type: "step" }>[] = [];
const started = performance.now();
const out = await runAgent(
  { device, models, controlPlane, clock: systemClock, images: nodeImages },
  {
    goal: "Browse the Loop feed (benchmark)",
    agent: { name: "bench", kind: "headless", capabilities: ["phone"] },
    config: { maxStepsPerTodo: STEPS + 10, maxStepsPerRun: STEPS + 10 },
    onEvent: (e) => {
      if (e.type === "step") steps.push(e);
    },
  },
);
const wall = performance.now() - started;
await server.stop();
await device.close();
await phone.stop();

const executed = steps.filter((s) => s.promptTokens > 0).slice(0, STEPS);
const overhead = executed.map((s) => s.overheadMs);
const modelMs = executed.map((s) => s.modelMs);
const tokens = executed.map((s) => s.promptTokens);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
console.log(`run ${out.runId}: ${out.status}, ${executed.length} executor steps in ${(wall / 1000).toFixed(1)} s`);
console.log(`model wait (scripted, loopback HTTP): p50 ${percentile(modelMs, 50).toFixed(1)} ms`);
console.log(`overhead: min ${Math.min(...overhead).toFixed(1)} ms, mean ${mean(overhead).toFixed(1)} ms, max ${Math.max(...overhead).toFixed(1)} ms`);
const phaseNames = [...new Set(executed.flatMap((s) => Object.keys(s.phases ?? {})))];
console.log(`where the time goes (p50 per step): ${phaseNames.map((n) => `${n} ${percentile(executed.map((s) => s.phases?.[n] ?? 0), 50).toFixed(1)} ms`).join(", ")}`);
console.log(`overhead_p50_ms=${Math.round(percentile(overhead, 50))} overhead_p95_ms=${Math.round(percentile(overhead, 95))} input_tokens_per_step=${Math.round(mean(tokens))}`);
