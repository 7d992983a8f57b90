// `npm run bench -- recover`: does a run that is killed and resumed do on the phone exactly what it meant to? The
// headless worker (`npm run agent`, its own process) works a task whose phone counts what was done: the counter
// scenario on the virtual phone (its own process, over real ADB), a scripted model (an OpenAI-compatible server)
// that taps "+" until the screen reads N and then says the task is complete, the run's state written through the
// API (its own process) to a durable Postgres. The worker is SIGKILLed and started again with `--run-id` at each
// moment of a step, one run per moment:
//   model_call    while the model is being asked (the answer never comes)
//   model_answer  just after the model answered a tap (0–20 ms later)
//   tap_in_flight the tap has reached the phone and has not run yet (the phone holds it until the worker is dead)
//   tap_landed    the tap ran and the step is not recorded yet (the phone holds the command after it)
//   recorded      the tap's step row has just reached Postgres
// and on a lagging phone (the virtual phone's "lagging" latency profile: each input command takes 2.5 s, reads as on
// a mid-range phone), killed 300 ms after the last tap reached it. That tap is held until the next worker's first
// command reaches the phone and then takes its 2.5 s, so it lands after the next worker first looks at the screen
// however long the restart took on a loaded machine (unless that worker asks the phone what is still running). At the end of each run the phone's own count (the
// counter app's state, not anything the core recorded) is compared with N: repeated_effects sums the count above N
// over the runs, lost_effects the count below N (a run that did not complete loses what it did not do).
// resume_p50_ms / resume_p95_ms: kill → the first new step row in Postgres, over the kills on the full-speed phone
// (process start, reconnecting the phone, taking its own lease over, resuming from the checkpoint); the lagging
// phone's resumes are printed on their own line, its reads and taps being slow by design.
// Optional arguments: `--kills <n>` on the full-speed phone (default 20, shared among the five moments),
// `--lagging-kills <n>` (default 5, one run each), `--seed <n>` (where in a run each kill falls; default 1) and
// `--trace` (every command the phone starts, every model call and kill, as they happen).
import { fork, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { act, planOf, startScriptedModelServer, type RecordedRequest, type ScriptedReply } from "@phoneloop/agent/testing";
import { NodeCredentialStore } from "@phoneloop/device/node";
import type { CounterEvent, CounterReady, CounterReply, CounterRequest } from "./support/counter-phone.ts";
import { percentile, root, startBenchCore } from "./support/stack.ts";

const { values: flags } = parseArgs({ options: { kills: { type: "string", default: "20" }, "lagging-kills": { type: "string", default: "5" }, seed: { type: "string", default: "1" }, trace: { type: "boolean", default: false } } });
const KILLS = Number(flags.kills);
const LAGGING_KILLS = Number(flags["lagging-kills"]);
if (!Number.isInteger(KILLS) || KILLS < 0 || !Number.isInteger(LAGGING_KILLS) || LAGGING_KILLS < 0) {
  console.error("bench recover: --kills and --lagging-kills take a whole number (0 or more)");
  process.exit(2);
}
const AGENT_ID = "bench-recover-worker";
const LAGGING_KILL_AFTER_MS = 300;
/** A run that has made no progress (no step row, no phone command) for this long is reported as stuck. */
const STUCK_MS = 120_000;

const MOMENTS = ["model_call", "model_answer", "tap_in_flight", "tap_landed", "recorded"] as const;
type Moment = (typeof MOMENTS)[number] | "lagging";

/** mulberry32: where the kills fall is reproducible from --seed. */
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
const t0 = performance.now();
/** --trace: every command the phone starts, every model call and kill, in milliseconds since the bench started. */
const trace = (what: string) => flags.trace && console.log(`    ${String(Math.round(performance.now() - t0)).padStart(7)} ms  ${what}`);

interface Drill {
  moment: Moment;
  /** The count the run means to reach. */
  n: number;
  /** The counts at which the kills fall, ascending: kill i when the screen reads killAt[i] at the chosen moment. */
  killAt: number[];
}

// Full-speed phone: the kills shared among the five moments, one run per moment; kill i falls at the moment's first
// occasion once the screen reads 2i or 2i+1 (drawn from the seed), so the kills spread over the run.
const drills: Drill[] = [];
MOMENTS.forEach((moment, m) => {
  const kills = Math.floor(KILLS / MOMENTS.length) + (m < KILLS % MOMENTS.length ? 1 : 0);
  if (kills > 0) drills.push({ moment, n: 2 * kills + 1, killAt: Array.from({ length: kills }, (_, i) => 2 * i + (random() < 0.5 ? 0 : 1)) });
});
// Lagging phone: two taps, killed 300 ms after the last one reached the phone.
for (let k = 0; k < LAGGING_KILLS; k++) drills.push({ moment: "lagging", n: 2, killAt: [1] });

const core = await startBenchCore("recover");
const { dir, db, apiUrl, issueToken } = core;
const agentToken = await issueToken("bench recover");
// The worker's adbkey (ANDROID_USER_HOME) is one the phone already lists in adb_keys, as a phone that allowed it.
new NodeCredentialStore({ path: join(dir, "adbkey") }).generateKey();

// ---------- the phones ----------
type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;
interface CounterPhone {
  device: string;
  request(req: WithoutId<CounterRequest>): Promise<CounterReply>;
}
/** The drill's events from whichever phone the current run drives. */
let onPhoneEvent: (e: CounterEvent) => void = () => {};
async function startCounterPhone(latency: "none" | "lagging"): Promise<CounterPhone> {
  const proc = fork(fileURLToPath(new URL("./support/counter-phone.ts", import.meta.url)), [JSON.stringify([readFileSync(join(dir, "adbkey.pub"), "utf8")]), latency], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = await new Promise<CounterReady>((resolve, reject) => {
    proc.once("message", (m) => resolve(m as CounterReady));
    proc.once("exit", (code) => reject(new Error(`bench recover: the virtual phone exited (${code}) before it was ready`)));
  });
  let nextId = 1;
  const pending = new Map<number, (r: CounterReply) => void>();
  proc.on("message", (m: CounterReply | CounterEvent) => {
    if ("id" in m) {
      pending.get(m.id)?.(m);
      pending.delete(m.id);
    } else onPhoneEvent(m);
  });
  return {
    device: `tcp:127.0.0.1:${ready.adbPort}`,
    request: (req) => {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        proc.send({ ...req, id });
      });
    },
  };
}
// Both phones trust the worker's key; each run drives one of them (the lagging phone is "lagging" from its start).
const phones = { none: await startCounterPhone("none"), lagging: await startCounterPhone("lagging") };
let phone = phones.none;

