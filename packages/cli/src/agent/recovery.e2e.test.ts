// Recovery drills with `npm run agent` as its own process: the virtual phone over real ADB (TCP), a scripted
// OpenAI-compatible endpoint, the real API on a throwaway database. A worker SIGKILLed in the middle of a step and
// restarted with the same agent id resumes its run at once (it takes its own lease over, never waiting for it to
// expire), and no step is repeated; three model 500s in a row do not end a run; a quota stops a run exactly at its
// limit; a virtual phone task's score becomes evidence. The run's truth is read back from the state core.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPEATED_WAITS_MAX } from "@phoneloop/agent";
import { act, startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { useApiServer } from "@phoneloop/api/testing";
import { createApiClient, readAllPages } from "@phoneloop/client";
import { issueAgentToken, setQuotaPolicy } from "@phoneloop/state";
import { seedGoal, seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { adbKeyDir, spawnWorker, until, type AdbKeyDir, type WorkerProcess } from "../testing/worker-process.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let phone: VirtualPhone;
let models: ScriptedModelServer;
let keys: AdbKeyDir;
let token: string;
/** A new agent token (a token acts as the one agent it first registered). */
let newToken: () => Promise<string>;
/** The phone's screen does not change: each wait of the model's is followed by REPEATED_WAITS_MAX repeated waits, each a step. */
const PER_WAIT = REPEATED_WAITS_MAX + 1;
const indices = (n: number) => Array.from({ length: n }, (_, i) => i);

beforeAll(async () => {
  const { workspace, admin } = await seedWorkspace(t.db);
  newToken = async () => (await issueAgentToken(t.db, { workspaceId: workspace.id, name: "recovering worker", issuedBy: admin.id })).token;
  token = await newToken();
  keys = adbKeyDir();
  phone = await startVirtualPhone({ seed: 5, adbKeys: [keys.publicKey] });
  const wait = act({ type: "wait", ms: 50 });
  models = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "wait", todos: [{ id: "wait", title: "Wait for the phone five times", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
      // The third executor call never answers: the worker is killed while it waits for the model, mid-step.
      { match: (r) => r.model === "executor-model", replies: [wait, wait, { hang: true }, wait, wait, act({ type: "status", status: "complete", summary: "waited" })] },
      { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: ["waited"], conclusion: "Waited five times." }) }], repeatLast: true },
    ],
  });
});
afterAll(async () => {
  await models?.stop();
  await phone?.stop();
  keys?.remove();
});

function worker(...args: string[]): WorkerProcess {
  return workerWith(token, ...args);
}

function workerWith(agentToken: string, ...args: string[]): WorkerProcess {
  return spawnWorker({ entry: "source", keysDir: keys.dir, agentToken, args, env: { PHONE_CONTROL_TOKEN: phone.controlToken } });
}

