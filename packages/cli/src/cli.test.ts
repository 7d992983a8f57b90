// End to end: the API runs as its own process (as `npm start` runs it) on a throwaway database, and each CLI
// command runs as its own process against it. Exit codes and output are what a script would see.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, seedAgent, seedGate, seedGoal, seedMember, seedTodos, type TestDatabase } from "@phoneloop/state/testing";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const tsx = `${root}node_modules/.bin/tsx`;

let t: TestDatabase;
let apiProcess: ChildProcess;
let apiUrl: string;

beforeAll(async () => {
  t = await createTestDatabase();
  apiProcess = spawn(tsx, ["apps/api/src/server.ts"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: t.url, API_PORT: "0", API_HOST: "127.0.0.1" },
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
  await t?.drop();
});

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function phoneloop(...args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(tsx, ["packages/cli/src/main.ts", ...args], {
      cwd: root,
      env: { ...process.env, PHONELOOP_API_URL: apiUrl, PHONELOOP_AGENT_ID: "", PHONELOOP_MEMBER: "" },
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
    const agent = await seedAgent(t.db);
    const other = await seedAgent(t.db);

    const claim = await phoneloop("todo", "claim", todo!.id, "--agent-id", agent.id, "--ttl", "5m", "--json");
    expect(claim.code, claim.stderr).toBe(0);
    const claimed = JSON.parse(claim.stdout) as { claimed: boolean; lease: { leaseKey: string } };
    expect(claimed.claimed).toBe(true);
    const key = claimed.lease.leaseKey;

    const taken = await phoneloop("todo", "claim", todo!.id, "--agent-id", other.id);
    expect(taken.code).toBe(1);
    expect(taken.stdout + taken.stderr).toContain(agent.id);

    const start = await phoneloop("todo", "update", todo!.id, "--agent-id", agent.id, "--lease-key", key, "--action", "start");
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toContain("claimed → running");

    const stale = await phoneloop("todo", "update", todo!.id, "--agent-id", other.id, "--lease-key", "lk_forged", "--action", "validate");
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`held by ${agent.id}`);

    const validate = await phoneloop("todo", "update", todo!.id, "--agent-id", agent.id, "--lease-key", key, "--action", "validate", "--summary", "table held");
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain("running → validating");

    const done = await phoneloop("todo", "complete", todo!.id, "--agent-id", agent.id, "--lease-key", key, "--values", '{"table":"7"}', "--json");
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ from: "validating", to: "done", todo: { values: { table: "7" } } });

    const again = await phoneloop("todo", "complete", todo!.id, "--agent-id", agent.id, "--lease-key", key);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("done");
  });

  it("todo claim without a todo id takes the goal's next eligible todo, in order", async () => {
    const goal = await seedGoal(t.db);
    const [first] = await seedTodos(t.db, goal.id, 2);
    const agent = await seedAgent(t.db);
    const next = await phoneloop("todo", "claim", "--goal-id", goal.id, "--agent-id", agent.id, "--json");
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ claimed: true, todo: { id: first!.id }, lease: { ownerId: agent.id } });
    const none = await phoneloop("todo", "claim", "--goal-id", goal.id, "--agent-id", agent.id);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain("Nothing claimed");
  });

  it("quota should-run and spend; a repeated key spends once; over the limit is refused", async () => {
    const goal = await seedGoal(t.db);
    const agent = await seedAgent(t.db);
    const ok = await phoneloop("quota", "should-run", "--goal-id", goal.id, "--agent-id", agent.id);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^run/);

    const spend = await phoneloop("quota", "spend", "--goal-id", goal.id, "--agent-id", agent.id, "--key", "turn-1", "--steps", "3", "--tokens", "1200");
    expect(spend.code, spend.stderr).toBe(0);
    expect(spend.stdout).toContain("Spent 3 steps, 1200 tokens");
    const replay = await phoneloop("quota", "spend", "--goal-id", goal.id, "--agent-id", agent.id, "--key", "turn-1", "--steps", "3", "--json");
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ duplicate: true });

    const missing = await phoneloop("quota", "should-run", "--goal-id", "goal_missing", "--agent-id", agent.id);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("goal_missing");
  });

  it("gate list and resolve as a member; a second resolution is refused", async () => {
    const goal = await seedGoal(t.db);
    const gate = await seedGate(t.db, goal.id, { question: "Pay the 5 EUR deposit to hold the table?", options: ["pay", "skip"] });
    const owner = await seedMember(t.db, "owner", "Olive");

    const list = await phoneloop("gate", "list", "--goal-id", goal.id);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(gate.id);
    expect(list.stdout).toContain("pay | skip");

    const resolve = await phoneloop("gate", "resolve", gate.id, "--member-id", owner.id, "--decision", "answer", "--answer", "pay", "--rationale", "worth it");
    expect(resolve.code, resolve.stderr).toBe(0);
    expect(resolve.stdout).toContain("answered: pay");

    const twice = await phoneloop("gate", "resolve", gate.id, "--member-id", owner.id, "--decision", "deny", "--rationale", "no", "--json");
    expect(twice.code).toBe(1);
    expect(JSON.parse(twice.stdout)).toMatchObject({ ok: false, error: { code: "CONFLICT" } });

    const empty = await phoneloop("gate", "list", "--goal-id", goal.id);
    expect(empty.stdout).toContain("No open gates");
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

    const badDecision = await phoneloop("gate", "resolve", "g1", "--member-id", "m", "--decision", "maybe", "--rationale", "x");
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