// ---------- the model ----------
/** The count the executor's screen shows (its element list names the counter's text). */
function countOnScreen(req: RecordedRequest): number {
  const m = /"Count: (\d+)"/.exec(req.lastUserText);
  if (!m) throw new Error(`bench recover: the executor's prompt shows no counter; is the counter app in front?\n${req.lastUserText.slice(0, 2000)}`);
  return Number(m[1]);
}

let drill: Drill = drills[0]!;
let nextKill = 0;
/** Called when the model is asked while the screen reads `count`; returns whether the kill falls during this call. */
let onExecutorAsked: (count: number) => "hang" | "answer" = () => "answer";
const models = await startScriptedModelServer({
  rules: [
    { match: (r) => r.model === "planner", replies: [() => planOf([{ id: "count", title: `Tap + until the counter reads ${drill.n}` }]) as ScriptedReply], repeatLast: true },
    {
      match: (r) => r.model === "executor",
      replies: [
        (req) => {
          const count = countOnScreen(req);
          if (count >= drill.n) return act({ type: "status", status: "complete", summary: `The counter reads ${count}.` });
          if (onExecutorAsked(count) === "hang") return { hang: true };
          return act({ type: "click", element: "plus", intent: "add one to the counter" });
        },
      ],
      repeatLast: true,
    },
    { match: (r) => r.model === "summarizer", replies: [{ text: JSON.stringify({ findings: [], conclusion: "The counter was tapped up to its target." }) }], repeatLast: true },
  ],
});

// ---------- the worker ----------
interface Worker {
  proc: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}
