// End to end: the API runs as its own process (as `npm start` runs it) on a throwaway database, and each CLI
// command runs as its own process against it. Exit codes and output are what a script would see.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueAgentToken, registerAgent, setQuotaPolicy } from "@phoneloop/state";
import { rid, seedGate, seedGoal as seedAnyGoal, seedTodos, seedWorkspace, useTestDatabase, type TestDatabase } from "@phoneloop/state/testing";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;

const t = useTestDatabase();
let apiProcess: ChildProcess;
let apiUrl: string;
let workspaceId: string;
let adminId: string;
/** The token the CLI acts with unless a test names another (PHONELOOP_AGENT_TOKEN). */
let reader: string;

const seedGoal = (db: TestDatabase["db"], over: Parameters<typeof seedAnyGoal>[1] = {}) => seedAnyGoal(db, { ...over, workspaceId });

/** An agent of the workspace registered with its own token, as a worker would be. */
async function seedAgentWithToken(): Promise<{ id: string; token: string }> {
  const { token, tokenId } = await issueAgentToken(t.db, { workspaceId, name: "cli worker", issuedBy: adminId });
  const agent = await registerAgent(t.db, { id: rid("agent"), name: "cli worker", kind: "headless", workspaceId, tokenId });
  return { id: agent.id, token };
}

