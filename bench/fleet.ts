// `npm run bench -- fleet`: many phones on one state core. One Postgres (embedded and durable, or a fresh database
// on the server DATABASE_URL names), K API processes (the real server, each its own process and pool of
// DATABASE_POOL_MAX), and s3rver (its own process) as the blob store. N simulated agents, each with its own agent
// token and its own packages/client, spread over the K processes, and V viewers following the workspace's event
// stream (a board's), spread over them too.
//
// What a simulated agent writes is what a real executor step writes, because it is recorded from one: first the
// real headless runtime browses the virtual phone's social app for a few steps (the scripted browsing model, as in
// `bench -- step`) while every ControlPlane call it makes is recorded. Each simulated agent then registers, creates
// its goal with the recorded plan, starts its run, claims the todo and, once per STEP_MS (jittered), replays the next
// recorded step's calls in order — a screenshot upload (the real bytes the phone sent, one per step), the write-ahead
// and the write-back records (evidence, step row, turn result, checkpoint, route), heartbeats and lease renewals —
// with its own run, goal, todo, lease, agent and step index put in. Screens repeat across agents (the recording has
// a handful), and identical bytes are stored once, so the blob store writes less than a fleet of distinct screens
// would; the API still reads and decodes every upload whole.
//
// Levels ramp N (default 25, 50, 100, 200, 400, 800), each held for LEVEL_S seconds after its agents are set up
// (setup is not measured); agents of earlier levels keep stepping. Per level: offered and achieved steps/s, write
// latency (each record's call, p50/p99), errors, the event stream's delivery p99 (commit to a viewer's receipt),
// lost and duplicated events (every viewer must receive each workspace event of the level exactly once), and CPU
// (cores busy) of the API processes, of Postgres and of this process (the simulated agents and viewers, which share
// the machine with what they measure). The knee is the last level that kept up: achieved ≥ 90 % of
// offered, write p99 ≤ 250 ms, no errors, no lost or duplicated events; past it the ramp stops.
//
// Options: --levels 25,50,… --api-processes K --seconds S --viewers V --step-ms MS --pool-max P
// Profiling: BENCH_API_CPU_PROF=<dir> runs each API process under `node --cpu-prof` (bench/support/stack.ts), and
// `npx tsx bench/support/cpu-profile.ts <dir> --from-s S` then sums its main thread's self time per function, file and
// package (past S seconds, i.e. after start and setup); e.g. `BENCH_API_CPU_PROF=/tmp/prof npm run bench -- fleet
// --levels 25,50 --seconds 20`. Image decoding runs on sharp's threads and is not in that profile (`perf` sees it).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { createModels, type ControlPlane } from "@phoneloop/agent";
import { planOf, startScriptedModelServer } from "@phoneloop/agent/testing";
import { runHeadless } from "@phoneloop/cli";
import { createApiClient, createControlPlane, newAgentId, subscribeEvents, type EventSubscription } from "@phoneloop/client";
import { applyMigrations, createDb, issueAgentToken, startEmbeddedPostgres } from "@phoneloop/state";
import { seedWorkspace } from "@phoneloop/state/testing";
import { writeFileSync } from "node:fs";
import { browsingModel } from "./support/browsing-model.ts";
import { percentile, startApi, startProcess, stopProcess } from "./support/stack.ts";

const { values: opt } = parseArgs({
  options: {
    levels: { type: "string", default: "25,50,100,200,400,800" },
    "api-processes": { type: "string", default: "2" },
    seconds: { type: "string", default: "30" },
    viewers: { type: "string", default: "4" },
    "step-ms": { type: "string", default: "5000" },
    "pool-max": { type: "string", default: "20" },
  },
});
const LEVELS = opt.levels.split(",").map(Number);
const K = Number(opt["api-processes"]);
const LEVEL_S = Number(opt.seconds);
const VIEWERS = Number(opt.viewers);
const STEP_MS = Number(opt["step-ms"]);
const POOL_MAX = Number(opt["pool-max"]);
const CAPTURE_STEPS = 14;
/** The knee's bounds: a level keeps up when it achieves this share of its offered steps, within this write p99. */
const KEEPS_UP = 0.9;
const WRITE_P99_MS = 250;
/** How long the stream may take to deliver a level's last events before they count as lost. */
const DRAIN_MS = 5_000;
/** The calls of a step a simulated agent replays; the rest (claims, gates, the run's start and end) it makes itself. */
const REPLAYED = new Set(["recordStep", "heartbeatAgent"]);
/** The runtime's lease life (its config's leaseTtlMs). */
const LEASE_TTL_MS = 120_000;

