// The suite end to end, as `npm run suite` runs it: the reference policy over pack tasks and seeds, each attempt on
// its own virtual phone process, through the real runtime, the API (its own process) and Postgres; the table and the
// last line printed, and the suite run with its attempts — each linking its run — stored in the state core.
import { describe, expect, it } from "vitest";
import { seedWorkspace, useTestDatabase } from "@phoneloop/state/testing";
import { suiteRunDetail } from "@phoneloop/state";
import { main } from "./main.ts";

const t = useTestDatabase();

async function suite(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(argv, { DATABASE_URL: t.url, PHONELOOP_SECRET_KEY: "suite-test-secret-key-not-for-production" }, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  return { code, out, err };
}

describe("npm run suite", () => {
  it("the reference policy solves pack tasks under two seeds — a message sent after the suite approved its gate: success_rate 1, every attempt a run in the state core", async () => {
    const { workspace } = await seedWorkspace(t.db, "Suite team");
    const r = await suite(["--tasks", "settings_wifi_off,messages_send", "--seeds", "2", "--parallel", "2"]);
    expect(r.err).not.toMatch(/phoneloop suite:/);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split("\n");
    expect(lines.at(-1)).toMatch(/^tasks=2 success_rate=1 mean_steps=\d+(\.\d+)? mean_input_tokens=\d+ mean_cost_usd=0 p50_task_s=\d+(\.\d+)?$/);
    expect(lines[0]).toMatch(/^task\s+seed\s+score\s+steps\s+tokens\s+cost_usd\s+seconds$/);
    expect(lines.slice(1, 5).map((l) => l.split(/\s+/).slice(0, 3).join(" "))).toEqual(["settings_wifi_off 1 1.00", "settings_wifi_off 2 1.00", "messages_send 1 1.00", "messages_send 2 1.00"]);

    const suiteRunId = /suite run (\S+) \(completed\)/.exec(r.out)![1]!;
    const detail = await suiteRunDetail(t.db, { suiteRunId });
    expect(detail).toMatchObject({ workspaceId: workspace.id, status: "completed", modelProfile: "reference-policy", tasks: "settings_wifi_off,messages_send", scenarios: "pack", seeds: 2 });
    expect(detail.figures).toMatchObject({ attempts: 4, successes: 4 });
    for (const a of detail.attempts) {
      expect(a.runId).not.toBeNull();
      const run = await t.db.run.findUniqueOrThrow({ where: { id: a.runId! }, include: { _count: { select: { steps: true } } } });
      expect(run.status).toBe("completed");
      expect(run._count.steps).toBeGreaterThan(0);
      // the phone's evaluator score is the run's validation evidence
      const v = await t.db.evidence.findFirstOrThrow({ where: { runId: a.runId!, kind: "validation", data: { path: ["evaluator"], equals: "virtual_phone_task" } } });
      expect(v.data).toMatchObject({ task: a.taskId, score: 1 });
    }
    // sending the message waited at a gate, which the workspace's admin approved for the suite
    const gates = await t.db.gate.findMany({ where: { runId: { in: detail.attempts.filter((a) => a.taskId === "messages_send").map((a) => a.runId!) } } });
    expect(gates.length).toBeGreaterThanOrEqual(2);
    for (const g of gates) expect(g).toMatchObject({ status: "approved", rationale: "the task suite approves what the task asks for" });
    // the suite's agent token was revoked when it ended
    const tokens = await t.db.agentToken.findMany({ where: { workspaceId: workspace.id } });
    expect(tokens.length).toBe(1);
    expect(tokens[0]!.revokedAt).toBeInstanceOf(Date);
  });

  it("a task variant (notes_create@1) runs with its own values: the report names it, the phone's evaluator asks for the variant's note", async () => {
    const ws = (await t.db.workspace.findFirst()) ?? (await seedWorkspace(t.db, "Suite team")).workspace;
    const r = await suite(["--tasks", "notes_create@1", "--workspace", ws.id]);
    expect(r.err).not.toMatch(/phoneloop suite:/);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[1]!.split(/\s+/).slice(0, 3).join(" ")).toBe("notes_create@1 1 1.00");
    const suiteRunId = /suite run (\S+) \(completed\)/.exec(r.out)![1]!;
    const attempt = (await suiteRunDetail(t.db, { suiteRunId })).attempts[0]!;
    expect(attempt.taskId).toBe("notes_create@1");
    const goal = await t.db.goal.findFirstOrThrow({ where: { runs: { some: { id: attempt.runId! } } } });
    expect(goal.title + goal.objective).toContain("Weekend plans");
  });

  it("perturbations reach each attempt's phone: the permission prompt and the surprise dialog are dealt with on the way", async () => {
    const r = await suite(["--tasks", "settings_bluetooth_on", "--perturb", "permission,popup"]);
    expect(r.code).toBe(0);
    expect(r.out.trim().split("\n").at(-1)).toMatch(/^tasks=1 success_rate=1 /);
    const suiteRunId = /suite run (\S+) \(completed\)/.exec(r.out)![1]!;
    const detail = await suiteRunDetail(t.db, { suiteRunId });
    expect(detail.perturbations).toEqual(["permission", "popup"]);
    const actions = (await t.db.step.findMany({ where: { runId: detail.attempts[0]!.runId! }, select: { action: true } })).map((s) => JSON.stringify(s.action));
    // the system's permission prompt was on the phone when Settings opened, and the agent answered it
    expect(actions.some((a) => a.includes("Don't allow"))).toBe(true);
  });

  it("refuses bad arguments before starting anything, saying what to write", async () => {
    expect(await suite(["--tasks", "no_such_task_*"])).toMatchObject({ code: 2, err: expect.stringMatching(/no task matches --tasks no_such_task_\*; the tasks are: settings_wifi_off/) });
    expect(await suite(["--tasks", "*", "--perturb", "quake"])).toMatchObject({ code: 2, err: expect.stringMatching(/unknown perturbation "quake"/) });
    expect(await suite(["--tasks", "*", "--seeds", "0"])).toMatchObject({ code: 2, err: expect.stringMatching(/--seeds must be a whole number from 1 to 100/) });
    expect(await suite(["--tasks", "*", "--api-url", "http://127.0.0.1:9"])).toMatchObject({ code: 2, err: expect.stringMatching(/PHONELOOP_AGENT_TOKEN/) });
    expect(await suite(["--tasks", "*", "--model", "/nonexistent/profile.yaml"])).toMatchObject({ code: 1, err: expect.stringMatching(/cannot read the model profile/) });
  });
});