describe("recovery drills", () => {
  it("SIGKILL mid-step, restart with the same agent id: resumes at once from its checkpoint, no step repeated", async () => {
    const device = `tcp:127.0.0.1:${phone.adbPort}`;
    const flags = ["--device", device, "--api-url", api.url, "--agent-id", "worker-recover", "--base-url", models.baseURL, "--planner-model", "planner-model", "--executor-model", "executor-model", "--summarizer-model", "summarizer-model"];
    const first = worker("--goal", "Wait for the phone five times", ...flags);
    // Its first line says which run it is and how to resume it.
    const line = await until(() => first.stdout().split("\n").length > 1 && first.stdout().split("\n")[0]);
    const m = /^run (\S+) \(goal (\S+)\); to resume it: npm run agent -- --run-id (\S+) --agent-id worker-recover --device (\S+)$/.exec(line);
    expect(m, line).not.toBeNull();
    const [, runId, goalId, hintRunId, hintDevice] = m!;
    expect(hintRunId).toBe(runId);
    expect(hintDevice).toBe(device);

    // Killed while it waits for the model's third answer (the model's two waits and their repeated waits are recorded).
    await until(() => models.requests.filter((r) => r.model === "executor-model").length === 3);
    first.child.kill("SIGKILL");
    await first.exited;
    const before = await t.db.step.findMany({ where: { runId }, orderBy: { index: "asc" } });
    expect(before.map((s) => s.index)).toEqual(indices(2 * PER_WAIT));
    const oldLease = await t.db.lease.findFirstOrThrow({ where: { todo: { goalId }, status: "active" } });
    expect(oldLease.ownerId).toBe("worker-recover");

    const second = worker("--run-id", runId!, ...flags);
    expect(await second.exited, second.stderr()).toBe(0);
    expect(second.stdout().split("\n")[0]).toBe(`run ${runId} (goal ${goalId}) resumed; to resume it: npm run agent -- --run-id ${runId} --agent-id worker-recover --device ${device}`);
    expect(second.stderr()).not.toMatch(/waiting:/);

    // The history the resumed worker gives the model says what happened: the last step before the kill was recorded
    // as done (its record and the checkpoint after it commit together), so it is not "interrupted" or "unknown".
    const resumedAsk = models.requests.filter((r) => r.model === "executor-model")[3]!;
    expect(resumedAsk.text).toMatch(new RegExp(`#${2 * PER_WAIT} [^\\n]*→ waited`));
    expect(resumedAsk.text).not.toMatch(/interrupted|may or may not|outcome unknown/);

    // It took its own lease over before that lease would have expired: a new epoch, the old one ended.
    const leases = await t.db.lease.findMany({ where: { todoId: oldLease.todoId }, orderBy: { epoch: "asc" } });
    expect(leases.map((l) => [l.epoch, l.ownerId])).toEqual([
      [1, "worker-recover"],
      [2, "worker-recover"],
    ]);
    expect(leases[0]!.status).toBe("expired");
    expect(leases[1]!.createdAt.getTime()).toBeLessThan(oldLease.expiresAt.getTime());

    // Every step once, in order; one action record per step; the run completed.
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId! }, include: { steps: { orderBy: { index: "asc" } } } });
    expect(run.status).toBe("completed");
    expect(run.steps.map((s) => s.index)).toEqual(indices(4 * PER_WAIT + 1));
    const actions = await t.db.evidence.findMany({ where: { runId, kind: "action" } });
    const actionSteps = actions.map((e) => e.stepIndex);
    expect(new Set(actionSteps).size).toBe(actionSteps.length);
    const events = await t.db.event.findMany({ where: { subjectId: runId }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.operator).filter((o) => o.startsWith("run."))).toContain("run.resume");

    // What the team reads afterwards: the card done by the resumed run, nothing left waiting, the run completed.
    const reader = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
    const board = await reader.board.get.query({ goalId: goalId! });
    expect(board.lanes.flatMap((l) => l.cards).map((c) => [c.state, c.latestRun?.id, c.latestRun?.status])).toEqual([["done", runId, "completed"]]);
    const attention = await readAllPages((cursor) => reader.board.attention.query({ goalId: goalId!, cursor }));
    expect(attention.filter((a) => a.kind === "run_interrupted" || a.kind === "lease_expired")).toEqual([]);
    expect(await reader.run.get.query({ runId: runId! })).toMatchObject({ status: "completed", steps: run.steps.map((s) => expect.objectContaining({ index: s.index })) });
  }, 120_000);

  it("killed 300 ms after its last tap on a lagging phone: the resumed worker drains the phone before it reads the screen, and the counter ends right", async () => {
    // A counter the phone keeps: each "+" adds one. The phone carries out each input command 2.5 s late.
    const scenario = join(keys.dir, "counter.json");
    writeFileSync(
      scenario,
      JSON.stringify({
        name: "counter",
        description: "One screen: a count and a + button.",
        start: { app: "counter" },
        apps: [{ id: "counter", package: "com.example.counter", label: "Counter", color: "#1565c0", icon: "+", start: "main", state: { count: 0 }, screens: [{ id: "main", appBar: { title: "Counter" }, body: [{ type: "text", id: "count", text: "Count: {{count}}" }, { type: "button", id: "plus", text: "+", onTap: [{ do: "increment", var: "count" }] }] }] }],
        tasks: [],
      }),
    );
    const lagging = await startVirtualPhone({ scenario, seed: 1, latency: "lagging", adbKeys: [keys.publicKey] });
    let killed = false;
    const count = () => (lagging.engine.state().apps as Record<string, { vars: { count: number } }>).counter!.vars.count;
    // The model taps + until the screen reads 3, as a model that trusts the screen does.
    const counting = await startScriptedModelServer({
      rules: [
        { match: (r) => r.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "count", todos: [{ id: "count", title: "Tap + until the counter reads 3", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
        {
          match: (r) => r.model === "executor-model",
          replies: [
            (r) => {
              const n = Number(/Count: (\d+)/.exec(r.lastUserText)?.[1] ?? 0);
              // The last tap meets a phone under load: it lands after the restarted worker has come up and read the
              // screen (a restart takes a few seconds on a busy machine), as the 2.5 s lag did against a quick restart.
              if (n === 2 && !killed) lagging.engine.faults.slowMs = 10_000;
              return n < 3 ? act({ type: "click", element: "plus" }) : act({ type: "status", status: "complete", summary: "the counter reads 3" });
            },
          ],
          repeatLast: true,
        },
        { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Counted to 3." }) }], repeatLast: true },
      ],
    });
    try {
      const device = `tcp:127.0.0.1:${lagging.adbPort}`;
      const agentToken = await newToken();
      const flags = ["--device", device, "--api-url", api.url, "--agent-id", "worker-lagging", "--base-url", counting.baseURL, "--planner-model", "planner-model", "--executor-model", "executor-model", "--summarizer-model", "summarizer-model"];
      const first = workerWith(agentToken, "--goal", "Tap + until the counter reads 3", ...flags);
      const runId = /^run (\S+) /.exec(await until(() => first.stdout().split("\n").length > 1 && first.stdout().split("\n")[0]))![1]!;
      // The third tap's write-ahead committed: the tap is on its way to the phone. 300 ms later the worker dies.
      await until(async () => {
        const cp = (await t.db.run.findUniqueOrThrow({ where: { id: runId } })).checkpoint as { executor?: { inFlight?: { stepIndex: number } } } | null;
        return cp?.executor?.inFlight?.stepIndex === 2;
      });
      await new Promise((r) => setTimeout(r, 300));
      first.child.kill("SIGKILL");
      killed = true;
      await first.exited;
      lagging.engine.faults.slowMs = 0; // the load passes; the tap already on the phone still lands late
      expect(count()).toBe(2); // the third tap has not landed yet

      const second = workerWith(agentToken, "--run-id", runId, ...flags);
      expect(await second.exited, second.stderr()).toBe(0);
      expect(count()).toBe(3);
      const run = await t.db.run.findUniqueOrThrow({ where: { id: runId }, include: { steps: { orderBy: { index: "asc" } } } });
      expect(run.status).toBe("completed");
      // The tap whose record was missing is reported as unknown, with what the screen showed after the drain.
      expect((run.steps[2]!.outcome as { outcome: string }).outcome, JSON.stringify(run.steps.map((x) => x.outcome))).toMatch(/^outcome unknown: its record is missing .* the screen now shows com\.example\.counter/);
      const resumedAsk = counting.requests.filter((r) => r.model === "executor-model").at(-1)!;
      expect(resumedAsk.lastUserText).toMatch(/Count: 3/);
      expect(resumedAsk.lastUserText).toMatch(/the phone finished every input it was still carrying out/);
    } finally {
      await counting.stop();
      await lagging.stop();
    }
  }, 180_000);

  it("three model 500s then success: the run continues to completion; each fault is a typed evidence row", async () => {
    const flaky = await startScriptedModelServer({
      rules: [
        { match: (r) => r.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "wait", todos: [{ id: "once", title: "Wait for the phone once", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
        { match: (r) => r.model === "executor-model", replies: [{ status: 500 }, { status: 500 }, { status: 500 }, act({ type: "wait", ms: 50 }), act({ type: "status", status: "complete", summary: "waited" })] },
        { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Waited once." }) }], repeatLast: true },
      ],
    });
    try {
      const w = workerWith(await newToken(), "--goal", "Wait for the phone once", "--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", api.url, "--agent-id", "worker-flaky-model", "--base-url", flaky.baseURL, "--planner-model", "planner-model", "--executor-model", "executor-model", "--summarizer-model", "summarizer-model");
      expect(await w.exited, w.stderr()).toBe(0);
      const runId = /^run (\S+) /.exec(w.stdout())![1]!;
      const run = await t.db.run.findUniqueOrThrow({ where: { id: runId }, include: { steps: { orderBy: { index: "asc" } } } });
      expect(run.status).toBe("completed");
      expect(run.steps.map((s) => s.index)).toEqual(indices(PER_WAIT + 1));
      const faults = await t.db.evidence.findMany({ where: { runId, kind: "anomaly" }, orderBy: { createdAt: "asc" } });
      expect(faults.map((e) => e.data)).toEqual([0, 1, 2].map((attempt) => expect.objectContaining({ fault: "model_call_failed", role: "executor", code: "SERVER_ERROR", status: 500, attempt, willRetry: true })));
    } finally {
      await flaky.stop();
    }
  }, 120_000);

  it("quota reached: a goal capped at 2 steps stops exactly at the limit, and says so", async () => {
    const workspaceId = (await t.db.workspace.findFirstOrThrow({ orderBy: { createdAt: "asc" } })).id;
    const goal = await seedGoal(t.db, { workspaceId, title: "Wait until the quota ends", objective: "Wait on the phone until the quota ends" });
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 24 * 3_600_000, maxSteps: 2 });
    const wait = act({ type: "wait", ms: 20 });
    const capped = await startScriptedModelServer({
      rules: [
        { match: (r) => r.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "wait", todos: [{ id: "waits", title: "Wait five times", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
        { match: (r) => r.model === "executor-model", replies: [wait, wait, wait, wait, wait, act({ type: "status", status: "complete", summary: "waited" })] },
        { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Stopped at the quota." }) }], repeatLast: true },
      ],
    });
    try {
      const w = workerWith(await newToken(), "--goal-id", goal.id, "--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", api.url, "--agent-id", "worker-capped",
        "--base-url", capped.baseURL, "--planner-model", "planner-model", "--executor-model", "executor-model", "--summarizer-model", "summarizer-model");
      expect(await w.exited, w.stderr()).toBe(1);
      const runId = /^run (\S+) /.exec(w.stdout())![1]!;
      const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run.status).toBe("blocked");
      expect(["exhausted", "throttled"]).toContain(run.endReason);
      const spent = await t.db.quotaSpend.aggregate({ where: { goalId: goal.id }, _sum: { steps: true } });
      expect(spent._sum.steps).toBe(2);
      expect(w.stdout()).toMatch(/^run \S+: blocked \((exhausted|throttled)\)$/m);
      expect(await t.db.step.count({ where: { runId } })).toBe(2);
    } finally {
      await capped.stop();
    }
  }, 120_000);

  it("with --phone-control, the virtual phone task's evaluator score is the run's validation evidence", async () => {
    const control = (path: string, body: unknown) =>
      fetch(`${phone.controlUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${phone.controlToken}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await control("/scenario", { name: "social" })).status).toBe(200);
    expect((await control("/tasks/settings_wifi_off/start", { seed: 2 })).status).toBe(200);
    const scripted = await startScriptedModelServer({
      rules: [
        { match: (r) => r.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "look", todos: [{ id: "look", title: "Look at the phone", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
        { match: (r) => r.model === "executor-model", replies: [act({ type: "status", status: "complete", summary: "looked" })], repeatLast: true },
        { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Looked at the phone." }) }], repeatLast: true },
      ],
    });
    try {
      const w = workerWith(await newToken(), "--goal", "Look at the phone", "--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", api.url, "--agent-id", "worker-scored", "--phone-control", phone.controlUrl,
        "--base-url", scripted.baseURL, "--planner-model", "planner-model", "--executor-model", "executor-model", "--summarizer-model", "summarizer-model");
      expect(await w.exited, w.stderr()).toBe(0);
      // Wi-Fi was not turned off: the evaluator scores 0, and says why.
      expect(w.stdout()).toMatch(/^task settings_wifi_off: score 0 \(.+\)$/m);
      const runId = /^run (\S+) /.exec(w.stdout())![1]!;
      const scored = await t.db.evidence.findMany({ where: { runId, kind: "validation", idempotencyKey: `${runId}:phone_task_score` } });
      expect(scored).toHaveLength(1);
      expect(scored[0]!.data).toMatchObject({ evaluator: "virtual_phone_task", task: "settings_wifi_off", score: 0 });
    } finally {
      await scripted.stop();
    }
  }, 120_000);

  it("unplugged while the model is asked: the model call is aborted and the run ends with device_lost", async () => {
    const hanging = await startScriptedModelServer({
      rules: [
        { match: (r) => r.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "look", todos: [{ id: "look", title: "Look at the phone", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
        // The executor's model never answers: only the phone's loss can end this call.
        { match: (r) => r.model === "executor-model", replies: [{ hang: true }] },
        { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "The phone went away." }) }], repeatLast: true },
      ],
    });
    const faults = (method: "POST" | "DELETE", body?: unknown) =>
      fetch(`${phone.controlUrl}/faults`, { method, headers: { authorization: `Bearer ${phone.controlToken}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
    try {
      const w = workerWith(await newToken(), "--goal", "Look at the phone", "--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", api.url, "--agent-id", "worker-unplugged",
        "--base-url", hanging.baseURL, "--planner-model", "planner-model", "--executor-model", "executor-model", "--summarizer-model", "summarizer-model");
      await until(() => hanging.requests.some((r) => r.model === "executor-model"));
      expect((await faults("POST", { drop: true })).status).toBe(200);
      expect(await w.exited, w.stderr()).toBe(1);
      const runId = /^run (\S+) /.exec(w.stdout())![1]!;
      const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run.endReason).toBe("device_lost");
      expect(w.stdout()).toMatch(/\(device_lost\)/);
      // What was lost is said once, and how the run goes on: the same phone back, the same run resumed.
      expect(w.stdout()).toMatch(/^blocked: Device connection lost: The phone disconnected/m);
      expect(w.stdout()).not.toMatch(/Device connection lost[^\n]*Device connection lost/);
      expect(w.stdout()).toContain(`connect the same phone (the same serial) again and resume the run with it: npm run agent -- --run-id ${runId}`);
    } finally {
      await faults("DELETE");
      await hanging.stop();
    }
  }, 120_000);
});