interface Call {
  method: string;
  args: unknown[];
}

// ── the core: Postgres, s3rver, K API processes ──
const dir = mkdtempSync(join(tmpdir(), "phoneloop-bench-fleet-"));
const external = process.env.DATABASE_URL;
const pg = external ? null : await startEmbeddedPostgres({ dataDir: join(dir, "data"), ephemeral: true, fast: false });
const fleetDb = `phoneloop_fleet_${process.pid}`;
let databaseUrl: string;
if (external) {
  const admin = createDb(external, { max: 1 });
  await admin.$executeRawUnsafe(`CREATE DATABASE "${fleetDb}"`);
  await admin.$disconnect();
  const u = new URL(external);
  u.pathname = `/${fleetDb}`;
  databaseUrl = u.toString();
} else databaseUrl = pg!.urlFor("postgres");
await applyMigrations(databaseUrl);
const db = createDb(databaseUrl, { max: 4 });
const { workspace, admin } = await seedWorkspace(db, "Fleet bench");
const issueToken = async (name: string) => (await issueAgentToken(db, { workspaceId: workspace.id, issuedBy: admin.id, name })).token;

const s3 = await startProcess(["bench/support/s3-process.ts", join(dir, "s3"), "fleet"], {}, /s3 on (http:\/\/127\.0\.0\.1:\d+)/);
const apiEnv = {
  BLOB_STORE: "s3",
  S3_ENDPOINT: s3.match[1]!,
  S3_BUCKET: "fleet",
  S3_ACCESS_KEY_ID: "S3RVER",
  S3_SECRET_ACCESS_KEY: "S3RVER",
  S3_FORCE_PATH_STYLE: "true",
  DATABASE_POOL_MAX: String(POOL_MAX),
  LOG_LEVEL: "warn",
};
const apis = await Promise.all(Array.from({ length: K }, () => startApi(databaseUrl, apiEnv)));

// ── CPU: /proc's utime + stime of the API processes and of every postgres process (with the ended backends
// the postmaster reaped), as cores busy ──
const TICKS = 100; // USER_HZ on Linux
function cpuTicks(pred: (pid: number, ppid: number) => boolean): number {
  let t = 0;
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (!pred(pid, Number(f[1]))) continue;
      // fields 14–17 of stat: utime, stime, and the children's it waited for (the postmaster's ended backends)
      t += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      // the process ended meanwhile
    }
  }
  return t;
}
const apiPids = new Set(apis.map((a) => a.proc.pid!));
// The bench's own Postgres: its postmaster (the first line of postmaster.pid) and the backends it forked.
const postmaster = pg ? Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]) : null;
const cpu = () => ({ bench: cpuTicks((pid) => pid === process.pid), api: cpuTicks((pid) => apiPids.has(pid)), pg: postmaster ? cpuTicks((pid, ppid) => pid === postmaster || ppid === postmaster) : Number.NaN, at: performance.now() });

