// Stops whose cause can go away, taken up again as the same run: `npm run agent` as its own process, the virtual
// phone over real ADB (TCP), a scripted OpenAI-compatible endpoint, the real API on a throwaway database. A run
// blocked by its quota is refused while the quota is spent and resumes with --run-id once it is raised; the
// board's resume (run.resume with a tab's agent token) does the same, checked by its issuer's role; a run stopped
// for a lost phone resumes when the same phone is back (another phone is refused); a finished run still refuses,
// saying why.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPEATED_WAITS_MAX } from "@phoneloop/agent";
import { act, startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { useApiServer } from "@phoneloop/api/testing";
import { createApiClient } from "@phoneloop/client";
import { finishRun, issueAgentToken, registerAgent, setQuotaPolicy, spendQuota, startRun } from "@phoneloop/state";
import { seedGoal, seedMember, seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { adbKeyDir, spawnWorker, until, type AdbKeyDir, type WorkerProcess } from "../testing/worker-process.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let phone: VirtualPhone;
let keys: AdbKeyDir;
let workspaceId: string;
let adminId: string;
const newToken = async (issuedBy = adminId) => (await issueAgentToken(t.db, { workspaceId, name: "resuming worker", issuedBy })).token;

beforeAll(async () => {
  const { workspace, admin } = await seedWorkspace(t.db);
  workspaceId = workspace.id;
  adminId = admin.id;
  keys = adbKeyDir();
  phone = await startVirtualPhone({ seed: 7, adbKeys: [keys.publicKey] });
});
afterAll(async () => {
  await phone?.stop();
  keys?.remove();
});

const worker = (agentToken: string, ...args: string[]): WorkerProcess => spawnWorker({ entry: "source", keysDir: keys.dir, agentToken, args });

const modelFlags = (m: ScriptedModelServer) => ["--base-url", m.baseURL, "--planner-model", "planner-model", "--executor-model", "executor-model", "--summarizer-model", "summarizer-model"];

describe("stops whose cause can go away resume as the same run", () => {
  it("quota-blocked: --run-id is refused while the quota is spent, and after it is raised the same run resumes and completes; the replay shows the stop and the resume", async () => {
    const goal = await seedGoal(t.db, { workspaceId, title: "Wait four times", objective: "Wait on the phone four times" });
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 24 * 3_600_000, maxSteps: 2 });
    const wait = act({ type: "wait", ms: 20 });
    const models = await startScriptedModelServer({
      rules: [
        { match: (r) => r.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "wait", todos: [{ id: "waits", title: "Wait four times", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
        { match: (r) => r.model === "executor-model", replies: [wait, wait, wait, wait, act({ type: "status", status: "complete", summary: "waited four times" })] },
        { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Waited four times." }) }], repeatLast: true },
      ],
    });
    try {
      const token = await newToken();
      const flags = ["--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", api.url, "--agent-id", "worker-quota", ...modelFlags(models)];
      const first = worker(token, "--goal-id", goal.id, ...flags);
      expect(await first.exited, first.stderr()).toBe(1);
      const runId = /^run (\S+) /.exec(first.stdout())![1]!;
      expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("blocked");
      // It says what stopped it, what removes that, and how to take the same run up again.
      expect(first.stdout()).toMatch(new RegExp(`^run ${runId} stopped because (its quota had no budget left|its next turn did not fit the quota left); an admin raises the quota \\(or its window resets\\), then resume the run: npm run agent -- --run-id ${runId} --agent-id worker-quota `, "m"));

      const early = worker(token, "--run-id", runId, ...flags);
      expect(await early.exited).toBe(1);
      expect(early.stderr()).toMatch(new RegExp(`PRECONDITION_FAILED: run.resume: Run ${runId} stopped because (its quota had no budget left|its next turn did not fit the quota left), and the quota is still exhausted .*an admin raises the quota`));

      await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 24 * 3_600_000, maxSteps: 20 });
      const resumed = worker(token, "--run-id", runId, ...flags);
      expect(await resumed.exited, resumed.stderr()).toBe(0);
      expect(resumed.stdout()).toMatch(new RegExp(`^run ${runId}: completed \\(`, "m"));

      // One run: its steps in order, none repeated; no second run on the goal. The phone's screen does not change, so
      // each wait of the model's is followed by repeated waits: before the stop the model's first wait and one
      // repeated wait (the quota's 2 steps), after the resume its three other waits with theirs, and its status.
      const run = await t.db.run.findUniqueOrThrow({ where: { id: runId }, include: { steps: { orderBy: { index: "asc" } } } });
      expect(run.status).toBe("completed");
      expect(run.steps.map((s) => s.index)).toEqual(Array.from({ length: 2 + 3 * (REPEATED_WAITS_MAX + 1) + 1 }, (_, i) => i));
      expect(run.steps.filter((s) => (s.outcome as { modelSkipped?: string }).modelSkipped === "unchanged_after_wait")).toHaveLength(1 + 3 * REPEATED_WAITS_MAX);
      expect(await t.db.run.count({ where: { goalId: goal.id } })).toBe(1);

      // The replay: the stop (its summary), the resume, and the final summary, in that order, in the one run.
      const reader = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
      const replay = await reader.run.replay.query({ runId });
      const story = replay.timeline.filter((n) => n.kind === "summary" || (n.data as { fault?: string }).fault === "resumed").map((n) => n.summary);
      expect(story).toHaveLength(3);
      expect(story[0]).toMatch(/^The run is blocked and can resume\. (quota exhausted|throttled)/);
      expect(story[1]).toMatch(/^Resumed: the run had stopped blocked \((exhausted|throttled)\) because/);
      expect(story[2]).toContain("Waited four times.");
      expect(replay.report).toMatchObject({ status: "completed" });
    } finally {
      await models.stop();
    }
  }, 180_000);

  it("the board's resume (run.resume with a tab's agent token) takes up a quota-blocked run once the quota is raised; a viewer's token is refused", async () => {
    const goal = await seedGoal(t.db, { workspaceId });
    const stopped = await registerAgent(t.db, { id: "worker-stopped", name: "stopped worker", kind: "headless", workspaceId });
    const run = await startRun(t.db, { goalId: goal.id, agentId: stopped.id });
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxSteps: 1 });
    await spendQuota(t.db, { key: `${run.id}:step`, goalId: goal.id, agentId: stopped.id, runId: run.id, steps: 1 });
    await finishRun(t.db, { runId: run.id, agentId: stopped.id, status: "blocked", endReason: "exhausted", summary: "The run is blocked and can resume." });

    const operator = await seedMember(t.db, "operator", workspaceId);
    const tab = createApiClient({ apiUrl: api.url, auth: { kind: "token", token: await newToken(operator.userId) } });
    await tab.agent.register.mutate({ id: "tab-operator", name: "Pixel tab", kind: "browser", capabilities: ["phone"] });
    // What the panel lists: the stop, with its cause and what removes it.
    const listed = await tab.goal.runs.query({ goalId: goal.id });
    expect(listed.items[0]).toMatchObject({ id: run.id, stop: { reason: "exhausted", cause: "its quota had no budget left" } });
    await expect(tab.run.resume.mutate({ runId: run.id, agentId: "tab-operator" })).rejects.toThrow(/the quota is still exhausted/);

    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 3_600_000, maxSteps: 10 });
    const viewer = await seedMember(t.db, "viewer", workspaceId);
    const looker = createApiClient({ apiUrl: api.url, auth: { kind: "token", token: await newToken(viewer.userId) } });
    await expect(looker.run.resume.mutate({ runId: run.id, agentId: "tab-operator" })).rejects.toThrow(/viewer/);
    expect(await tab.run.resume.mutate({ runId: run.id, agentId: "tab-operator" })).toMatchObject({ id: run.id, status: "running", agentId: "tab-operator" });
  }, 60_000);

  it("stopped for a lost phone: the same phone back, --run-id takes the run up again and it completes", async () => {
    const models = await startScriptedModelServer({
      rules: [
        { match: (r) => r.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "look", todos: [{ id: "look", title: "Look at the phone", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
        // The first executor call never answers: the phone goes away meanwhile. After the resume it answers.
        { match: (r) => r.model === "executor-model", replies: [{ hang: true }, act({ type: "status", status: "complete", summary: "looked" })] },
        { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: [], conclusion: "Looked at the phone." }) }], repeatLast: true },
      ],
    });
    const faults = (method: "POST" | "DELETE", body?: unknown) =>
      fetch(`${phone.controlUrl}/faults`, { method, headers: { authorization: `Bearer ${phone.controlToken}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
    try {
      const token = await newToken();
      const flags = ["--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", api.url, "--agent-id", "worker-lost", ...modelFlags(models)];
      const first = worker(token, "--goal", "Look at the phone", ...flags);
      await until(() => models.requests.some((r) => r.model === "executor-model"));
      expect((await faults("POST", { drop: true })).status).toBe(200);
      expect(await first.exited, first.stderr()).toBe(1);
      const runId = /^run (\S+) /.exec(first.stdout())![1]!;
      expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).endReason).toBe("device_lost");
      expect(first.stdout()).toContain(`run ${runId} stopped because the connection to its phone was lost; connect the same phone (the same serial) again and resume the run with it: npm run agent -- --run-id ${runId}`);
      await faults("DELETE");

      // Another phone is refused: the run's screen state is on the one that went away.
      const other = await startVirtualPhone({ seed: 8, adbKeys: [keys.publicKey] });
      try {
        const elsewhere = worker(token, "--run-id", runId, ...flags.map((f) => (f === `tcp:127.0.0.1:${phone.adbPort}` ? `tcp:127.0.0.1:${other.adbPort}` : f)));
        expect(await elsewhere.exited).toBe(1);
        expect(elsewhere.stderr()).toContain(`drives another phone (serial ${other.serial}, not ${phone.serial}); connect the same phone (the same serial) again and resume the run with it.`);
      } finally {
        await other.stop();
      }
      expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).not.toBe("running");

      const back = worker(token, "--run-id", runId, ...flags);
      expect(await back.exited, back.stderr()).toBe(0);
      const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run.status).toBe("completed");
      const resumedNote = await t.db.evidence.findFirstOrThrow({ where: { runId, kind: "anomaly", summary: { startsWith: "Resumed:" } } });
      expect(resumedNote.data).toMatchObject({ fault: "resumed", endReason: "device_lost", deviceSerial: expect.any(String) });
    } finally {
      await faults("DELETE");
      await models.stop();
    }
  }, 180_000);

  it("a finished run still refuses --run-id, saying why and what to do instead", async () => {
    const goal = await seedGoal(t.db, { workspaceId });
    const done = await registerAgent(t.db, { id: "worker-done", name: "done worker", kind: "headless", workspaceId });
    const run = await startRun(t.db, { goalId: goal.id, agentId: done.id });
    await finishRun(t.db, { runId: run.id, agentId: done.id, status: "completed", endReason: "all_done", summary: "Done." });
    const w = worker(await newToken(), "--run-id", run.id, "--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", api.url, "--agent-id", "worker-late", "--base-url", "http://127.0.0.1:9/v1");
    expect(await w.exited).toBe(1);
    expect(w.stderr()).toContain(`ILLEGAL_TRANSITION: run.resume: Cannot resume run ${run.id}: it is completed (all_done): its work is done. A finished run only reads; start a new run on its goal (--goal-id ${goal.id}).`);
  }, 60_000);
});
