// `npm run bench -- recover`: the headless worker (`npm run agent`, its own process) works a long run on the virtual
// phone over real ADB (TCP), its state written through the API (its own process) to a durable Postgres; the model is
// a scripted OpenAI-compatible server. Twenty times, at a random step and a random moment within it, the worker is
// SIGKILLed and started again with the same agent id and `--run-id`. Measured: kill → the first new step row in
// Postgres (process start, reconnecting the phone, taking its own lease over, resuming from the checkpoint). The
// first worker's start makes the launcher's bundle when the sources changed; restarts find it made. Counted
// from the core's step rows and action evidence at the end: steps repeated (an index recorded or acted on twice)
// and steps lost (an index missing from 0…last, or an action without its step).
// Optional arguments: `--kills <n>` (default 20) and `--seed <n>` (the kill schedule; default 1).
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { act, planOf, startScriptedModelServer } from "@phoneloop/agent/testing";
import { NodeCredentialStore } from "@phoneloop/device/node";
import { percentile, root, startBenchCore, startProcess } from "./support/stack.ts";

const { values: flags } = parseArgs({ options: { kills: { type: "string", default: "20" }, seed: { type: "string", default: "1" } } });
const KILLS = Number(flags.kills);
const AGENT_ID = "bench-recover-worker";

/** mulberry32: the kill schedule is reproducible from --seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(Number(flags.seed));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const { dir, pg, db, api, apiUrl, issueToken } = await startBenchCore("recover");
const agentToken = await issueToken("bench recover");
// The worker's adbkey (ANDROID_USER_HOME) is one the phone already lists in adb_keys, as a phone that allowed it.
new NodeCredentialStore({ path: join(dir, "adbkey") }).generateKey();
const phone = await startProcess(
  ["packages/virtual-phone/src/cli.ts", "--scenario", "social", "--seed", "3", "--adb-port", "0", "--ws-port", "0", "--control-port", "0", "--adb-keys", join(dir, "adbkey.pub")],
  {},
  /adb connect [^:\s]+:(\d+)/,
);
const device = `tcp:127.0.0.1:${phone.match[1]}`;

// Twenty todos of short waits (a todo's step cap is 50; twenty kills take about as many steps): every sixth executor
// answer completes the todo at hand; once the drill is over every answer does, and the run completes.
let drillOver = false;
let asked = 0;
const todos = Array.from({ length: 20 }, (_, k) => ({ id: `wait-${k + 1}`, title: `Wait on the phone, round ${k + 1}` }));
const models = await startScriptedModelServer({
  rules: [
    { match: (r) => r.model === "planner", replies: [planOf(todos)], repeatLast: true },
    {
      match: (r) => r.model === "executor",
      replies: [() => (drillOver || ++asked % 6 === 0 ? act({ type: "status", status: "complete", summary: "this round is over" }) : act({ type: "wait", ms: 30 }))],
      repeatLast: true,
    },
    { match: (r) => r.model === "summarizer", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Recovered from every kill." }) }], repeatLast: true },
  ],
});

interface Worker {
  proc: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}
function startWorker(args: string[]): Worker {
  // `npm run agent`: node runs the worker's launcher, which runs its bundle in the same process (the one SIGKILLed).
  const proc = spawn(
    process.execPath,
    ["packages/cli/bin/agent.mjs", ...args, "--agent-id", AGENT_ID, "--device", device, "--api-url", apiUrl, "--base-url", models.baseURL, "--planner-model", "planner", "--executor-model", "executor", "--summarizer-model", "summarizer", "--max-steps", "100000"],
    { cwd: root, env: { ...process.env, ANDROID_USER_HOME: dir, OPENAI_API_KEY: "bench", PHONELOOP_AGENT_TOKEN: agentToken, PHONELOOP_API_URL: "", PHONELOOP_AGENT_ID: "" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  return { proc, out: () => out, exited };
}

const stepCount = (runId: string) => db.step.count({ where: { runId } });
/** Polls Postgres every 5 ms until the run has more than `n` step rows; the moment it saw it. */
async function firstStepAfter(runId: string, n: number, worker: Worker): Promise<number> {
  let exited: number | null | undefined;
  void worker.exited.then((c) => (exited = c));
  for (;;) {
    if ((await stepCount(runId)) > n) return performance.now();
    if (exited !== undefined) throw new Error(`the worker exited (${exited}) before its first step:\n${worker.out()}`);
    await sleep(5);
  }
}

