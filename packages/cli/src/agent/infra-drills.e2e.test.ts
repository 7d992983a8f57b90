// Recovery drills against the infrastructure, with `npm run agent` as its own process: the virtual phone over real
// ADB (TCP), a scripted OpenAI-compatible endpoint, the real API on a throwaway database. The API restarts in the
// middle of a run (same port, same database): the worker's client retries across the gap and the run continues with
// no step lost or repeated. Afterwards the board, the attention queue and the run view say what happened.
// (recovery.e2e.test.ts has the worker-side drills: SIGKILL mid-step, model 500s, quota, unplugging.)
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { act, startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { createApiServer, type ApiServer } from "@phoneloop/api";
import { createApiClient, readAllPages } from "@phoneloop/client";
import { issueAgentToken } from "@phoneloop/state";
import { createTestDatabase, seedWorkspace, type TestDatabase } from "@phoneloop/state/testing";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { NodeCredentialStore } from "@phoneloop/device/node";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;

let t: TestDatabase;
let api: ApiServer;
let phone: VirtualPhone;
let keys: string;
let token: string;

const startApi = (port = 0) => createApiServer({ db: t.db, databaseUrl: t.url, port, host: "127.0.0.1" });

beforeAll(async () => {
  t = await createTestDatabase();
  api = await startApi();
  const { workspace, admin } = await seedWorkspace(t.db);
  token = (await issueAgentToken(t.db, { workspaceId: workspace.id, name: "drilled worker", issuedBy: admin.id })).token;
  keys = mkdtempSync(join(tmpdir(), "phoneloop-adbkey-"));
  new NodeCredentialStore({ path: join(keys, "adbkey") }).generateKey();
  phone = await startVirtualPhone({ seed: 7, adbKeys: [readFileSync(join(keys, "adbkey.pub"), "utf8")] });
});
afterAll(async () => {
  await phone?.stop();
  await api?.close();
  await t?.drop();
  if (keys) rmSync(keys, { recursive: true, force: true });
});

function worker(models: ScriptedModelServer, ...args: string[]): { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(
    tsx,
    ["packages/cli/src/agent/main.ts", ...args, "--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", api.url, "--base-url", models.baseURL, "--planner-model", "planner-model", "--executor-model", "executor-model", "--summarizer-model", "summarizer-model"],
    {
      cwd: root,
      env: { ...process.env, ANDROID_USER_HOME: keys, OPENAI_API_KEY: "test-key", PHONELOOP_API_URL: "", PHONELOOP_AGENT_ID: "", PHONELOOP_AGENT_TOKEN: token },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function until<T>(read: () => T | undefined | null | false | Promise<T | undefined | null | false>): Promise<T> {
  for (;;) {
    const v = await read();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
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
      // Six model answers, six steps: each once, in order (the third was written across the restart).
      expect(run.steps.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5]);
      const actions = await t.db.evidence.findMany({ where: { runId, kind: "action" } });
      const actionSteps = actions.map((e) => e.stepIndex);
      expect(new Set(actionSteps).size).toBe(actionSteps.length);
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
});