// ── record a real executor's calls ──
async function capture(): Promise<{ setup: Call[]; steps: Call[][]; shots: { bytes: Uint8Array; mime: string }[]; ids: Record<string, string> }> {
  const creds = new MemoryCredentialStore("fleet@phoneloop");
  const key = await creds.generateKey();
  writeFileSync(join(dir, "adbkey.pub"), adbPublicKeyLine(key.buffer, key.name ?? creds.name));
  const phone = await startProcess(
    ["packages/virtual-phone/src/cli.ts", "--scenario", "social", "--seed", "3", "--adb-port", "0", "--ws-port", "0", "--control-port", "0", "--adb-keys", join(dir, "adbkey.pub")],
    {},
    /adb connect [^:\s]+:(\d+)/,
  );
  const device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: Number(phone.match[1]), credentialStore: creds }));
  const server = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "planner", replies: [planOf([{ id: "browse", title: "Browse the Loop feed" }])] },
      { match: (r) => r.model === "summarizer", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Fleet capture." }) }], repeatLast: true },
      { match: (r) => r.model === "executor", replies: [browsingModel(CAPTURE_STEPS)], repeatLast: true },
    ],
  });
  const calls: Call[] = [];
  const results: { method: string; result: unknown }[] = [];
  const recorder = (cp: ControlPlane): ControlPlane =>
    new Proxy(cp, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== "function") return v;
        return async (...args: unknown[]) => {
          calls.push({ method: String(prop), args: structuredClone(args) });
          const result = await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          results.push({ method: String(prop), result });
          return result;
        };
      },
    });
  try {
    const models = createModels({ executor: { baseURL: server.baseURL, model: "executor" }, planner: { baseURL: server.baseURL, model: "planner" }, summarizer: { baseURL: server.baseURL, model: "summarizer" } });
    const out = await runHeadless({ apiUrl: apis[0]!.url, agentToken: await issueToken("capture"), device, models, goal: "Browse the Loop feed (fleet capture)", agentName: "capture", config: { maxStepsPerTodo: 40, maxStepsPerRun: 40 }, controlPlaneView: recorder, ocr: null });
    if (out.status !== "completed") throw new Error(`the capture run ended ${out.status} (${out.endReason})`);
  } finally {
    await server.stop();
    await device.close().catch(() => undefined);
    await stopProcess(phone.proc);
  }
  const claim = results.find((r) => r.method === "claimNext" && (r.result as { claimed: boolean }).claimed)!.result as { todo: { id: string; goalId: string }; lease: { leaseKey: string; ownerId: string } };
  const run = results.find((r) => r.method === "startRun")!.result as { id: string };
  const ids = { runId: run.id, goalId: claim.todo.goalId, todoId: claim.todo.id, leaseKey: claim.lease.leaseKey, agentId: claim.lease.ownerId };
  const setup = calls.filter((c) => c.method === "replanTodos");
  // Segment the calls into executor steps: each ends with its write-back (the record carrying the executor's step row).
  const steps: Call[][] = [];
  let cur: Call[] = [];
  for (const c of calls) {
    if (!REPLAYED.has(c.method)) continue;
    cur.push(c);
    const rec = c.args[0] as { step?: { node?: string }; todoId?: string };
    if (c.method === "recordStep" && rec.step?.node === "executor") {
      if (rec.todoId === ids.todoId) steps.push(cur);
      cur = [];
    }
  }
  // The screens the phone showed (the runtime uploads a screen once per run; a fleet's phones each show their own).
  const shots = calls.filter((c) => c.method === "putBlob").map((c) => c.args[0] as { bytes: Uint8Array; mime: string });
  // The first step also carries the run's first screens and records; the rest are the steady state.
  return { setup, steps: steps.slice(1), shots, ids };
}

const tpl = await capture();
if (tpl.steps.length < 4) throw new Error(`the capture recorded ${tpl.steps.length} executor steps`);
const tplIndex = (step: Call[]) => ((step.at(-1)!.args[0] as { step: { index: number } }).step.index);
console.log(
  `recorded ${tpl.steps.length} executor steps of a real run: per step ${(tpl.steps.reduce((n, s) => n + s.length, 0) / tpl.steps.length).toFixed(1)} calls (${[...new Set(tpl.steps.flat().map((c) => c.method))].join(", ")})`,
);

// ── simulated agents ──
interface Agent {
  cp: ControlPlane;
  ids: Record<string, string>;
  /** When its lease expires (ms since the epoch): renewed at half its life, as the runtime's route does. */
  leaseExpiresAt: number;
  k: number;
  stop: boolean;
  loop?: Promise<void>;
}
const writes: { at: number; ms: number }[] = [];
const uploads: { at: number; ms: number }[] = [];
const stepsDone: number[] = [];
const errors: { at: number; message: string }[] = [];

/** A recorded value with the template's ids swapped for the agent's, and step `tplIdx`'s keys made step `k`'s. */
function rewrite<T>(value: T, a: Agent, tplIdx: number): T {
  if (value instanceof Uint8Array) return value;
  let s = JSON.stringify(value);
  for (const [name, id] of Object.entries(tpl.ids)) s = s.split(id).join(a.ids[name]!);
  s = s.split(`${a.ids.runId}:${tplIdx}:`).join(`${a.ids.runId}:${a.k}:`);
  const v = JSON.parse(s) as Record<string, unknown>;
  if (v && typeof v === "object") {
    for (const e of (v.evidence as { stepIndex?: number }[] | undefined) ?? []) if (e.stepIndex !== undefined) e.stepIndex = a.k;
    if (v.step && typeof v.step === "object") (v.step as { index: number }).index = a.k;
  }
  return v as T;
}

async function replayStep(a: Agent, step: Call[]): Promise<void> {
  const tplIdx = tplIndex(step);
  if (a.leaseExpiresAt - Date.now() < LEASE_TTL_MS / 2) {
    const lease = await a.cp.renewLease({ todoId: a.ids.todoId!, agentId: a.ids.agentId!, leaseKey: a.ids.leaseKey! }, LEASE_TTL_MS);
    a.leaseExpiresAt = new Date(lease.expiresAt).getTime();
  }
  const u0 = performance.now();
  await a.cp.putBlob(tpl.shots[a.k % tpl.shots.length]!);
  uploads.push({ at: performance.now(), ms: performance.now() - u0 });
  for (const c of step) {
    const args = c.args.map((x) => rewrite(x, a, tplIdx));
    const t0 = performance.now();
    await (a.cp[c.method as keyof ControlPlane] as (...x: unknown[]) => Promise<unknown>)(...args);
    if (c.method === "recordStep") writes.push({ at: performance.now(), ms: performance.now() - t0 });
  }
  stepsDone.push(performance.now());
}

