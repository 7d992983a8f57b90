// `npm run agent` as its own process, the way a person or cron runs it: the virtual phone over real ADB (TCP), a
// scripted OpenAI-compatible endpoint, the real API on a throwaway database. Exit codes and output are what a
// script sees; the run's truth is read back through the API.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { act, startScriptedModelServer, type ScriptedModelServer } from "@phoneloop/agent/testing";
import { issueAgentToken } from "@phoneloop/state";
import { seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { startVirtualPhone, type VirtualPhone } from "@phoneloop/virtual-phone";
import { useApiServer } from "@phoneloop/api/testing";
import { createApiClient } from "@phoneloop/client";
import { NodeCredentialStore } from "@phoneloop/device/node";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;

const t = useTestDatabase();
const api = useApiServer(t);
let phone: VirtualPhone;
let models: ScriptedModelServer;
let keys: string;
let token: string;

beforeAll(async () => {
  const { workspace, admin } = await seedWorkspace(t.db);
  token = (await issueAgentToken(t.db, { workspaceId: workspace.id, name: "worker", issuedBy: admin.id })).token;
  keys = mkdtempSync(join(tmpdir(), "phoneloop-adbkey-"));
  // the agent's adbkey (ANDROID_USER_HOME below) is already in the phone's adb_keys, as on a phone that allowed it
  new NodeCredentialStore({ path: join(keys, "adbkey") }).generateKey();
  phone = await startVirtualPhone({ seed: 3, adbKeys: [readFileSync(join(keys, "adbkey.pub"), "utf8")] });
  models = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "planner-model", replies: [{ text: JSON.stringify({ plan: "look", todos: [{ id: "look", title: "Look at the home screen", kind: "executor", inputs: [], outputs: [] }] }) }], repeatLast: true },
      { match: (r) => r.model === "executor-model", replies: [act({ type: "status", status: "complete", summary: "the home screen is visible" })], repeatLast: true },
      { match: (r) => r.model === "summarizer-model", replies: [{ text: JSON.stringify({ findings: ["home screen seen"], conclusion: "Looked at the home screen." }) }], repeatLast: true },
    ],
  });
});
afterAll(async () => {
  await models?.stop();
  await phone?.stop();
  if (keys) rmSync(keys, { recursive: true, force: true });
});

function agent(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return agentWith({ PHONELOOP_AGENT_TOKEN: token }, ...args);
}

function agentWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(tsx, ["packages/cli/src/agent/main.ts", ...args], {
      cwd: root,
      env: { ...process.env, ANDROID_USER_HOME: keys, OPENAI_API_KEY: "test-key", PHONELOOP_API_URL: "", PHONELOOP_AGENT_TOKEN: "", PHONELOOP_AGENT_ID: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("exit", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const modelFlags = () => ["--base-url", models.baseURL, "--planner-model", "planner-model", "--executor-model", "executor-model", "--summarizer-model", "summarizer-model"];

describe("npm run agent", () => {
  it("runs a goal on the phone through the API with its agent token (from a file) and exits 0 with the summary", async () => {
    const tokenFile = join(keys, "agent.token");
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const r = await agentWith({}, "--goal", "Look at the home screen", "--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", api.url, "--agent-id", "worker-main-test", "--agent-token-file", tokenFile, ...modelFlags());
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const m = /^run (\S+): completed \(\w+\)$/m.exec(r.stdout);
    expect(m).not.toBeNull();
    expect(r.stdout).toMatch(/Looked at the home screen/);

    const reader = createApiClient({ apiUrl: api.url, auth: { kind: "token", token } });
    const run = await reader.run.get.query({ runId: m![1]! });
    expect(run).toMatchObject({ status: "completed", agentId: "worker-main-test" });
    const board = await reader.board.get.query({ goalId: run.goalId });
    expect(board.goal.objective).toBe("Look at the home screen");
    expect(board.lanes.find((l) => l.state === "done")!.cards.map((c) => c.title)).toEqual(["Look at the home screen"]);
    // The phone's real screenshot, over ADB, is the observation's blob.
    const obs = (await reader.evidence.list.query({ goalId: run.goalId, kind: "observation" })).items[0]!;
    expect(obs.blobSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(obs.agentId).toBe("worker-main-test");
  }, 180_000);

  it("an unreachable API fails at once with its URL and how to start it (exit 1)", async () => {
    const srv = createServer();
    await new Promise<void>((ok) => srv.listen(0, "127.0.0.1", ok));
    const { port } = srv.address() as AddressInfo;
    await new Promise((ok) => srv.close(ok)); // nothing listens there now
    const r = await agent("--goal", "x", "--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", `http://127.0.0.1:${port}`, ...modelFlags());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Cannot reach the PhoneLoop API at http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(r.stderr).toMatch(/npm start/);
  }, 120_000);

  it("a usage error exits 2 and says what is missing", async () => {
    const r = await agent("--goal", "x", "--api-url", api.url);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--device is required/);
    const noToken = await agentWith({}, "--goal", "x", "--device", `tcp:127.0.0.1:${phone.adbPort}`, "--api-url", api.url);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/No agent token: .*PHONELOOP_AGENT_TOKEN/);
  }, 120_000);
});