const resumeMs: number[] = [];
let runId = "";
let worker: Worker | undefined;
try {
  worker = startWorker(["--goal", "Wait on the phone until told to stop (benchmark)"]);
  for (;;) {
    const m = /^run (\S+) \(goal \S+\)/m.exec(worker.out());
    if (m) {
      runId = m[1]!;
      break;
    }
    if (worker.proc.exitCode !== null) throw new Error(`the worker exited before it started its run:\n${worker.out()}`);
    await sleep(20);
  }
  await firstStepAfter(runId, 0, worker);

  for (let k = 1; k <= KILLS; k++) {
    // A random step 1–4 steps ahead, then a random moment inside the step after it (model call, action, writes).
    const target = (await stepCount(runId)) + 1 + Math.floor(random() * 4);
    while ((await stepCount(runId)) < target) {
      if (worker.proc.exitCode !== null) throw new Error(`the worker exited (${worker.proc.exitCode}) on its own:\n${worker.out()}`);
      await sleep(5);
    }
    await sleep(Math.floor(random() * 150));
    worker.proc.kill("SIGKILL");
    const killedAt = performance.now();
    await worker.exited;
    worker = startWorker(["--run-id", runId]);
    // A write the killed worker had sent may still land: only steps after the restarted worker's first line
    // ("run … resumed", printed before its first step) are its own.
    const w = worker;
    await new Promise<void>((resolve, reject) => {
      w.proc.stdout!.once("data", () => resolve());
      void w.exited.then((code) => reject(new Error(`the restarted worker exited (${code}) before it resumed:\n${w.out()}`)));
    });
    const resumedAt = performance.now();
    const before = await stepCount(runId);
    const first = await firstStepAfter(runId, before, worker);
    resumeMs.push(first - killedAt);
    console.log(`kill ${k}: after step ${before}; the restarted worker said "resumed" at ${Math.round(resumedAt - killedAt)} ms, its first new step was in Postgres at ${Math.round(first - killedAt)} ms`);
  }
  drillOver = true;
  const code = await worker.exited;
  if (code !== 0) throw new Error(`the last worker ended with exit code ${code}:\n${worker.out()}`);

  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true, endReason: true } });
  const steps = await db.step.findMany({ where: { runId }, select: { index: true } });
  const actions = await db.evidence.findMany({ where: { runId, kind: "action" }, select: { stepIndex: true } });
  const indexes = steps.map((s) => s.index);
  const last = Math.max(...indexes);
  const recorded = new Set(indexes);
  const acted = new Map<number, number>();
  for (const a of actions) if (a.stepIndex !== null) acted.set(a.stepIndex, (acted.get(a.stepIndex) ?? 0) + 1);
  const repeated = indexes.length - recorded.size + [...acted.values()].reduce((n, c) => n + (c - 1), 0);
  let lost = 0;
  for (let i = 0; i <= last; i++) if (!recorded.has(i)) lost++;
  for (const i of acted.keys()) if (!recorded.has(i)) lost++;
  console.log(`run ${runId}: ${run.status} (${run.endReason}), ${indexes.length} step rows (indexes 0–${last}), ${actions.length} action records, ${KILLS} kills`);
  console.log(`kill → first new step: min ${Math.round(Math.min(...resumeMs))} ms, max ${Math.round(Math.max(...resumeMs))} ms (machine load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`);
  console.log(`resume_p50_ms=${Math.round(percentile(resumeMs, 50))} resume_p95_ms=${Math.round(percentile(resumeMs, 95))} repeated_steps=${repeated} lost_steps=${lost}`);
} finally {
  if (worker && worker.proc.exitCode === null) {
    worker.proc.kill("SIGKILL");
    await worker.exited;
  }
  await db.$disconnect();
  await models.stop();
  phone.proc.kill("SIGTERM");
  const apiExited = new Promise((r) => api.once("exit", r));
  api.kill("SIGTERM");
  await apiExited;
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