async function startAgent(n: number): Promise<Agent> {
  const apiUrl = apis[n % K]!.url;
  const client = createApiClient({ apiUrl, auth: { kind: "token", token: await issueToken(`fleet-${n}`) } });
  const cp = createControlPlane(client, { apiUrl });
  const { agentId } = await cp.registerAgent({ id: newAgentId(), name: `fleet-${n}`, kind: "headless", capabilities: ["phone"] });
  const goal = await cp.createGoal({ objective: `Browse the Loop feed (fleet agent ${n})` });
  const run = await cp.startRun({ goalId: goal.id, agentId });
  // The recorded plan, its todo ids (made from the run's) the agent's own.
  for (const c of tpl.setup) {
    const s = JSON.stringify(c.args[0]).split(tpl.ids.runId!).join(run.id).split(tpl.ids.goalId!).join(goal.id);
    await cp.replanTodos(JSON.parse(s) as Parameters<ControlPlane["replanTodos"]>[0]);
  }
  const claim = await cp.claimNext({ agentId, goalId: goal.id, ttlMs: LEASE_TTL_MS });
  if (!claim.claimed) throw new Error(`agent ${n} claimed nothing: ${claim.reason}`);
  await cp.startTodo({ todoId: claim.todo.id, agentId, leaseKey: claim.lease.leaseKey });
  return { cp, ids: { runId: run.id, goalId: goal.id, todoId: claim.todo.id, leaseKey: claim.lease.leaseKey, agentId }, leaseExpiresAt: new Date(claim.lease.expiresAt).getTime(), k: 1000, stop: false };
}

function stepLoop(a: Agent): Promise<void> {
  return (async () => {
    await new Promise((r) => setTimeout(r, Math.random() * STEP_MS));
    let next = performance.now();
    while (!a.stop) {
      try {
        await replayStep(a, tpl.steps[a.k % tpl.steps.length]!);
      } catch (e) {
        errors.push({ at: performance.now(), message: e instanceof Error ? e.message : String(e) });
      }
      a.k++;
      next += STEP_MS * (0.8 + 0.4 * Math.random());
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      else next = performance.now();
    }
  })();
}

// ── viewers ──
const seen: Map<string, number>[] = [];
const delivery: { at: number; ms: number }[] = [];
const subs: EventSubscription[] = [];
for (let v = 0; v < VIEWERS; v++) {
  const client = createApiClient({ apiUrl: apis[(v + 1) % K]!.url, auth: { kind: "token", token: await issueToken(`viewer-${v}`) } });
  const mine = new Map<string, number>();
  seen.push(mine);
  await new Promise<void>((resolve, reject) => {
    subs.push(
      subscribeEvents(client, {}, {
        onStarted: resolve,
        onError: reject,
        onEvent: (e) => {
          mine.set(e.id, (mine.get(e.id) ?? 0) + 1);
          delivery.push({ at: performance.now(), ms: Date.now() - new Date(e.createdAt).getTime() });
        },
      }),
    );
  });
}

const maxEventId = async () => (await db.$queryRaw<{ id: bigint | null }[]>`SELECT max("id") AS id FROM "Event" WHERE "workspaceId" = ${workspace.id}`)[0]!.id ?? 0n;

// ── the ramp ──
const agents: Agent[] = [];
interface Row {
  agents: number;
  offered: number;
  achieved: number;
  p50: number;
  p99: number;
  uploadP99: number;
  errors: number;
  deliveryP99: number;
  lost: number;
  dup: number;
  apiCores: number;
  pgCores: number;
  benchCores: number;
}
const rows: Row[] = [];
let knee: Row | null = null;
let totalLost = 0;
let totalDup = 0;
const fmt = (r: Row) =>
  `agents=${r.agents} offered_steps_per_s=${r.offered.toFixed(1)} steps_per_s=${r.achieved.toFixed(1)} write_p50_ms=${Math.round(r.p50)} write_p99_ms=${Math.round(r.p99)} upload_p99_ms=${Math.round(r.uploadP99)} errors=${r.errors} event_p99_ms=${Math.round(r.deliveryP99)} lost_events=${r.lost} dup_events=${r.dup} api_cores=${r.apiCores.toFixed(2)} pg_cores=${Number.isNaN(r.pgCores) ? "n/a" : r.pgCores.toFixed(2)} agents_side_cores=${r.benchCores.toFixed(2)}`;