function startWorker(args: string[]): Worker {
  // `npm run agent`: node runs the worker's launcher, which runs its bundle in the same process (the one SIGKILLed).
  const proc = spawn(
    process.execPath,
    ["packages/cli/bin/agent.mjs", ...args, "--agent-id", AGENT_ID, "--device", phone.device, "--api-url", apiUrl, "--base-url", models.baseURL, "--planner-model", "planner", "--executor-model", "executor", "--summarizer-model", "summarizer", "--max-steps", "100000"],
    { cwd: root, env: { ...process.env, ANDROID_USER_HOME: dir, OPENAI_API_KEY: "bench", PHONELOOP_AGENT_TOKEN: agentToken, PHONELOOP_API_URL: "", PHONELOOP_AGENT_ID: "" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  return { proc, out: () => out, exited };
}

const stepCount = (runId: string) => db.step.count({ where: { runId } });

interface Kill {
  moment: Moment;
  /** kill → the first step row the restarted worker wrote. */
  resumeMs: number;
}
const kills: Kill[] = [];
let fullSpeedKills = 0;
let laggingKills = 0;
let repeatedEffects = 0;
let lostEffects = 0;
let worker: Worker | undefined;

/** Works one drill's run to its end; returns the phone's count, the run's status, and the kills done. */
async function runDrill(d: Drill): Promise<{ count: number; status: string; kills: number }> {
  drill = d;
  nextKill = 0;
  phone = d.moment === "lagging" ? phones.lagging : phones.none;
  await phone.request({ op: "reset" });
  let runId = "";
  let lastProgress = performance.now();
  let recovering: Promise<void> | null = null;
  let failure: Error | null = null;
  /** A kill falls due when the screen reads its count and no other kill is on its way. */
  let scheduled = false;
  const due = (count: number) => nextKill < d.killAt.length && count >= d.killAt[nextKill]! && !recovering && !scheduled;
  let releaseOnCommand = false;

  /** SIGKILLs the worker now, lets a held command go on, and starts the next worker on the same run. */
  const kill = (moment: Moment) => {
    scheduled = false;
    if (recovering || !worker) return;
    nextKill++;
    if (moment === "lagging") laggingKills++;
    else fullSpeedKills++;
    const dead = worker;
    dead.proc.kill("SIGKILL");
    const killedAt = performance.now();
    trace(`SIGKILL (${moment})`);
    recovering = (async () => {
      await dead.exited;
      const atKill = (await phone.request({ op: "count" })).count;
      // The phone goes on with a command it holds once its sender is gone, as a phone finishes an input it got;
      // the lagging phone's tap only once the next worker reaches the phone, and then it still takes its 2.5 s.
      if (moment === "lagging") releaseOnCommand = true;
      else await phone.request({ op: "release" });
      while (!runId) await sleep(20);
      const next = startWorker(["--run-id", runId]);
      worker = next;
      // A write the killed worker had sent may still land: only steps after the restarted worker's first line
      // ("run … resumed", printed before its first step) are its own.
      await new Promise<void>((resolve, reject) => {
        next.proc.stdout!.once("data", () => resolve());
        void next.exited.then((code) => reject(new Error(`the restarted worker exited (${code}) before it resumed:\n${next.out()}`)));
      });
      const before = await stepCount(runId);
      for (;;) {
        if ((await stepCount(runId)) > before) break;
        if (next.proc.exitCode !== null) throw new Error(`the restarted worker exited (${next.proc.exitCode}) before its first step:\n${next.out()}`);
        await sleep(5);
      }
      const resumeMs = performance.now() - killedAt;
      kills.push({ moment, resumeMs });
      lastProgress = performance.now();
      console.log(`  kill ${nextKill} (${moment}): the phone read ${atKill} when the worker died; after step ${before}, the restarted worker's first step was in Postgres at ${Math.round(resumeMs)} ms`);
    })()
      .catch((e: unknown) => void (failure ??= e as Error))
      .finally(() => (recovering = null));
  };
  // Where the moment is the model's, the model server kills; where it is the phone's, the phone's events do.
  onExecutorAsked = (count) => {
    trace(`model asked, the screen reads ${count}`);
    lastProgress = performance.now();
    if (d.moment === "model_call" && due(count)) {
      kill("model_call");
      return "hang";
    }
    if (d.moment === "model_answer" && due(count)) {
      scheduled = true;
      setTimeout(() => kill("model_answer"), Math.floor(random() * 20));
    }
    return "answer";
  };
  /** "recorded": the step rows there were when the tap to kill after started; the kill falls when there are more. */
  let rowsAtTap = -1;
  onPhoneEvent = (e) => {
    trace(`phone ${e.op} ${e.argv.join(" ").slice(0, 60)} (count ${e.count})`);
    lastProgress = performance.now();
    if (e.op === "held") {
      if (d.moment === "lagging") setTimeout(() => kill("lagging"), LAGGING_KILL_AFTER_MS);
      else kill(d.moment);
      return;
    }
    if (releaseOnCommand) {
      releaseOnCommand = false;
      void phone.request({ op: "release" });
    }
    const isTap = e.argv[0] === "input";
    switch (d.moment) {
      case "tap_in_flight":
      case "tap_landed":
      case "lagging":
        // Once the screen reads the kill's count, the phone holds the next tap (or the command after it).
        if (due(e.count)) {
          scheduled = true;
          void phone.request({ op: "hold", at: d.moment === "tap_landed" ? "after-input" : "input" });
        }
        break;
      case "recorded":
        if (isTap && due(e.count)) {
          scheduled = true;
          void stepCount(runId).then((n) => (rowsAtTap = n));
        }
        break;
    }
  };

  worker = startWorker(["--goal", `Tap + until the counter reads ${d.n} (benchmark)`]);
  for (;;) {
    const m = /^run (\S+) \(goal \S+\)/m.exec(worker.out());
    if (m) {
      runId = m[1]!;
      break;
    }
    if (worker.proc.exitCode !== null) throw new Error(`the worker exited before it started its run:\n${worker.out()}`);
    await sleep(20);
  }
  // "recorded": the tap's step row reaching Postgres is watched for here, every 5 ms.
  let counting = false;
  const watch = setInterval(() => {
    if (rowsAtTap < 0 || counting) return;
    counting = true;
    void stepCount(runId)
      .then((n) => {
        if (rowsAtTap >= 0 && n > rowsAtTap) {
          rowsAtTap = -1;
          kill("recorded");
        }
      })
      .finally(() => (counting = false));
  }, 5);
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    const check = () => {
      if (performance.now() - lastProgress > STUCK_MS) reject(new Error(`it made no progress for ${STUCK_MS / 1000} s:\n${worker?.out() ?? ""}`));
      else timer = setTimeout(check, 1000);
    };
    timer = setTimeout(check, 1000);
  });
  // A run that cannot go on (a worker that cannot resume, no progress) ends its drill: what the phone counted by
  // then is compared with N like any other run's, and the next drill starts.
  try {
    for (;;) {
      const w: Worker = worker!;
      const code = await Promise.race([w.exited, stuck]);
      if (recovering) await Promise.race([recovering, stuck]);
      if (failure) throw failure;
      if (recovering || w !== worker) continue;
      if (code !== 0) console.log(`  the worker ended with exit code ${code}: ${w.out().trim().split("\n").slice(-3).join(" | ")}`);
      break;
    }
  } catch (e) {
    console.log(`  run ${runId} (${d.moment}) could not go on: ${(e as Error).message.trim().split("\n").slice(0, 4).join(" | ")}`);
    if (worker && worker.proc.exitCode === null) {
      worker.proc.kill("SIGKILL");
      await worker.exited;
    }
    await phone.request({ op: "release" });
  } finally {
    clearInterval(watch);
    clearTimeout(timer);
  }
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true, endReason: true } });
  const { count } = await phone.request({ op: "count" });
  return { count, status: `${run.status}${run.endReason ? ` (${run.endReason})` : ""}`, kills: nextKill };
}

