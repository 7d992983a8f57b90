// Recovery drills against the infrastructure, with `npm run agent` as its own process: the virtual phone over real
// ADB (TCP), a scripted OpenAI-compatible endpoint, the real API on a throwaway database. The API restarts in the
// middle of a run (same port, same database): the worker's client retries across the gap and the run continues with
// no step lost or repeated. Postgres freezes (SIGSTOP) for longer than the worker's lease: the worker's requests time
// out and are retried, its lease lapses, the run is suspended with a summary and the same worker resumes it at once
// (its own todo claimed again under a new epoch), no step lost or repeated. Afterwards the board, the attention
// queue and the run view say what happened.
// (recovery.e2e.test.ts has the worker-side drills: SIGKILL mid-step, model 500s, quota, unplugging.)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPEATED_WAITS_MAX } from "@phoneloop/agent";
import { act, startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { createApiServer, type ApiServer } from "@phoneloop/api";
import { createApiClient, readAllPages } from "@phoneloop/client";
import { applyMigrations, createDb, issueAgentToken, startEmbeddedPostgres } from "@phoneloop/state";
import { seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { adbKeyDir, spawnWorker, until, type AdbKeyDir, type WorkerProcess } from "../testing/worker-process.ts";


const t = useTestDatabase();
let api: ApiServer;
let phone: VirtualPhone;
let keys: AdbKeyDir;
let token: string;

const startApi = (port = 0) => createApiServer({ db: t.db, databaseUrl: t.url, port, host: "127.0.0.1" });

beforeAll(async () => {
  api = await startApi();
  const { workspace, admin } = await seedWorkspace(t.db);
  token = (await issueAgentToken(t.db, { workspaceId: workspace.id, name: "drilled worker", issuedBy: admin.id })).token;
  keys = adbKeyDir();
  phone = await startVirtualPhone({ seed: 7, adbKeys: [keys.publicKey] });
});
afterAll(async () => {
  await phone?.stop();
  await api?.close();
  keys?.remove();
});

function worker(models: ScriptedModelServer, ...args: string[]): WorkerProcess {
  return workerOn({ apiUrl: api.url, token }, models, ...args);
}

function workerOn(on: { apiUrl: string; token: string }, models: ScriptedModelServer, ...args: string[]): WorkerProcess {
  const flags = ["--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", on.apiUrl, "--base-url", models.baseURL, "--planner-model", "planner-model", "--executor-model", "executor-model", "--summarizer-model", "summarizer-model"];
  return spawnWorker({ keysDir: keys.dir, agentToken: on.token, args: [...args, ...flags] });
}

/** The server processes of one Postgres cluster: its postmaster (postmaster.pid) and every process it started. */
function clusterProcesses(dataDir: string): number[] {
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after its closing parenthesis.
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

describe("infrastructure drills", () => {
  it("the API restarts mid-run: the run continues on the restarted API, no step lost or repeated; board, queue and run view say it completed", async () => {
    const wait = act({ type: "wait", ms: 50 });
    let answerThird!: () => void;
    const thirdAnswered = new Promise<void>((resolve) => (answerThird = resolve));
    const models = await startScriptedModelServer({
      rules: [
        { match: (r) => r.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "wait", todos: [{ id: "wait", title: "Wait for the phone five times", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
        // The third step's model answer comes while the API is down: its step must still be recorded, once.
        { match: (r) => r.model === "executor-model", replies: [wait, wait, () => (answerThird(), { ...act({ type: "wait", ms: 50 }), delayMs: 1_500 }), wait, wait, act({ type: "status", status: "complete", summary: "waited" })] },
        { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: ["waited"], conclusion: "Waited five times." }) }], repeatLast: true },
      ],
    });
    try {
      const w = worker(models, "--goal", "Wait for the phone five times", "--agent-id", "worker-api-restart");
      const [, runId, goalId] = /^run (\S+) \(goal (\S+)\)/.exec(await until(() => w.stdout().includes("\n") && w.stdout().split("\n")[0]))!;
      await thirdAnswered;
      // Down while the worker waits for the model, and still down when the answer arrives and the step is written.
      const port = api.port;
      await api.close();
      await new Promise((r) => setTimeout(r, 3_000));
      api = await startApi(port);

      expect(await w.exited, w.stderr()).toBe(0);
      expect(w.stdout()).toMatch(new RegExp(`^run ${runId}: completed`, "m"));
      const run = await t.db.run.findUniqueOrThrow({ where: { id: runId! }, include: { steps: { orderBy: { index: "asc" } } } });
      expect(run.status).toBe("completed");
      // Six model answers — five waits, each followed by REPEATED_WAITS_MAX repeated waits on the still phone, and the
      // status — each step once, in order (the third answer's was written across the restart).
      expect(run.steps.map((s) => s.index)).toEqual(Array.from({ length: 5 * (REPEATED_WAITS_MAX + 1) + 1 }, (_, i) => i));
      const actions = await t.db.evidence.findMany({ where: { runId, kind: "action" } });
      const actionSteps = actions.map((e) => e.stepIndex);
      expect(new Set(actionSteps).size).toBe(actionSteps.length);
      // The gap is explained: the outage the worker rode out is an evidence row naming what failed, for how long
      // (from the first failed attempt's start to the answer) and how often the call was tried again.
      const outages = (await t.db.evidence.findMany({ where: { runId, kind: "anomaly" } })).filter((e) => (e.data as { fault?: string }).fault === "outage");
      expect(outages.length).toBeGreaterThan(0);
      for (const o of outages) {
        expect(o.data).toMatchObject({ fault: "outage", outcome: "recovered", procedure: expect.any(String), cause: expect.any(String), durationMs: expect.any(Number), attempts: expect.any(Number) });
        const d = o.data as { attempts: number; retried: number; procedure: string };
        expect(d.retried).toBe(d.attempts - 1);
        expect(d.retried).toBeGreaterThan(0);
        expect(o.summary).toMatch(new RegExp(`^The state core did not answer ${d.procedure.replace(".", "\\.")} for \\d+\\.\\d s \\(`));
      }
      const runSpent = (await t.db.quotaSpend.aggregate({ where: { runId }, _sum: { steps: true } }))._sum.steps ?? 0;
      const goalSpent = (await t.db.quotaSpend.aggregate({ where: { goalId }, _sum: { steps: true } }))._sum.steps ?? 0;
      expect(goalSpent).toBeGreaterThan(0);

      // What the product says afterwards, read through the API as the team reads it.
      const reader = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
      const board = await reader.board.get.query({ goalId: goalId! });
      const card = board.lanes.flatMap((l) => l.cards)[0]!;
      expect(card.state).toBe("done");
      expect(card.latestRun).toMatchObject({ id: runId, status: "completed" });
      expect(board.runs.find((r) => r.id === runId)).toMatchObject({ status: "completed", spent: { steps: runSpent } });
      expect(board.spent.steps).toBe(goalSpent);
      const attention = await readAllPages((cursor) => reader.board.attention.query({ goalId: goalId!, cursor }));
      expect(attention.filter((a) => a.kind === "run_interrupted" || a.kind === "lease_expired")).toEqual([]);
      expect((await reader.run.get.query({ runId: runId! })).spent.steps).toBe(runSpent);
    } finally {
      await models.stop();
    }
  }, 180_000);

  it("Postgres freezes longer than the lease: requests time out and are retried, the run is suspended with a summary and the same worker resumes it under a new epoch, no step lost or repeated", async () => {
    // Its own Postgres cluster: freezing the shared test server would freeze every other test file.
    const dir = mkdtempSync(join(tmpdir(), "phoneloop-freeze-"));
    const dataDir = join(dir, "data");
    const pg = await startEmbeddedPostgres({ dataDir, ephemeral: true, fast: true });
    const url = pg.urlFor("postgres");
    await applyMigrations(url);
    const db = createDb(url, { max: 4 });
    // With the reaper, as `npm start` runs the API: once Postgres is back it may mark the silent worker's run
    // interrupted before the worker writes again; the worker takes it back all the same.
    const frozenApi = await createApiServer({ db, databaseUrl: url, port: 0, host: "127.0.0.1", reaper: { intervalMs: 250, agentStaleMs: 1_000 } });
    const { workspace, admin } = await seedWorkspace(db);
    const freezeToken = (await issueAgentToken(db, { workspaceId: workspace.id, name: "frozen worker", issuedBy: admin.id })).token;
    const LEASE_TTL_MS = 3_000;
    const wait = act({ type: "wait", ms: 50 });
    let thirdAsked!: () => void;
    const third = new Promise<void>((resolve) => (thirdAsked = resolve));
    const models = await startScriptedModelServer({
      rules: [
        { match: (r) => r.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "wait", todos: [{ id: "wait", title: "Wait for the phone five times", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
        // The third step's answer comes as Postgres freezes: its writes wait, time out, are retried, and meet a lapsed lease.
        { match: (r) => r.model === "executor-model", replies: [wait, wait, () => (thirdAsked(), { ...act({ type: "wait", ms: 50 }), delayMs: 300 }), wait, wait, wait, act({ type: "status", status: "complete", summary: "waited" })], repeatLast: true },
        { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: ["waited"], conclusion: "Waited five times." }) }], repeatLast: true },
      ],
    });
    let frozen: number[] = [];
    const thaw = () => {
      for (const pid of [...frozen].reverse()) process.kill(pid, "SIGCONT");
      frozen = [];
    };
    try {
      const agentId = "worker-pg-freeze";
      const w = workerOn({ apiUrl: frozenApi.url, token: freezeToken }, models, "--goal", "Wait for the phone five times", "--agent-id", agentId, "--lease-ttl-ms", String(LEASE_TTL_MS), "--api-timeout-ms", "1000");
      const [, runId, goalId] = /^run (\S+) \(goal (\S+)\)/.exec(await until(() => w.stdout().includes("\n") && w.stdout().split("\n")[0]))!;
      await third;
      frozen = clusterProcesses(dataDir);
      for (const pid of frozen) process.kill(pid, "SIGSTOP");
      // Longer than the lease: whatever the worker renewed last has lapsed when Postgres is back.
      await new Promise((r) => setTimeout(r, LEASE_TTL_MS + 2_000));
      thaw();

      expect(await w.exited, w.stderr()).toBe(0);
      expect(w.stdout()).toMatch(new RegExp(`^run ${runId}: completed`, "m"));
      // The worker's requests timed out on its side and were retried; then the run was suspended, not ended.
      expect(w.stderr()).toMatch(/the API did not answer \S+ \(ETIMEDOUT\)/);
      expect(w.stderr()).toMatch(/! suspended: /);

      const run = await db.run.findUniqueOrThrow({ where: { id: runId! }, include: { steps: { orderBy: { index: "asc" } } } });
      expect(run.status).toBe("completed");
      // Each step once, in order: the step the freeze caught was taken again from its checkpoint, never twice.
      const indexes = run.steps.map((s) => s.index);
      expect(indexes).toEqual(indexes.map((_, i) => i));
      expect(indexes.length).toBeGreaterThanOrEqual(6);
      const actionSteps = (await db.evidence.findMany({ where: { runId, kind: "action" } })).map((e) => e.stepIndex);
      expect(new Set(actionSteps).size).toBe(actionSteps.length);
      for (const i of actionSteps) expect(indexes).toContain(i);

      // The same agent claimed its own todo again at once, under a new epoch; the old epoch's late write was rejected.
      const todo = await db.todo.findFirstOrThrow({ where: { goalId: goalId! } });
      expect(todo.state).toBe("done");
      const leases = await db.lease.findMany({ where: { todoId: todo.id }, orderBy: { epoch: "asc" } });
      expect(leases.length).toBeGreaterThanOrEqual(2);
      expect(new Set(leases.map((l) => l.ownerId))).toEqual(new Set([agentId]));
      expect(leases[0]).toMatchObject({ epoch: 1, status: "expired" });

      // What the team reads: the suspension as a typed evidence row of the run, with what happened in words.
      const reader = createApiClient({ apiUrl: frozenApi.url, auth: { kind: "token", token: freezeToken } });
      const anomalies = await readAllPages((cursor) => reader.evidence.list.query({ goalId: goalId!, runId: runId!, kind: "anomaly", cursor }));
      const suspended = anomalies.filter((e) => (e.data as { fault?: string }).fault === "suspended");
      expect(suspended.length).toBeGreaterThanOrEqual(1);
      expect(suspended[0]!.data).toMatchObject({ fault: "suspended", node: "executor", todoId: todo.id });
      // Whichever came first after the thaw: the worker's write meeting its lapsed lease, or the reaper.
      const { cause, error } = suspended[0]!.data as { cause: string; error: string };
      expect(error).toMatch(cause === "lease_expired" ? /rejected: your lease (expired|was expired)/ : /it is interrupted/);
      expect(["lease_expired", "run_interrupted"]).toContain(cause);
      expect(suspended[0]!.summary).toMatch(/^Suspended: .*resumed the run from its last checkpoint/);
      const board = await reader.board.get.query({ goalId: goalId! });
      expect(board.lanes.flatMap((l) => l.cards)[0]).toMatchObject({ state: "done", latestRun: { id: runId, status: "completed" } });
      expect((await reader.run.get.query({ runId: runId! })).status).toBe("completed");
    } finally {
      thaw();
      await models.stop();
      await frozenApi.close();
      await db.$disconnect();
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