try {
  for (const level of LEVELS) {
    const batch: Promise<void>[] = [];
    for (let n = agents.length; n < level; n++) {
      batch.push(startAgent(n).then((a) => void agents.push(a)));
      if (batch.length >= 16) await Promise.all(batch.splice(0));
    }
    await Promise.all(batch);
    for (const a of agents) a.loop ??= stepLoop(a);
    // Let the new agents' first steps spread over a step period before the level is measured.
    await new Promise((r) => setTimeout(r, STEP_MS));
    const fromEvent = await maxEventId();
    const c0 = cpu();
    const t0 = performance.now();
    const e0 = errors.length;
    await new Promise((r) => setTimeout(r, LEVEL_S * 1000));
    const t1 = performance.now();
    const c1 = cpu();
    const toEvent = await maxEventId();
    const inWindow = <T extends { at: number }>(xs: T[]) => xs.filter((x) => x.at >= t0 && x.at < t1);
    const w = inWindow(writes).map((x) => x.ms);
    const achieved = inWindow(stepsDone.map((at) => ({ at }))).length / ((t1 - t0) / 1000);
    const levelErrors = errors.length - e0;
    // Every viewer must have every event of the window exactly once: wait for the stream to deliver the last ones.
    const expected = (await db.$queryRaw<{ id: bigint }[]>`SELECT "id" FROM "Event" WHERE "workspaceId" = ${workspace.id} AND "id" > ${fromEvent} AND "id" <= ${toEvent}`).map((r) => String(r.id));
    const drainUntil = performance.now() + DRAIN_MS;
    const missing = () => seen.reduce((n, m) => n + expected.filter((id) => !m.has(id)).length, 0);
    while (missing() > 0 && performance.now() < drainUntil) await new Promise((r) => setTimeout(r, 100));
    const lost = missing();
    const dup = seen.reduce((n, m) => n + expected.filter((id) => (m.get(id) ?? 0) > 1).length, 0);
    totalLost += lost;
    totalDup += dup;
    const secs = (c1.at - c0.at) / 1000;
    const row: Row = {
      agents: level,
      offered: level / (STEP_MS / 1000),
      achieved,
      p50: w.length ? percentile(w, 50) : Number.NaN,
      p99: w.length ? percentile(w, 99) : Number.NaN,
      uploadP99: percentile(inWindow(uploads).map((u) => u.ms), 99) ?? Number.NaN,
      errors: levelErrors,
      deliveryP99: percentile(inWindow(delivery).map((d) => d.ms), 99) ?? Number.NaN,
      lost,
      dup,
      apiCores: (c1.api - c0.api) / TICKS / secs,
      pgCores: (c1.pg - c0.pg) / TICKS / secs,
      benchCores: (c1.bench - c0.bench) / TICKS / secs,
    };
    rows.push(row);
    console.log(`${fmt(row)} (${expected.length} events × ${VIEWERS} viewers)`);
    if (levelErrors) console.log(`  first error: ${errors[e0]!.message}`);
    const keptUp = achieved >= KEEPS_UP * row.offered && row.p99 <= WRITE_P99_MS && levelErrors === 0 && lost === 0 && dup === 0;
    if (!keptUp) break;
    knee = row;
  }
} finally {
  for (const a of agents) a.stop = true;
  await Promise.allSettled(agents.map((a) => a.loop));
  for (const s of subs) s.unsubscribe();
  await db.$disconnect();
  await Promise.all(apis.map((a) => stopProcess(a.proc)));
  await stopProcess(s3.proc);
  if (pg) await pg.stop();
  else {
    const adminDb = createDb(external!, { max: 1 });
    await adminDb.$executeRawUnsafe(`DROP DATABASE IF EXISTS "${fleetDb}" WITH (FORCE)`);
    await adminDb.$disconnect();
  }
  rmSync(dir, { recursive: true, force: true });
}

const past = rows[rows.indexOf(knee!) + 1] ?? (knee ? null : rows[0]);
if (past) console.log(`past the knee (${past.agents} agents): ${fmt(past)}`);
console.log(
  `knee_steps_per_s=${knee ? knee.achieved.toFixed(1) : 0} p99_write_ms_at_knee=${knee ? Math.round(knee.p99) : 0} api_processes=${K} agents_at_knee=${knee?.agents ?? 0} lost_events=${totalLost} dup_events=${totalDup}`,
);