const started = performance.now();
try {
  for (const d of drills) {
    const r = await runDrill(d);
    repeatedEffects += Math.max(0, r.count - d.n);
    lostEffects += Math.max(0, d.n - r.count);
    console.log(`${d.moment}: meant ${d.n}, the phone counted ${r.count}, ${r.kills} kill(s), run ${r.status}`);
  }
  const full = kills.filter((k) => k.moment !== "lagging").map((k) => k.resumeMs);
  const lagged = kills.filter((k) => k.moment === "lagging").map((k) => k.resumeMs);
  const ms = (xs: number[]) => (xs.length ? `min ${Math.round(Math.min(...xs))} ms, max ${Math.round(Math.max(...xs))} ms` : "none");
  console.log(`kill → first new step: full-speed phone ${ms(full)}; lagging phone ${ms(lagged)} (machine load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores, ${Math.round((performance.now() - started) / 1000)} s in all)`);
  const p = (q: number) => (full.length ? Math.round(percentile(full, q)) : NaN);
  console.log(`resume_p50_ms=${p(50)} resume_p95_ms=${p(95)} repeated_effects=${repeatedEffects} lost_effects=${lostEffects} kills=${fullSpeedKills} lagging_kills=${laggingKills}`);
} finally {
  if (worker && worker.proc.exitCode === null) {
    worker.proc.kill("SIGKILL");
    await worker.exited;
  }
  await models.stop();
  for (const p of Object.values(phones)) await p.request({ op: "stop" }).catch(() => undefined);
  await core.stop();
}