beforeAll(async () => {
  const { workspace, admin } = await seedWorkspace(t.db);
  workspaceId = workspace.id;
  adminId = admin.id;
  reader = (await issueAgentToken(t.db, { workspaceId, name: "cli reader", issuedBy: adminId })).token;
  apiProcess = spawn(tsx, ["apps/api/src/server.ts"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: t.url, API_PORT: "0", API_HOST: "127.0.0.1", PHONELOOP_SECRET_KEY: "cli-test-secret-key-0123456789abcdef" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  apiUrl = await new Promise<string>((resolve, reject) => {
    let out = "";
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    apiProcess.stdout!.on("data", onData);
    apiProcess.stderr!.on("data", onData);
    apiProcess.once("exit", (code) => reject(new Error(`API exited with ${code}: ${out}`)));
  });
});

afterAll(async () => {
  if (apiProcess && apiProcess.exitCode === null) {
    const exited = new Promise((r) => apiProcess.once("exit", r));
    apiProcess.kill("SIGTERM");
    await exited;
  }
});

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function phoneloop(...args: string[]): Promise<CliRun> {
  return phoneloopAs(reader, ...args);
}

function phoneloopAs(token: string, ...args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(tsx, ["packages/cli/src/main.ts", ...args], {
      cwd: root,
      env: { ...process.env, PHONELOOP_API_URL: apiUrl, PHONELOOP_AGENT_ID: "", PHONELOOP_AGENT_TOKEN: token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe("phoneloop CLI against a running API", () => {
  it("status lists who must act and the goals, in words and as JSON", async () => {
    const goal = await seedGoal(t.db, { title: "Status goal" });
    await seedTodos(t.db, goal.id, 2);
    const gate = await seedGate(t.db, goal.id, { question: "Share the booking with Sam by SMS?" });
    const human = await phoneloop("status");
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("Share the booking with Sam by SMS?");
    expect(human.stdout).toContain("Status goal");
    const json = await phoneloop("status", "--json");
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as { attention: { gateId?: string }[]; goals: { id: string }[] };
    expect(parsed.attention.map((a) => a.gateId)).toContain(gate.id);
    expect(parsed.goals.map((g) => g.id)).toContain(goal.id);

    const board = await phoneloop("status", "--goal-id", goal.id);
    expect(board.code).toBe(0);
    expect(board.stdout).toContain("pending (2)");
  });

  it("todo claim → update (start, validate) → complete, fenced by the lease key", async () => {
    const goal = await seedGoal(t.db);
    const [todo] = await seedTodos(t.db, goal.id, 1, { title: "Open the booking app" });
    const agent = await seedAgentWithToken();
    const other = await seedAgentWithToken();
    const asAgent = (...args: string[]) => phoneloopAs(agent.token, ...args);
    const asOther = (...args: string[]) => phoneloopAs(other.token, ...args);

    const claim = await asAgent("todo", "claim", todo!.id, "--agent-id", agent.id, "--ttl", "5m", "--json");
    expect(claim.code, claim.stderr).toBe(0);
    const claimed = JSON.parse(claim.stdout) as { claimed: boolean; lease: { leaseKey: string } };
    expect(claimed.claimed).toBe(true);
    const key = claimed.lease.leaseKey;

    const taken = await asOther("todo", "claim", todo!.id, "--agent-id", other.id);
    expect(taken.code).toBe(1);
    expect(taken.stdout + taken.stderr).toContain(agent.id);

    const start = await asAgent("todo", "update", todo!.id, "--agent-id", agent.id, "--lease-key", key, "--action", "start");
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toContain("claimed → running");

    const stale = await asOther("todo", "update", todo!.id, "--agent-id", other.id, "--lease-key", "lk_forged", "--action", "validate");
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`held by ${agent.id}`);

    const validate = await asAgent("todo", "update", todo!.id, "--agent-id", agent.id, "--lease-key", key, "--action", "validate", "--summary", "table held");
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain("running → validating");

    const done = await asAgent("todo", "complete", todo!.id, "--agent-id", agent.id, "--lease-key", key, "--values", '{"table":"7"}', "--json");
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ from: "validating", to: "done", todo: { values: { table: "7" } } });

    const again = await asAgent("todo", "complete", todo!.id, "--agent-id", agent.id, "--lease-key", key);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("done");
  });

  it("todo claim without a todo id takes the goal's next eligible todo, in order", async () => {
    const goal = await seedGoal(t.db);
    const [first] = await seedTodos(t.db, goal.id, 2);
    const agent = await seedAgentWithToken();
    const next = await phoneloopAs(agent.token, "todo", "claim", "--goal-id", goal.id, "--agent-id", agent.id, "--json");
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ claimed: true, todo: { id: first!.id }, lease: { ownerId: agent.id } });
    // Another agent gets nothing: the first todo is leased and the second waits for it (in order).
    const other = await seedAgentWithToken();
    const none = await phoneloopAs(other.token, "todo", "claim", "--goal-id", goal.id, "--agent-id", other.id);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain("Nothing claimed");
  });

  it("quota should-run and spend; a repeated key spends once; over the limit is refused", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgentWithToken();
    const phoneloop = (...args: string[]) => phoneloopAs(agent.token, ...args);
    const ok = await phoneloop("quota", "should-run", "--goal-id", goal.id, "--agent-id", agent.id);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^run/);

    const spend = await phoneloop("quota", "spend", "--goal-id", goal.id, "--agent-id", agent.id, "--key", "turn-1", "--steps", "3", "--tokens", "1200");
    expect(spend.code, spend.stderr).toBe(0);
    expect(spend.stdout).toContain("Spent 3 steps, 1200 tokens");
    const replay = await phoneloop("quota", "spend", "--goal-id", goal.id, "--agent-id", agent.id, "--key", "turn-1", "--steps", "3", "--json");
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ duplicate: true });

    // A limit of 5 steps with 3 spent: asking for 3 more goes over it and is refused, spending nothing.
    await setQuotaPolicy(t.db, { scope: "goal", goalId: goal.id, windowMs: 30 * 24 * 3600 * 1000, maxSteps: 5 });
    const over = await phoneloop("quota", "spend", "--goal-id", goal.id, "--agent-id", agent.id, "--key", "turn-2", "--steps", "3");
    expect(over.code).not.toBe(0);
    expect(over.stderr).toContain("would exceed the goal quota");
    expect(over.stderr).toContain("2 of 5 steps left");
    const within = await phoneloop("quota", "spend", "--goal-id", goal.id, "--agent-id", agent.id, "--key", "turn-3", "--steps", "2");
    expect(within.code, within.stderr).toBe(0);

    const missing = await phoneloop("quota", "should-run", "--goal-id", "goal_missing", "--agent-id", agent.id);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("goal_missing");
  });

  it("gate list shows open gates; an agent token may not answer one (people answer in the web app)", async () => {
    const goal = await seedGoal(t.db);
    const gate = await seedGate(t.db, goal.id, { question: "Pay the 5 EUR deposit to hold the table?", options: ["pay", "skip"] });

    const list = await phoneloop("gate", "list", "--goal-id", goal.id);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(gate.id);
    expect(list.stdout).toContain("pay | skip");

    const resolve = await phoneloop("gate", "resolve", gate.id, "--decision", "answer", "--answer", "pay", "--rationale", "worth it", "--json");
    expect(resolve.code).toBe(1);
    expect(JSON.parse(resolve.stdout)).toMatchObject({ ok: false, error: { code: "FORBIDDEN" } });
    expect(resolve.stderr).toMatch(/answer_gate/);
  });

  it("without an agent token the API answers 401 and says where the token goes", async () => {
    const anonymous = await phoneloopAs("", "status");
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/PHONELOOP_AGENT_TOKEN/);
  });

  it("usage errors exit 2 with usage; help exits 0; an unreachable API exits 1 saying how to start it", async () => {
    const noAgent = await phoneloop("todo", "claim");
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toContain("--agent-id");
    expect(noAgent.stderr).toContain("Usage: phoneloop todo claim");

    const unknown = await phoneloop("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown command");

    const badFlag = await phoneloop("gate", "list", "--colour", "blue");
    expect(badFlag.code).toBe(2);

    const badDecision = await phoneloop("gate", "resolve", "g1", "--decision", "maybe", "--rationale", "x");
    expect(badDecision.code).toBe(2);
    expect(badDecision.stderr).toContain("approve, deny, answer");

    const help = await phoneloop("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("todo claim");

    const down = await phoneloop("status", "--api-url", "http://127.0.0.1:9");
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("Cannot reach the PhoneLoop API at http://127.0.0.1:9");
  });
});
