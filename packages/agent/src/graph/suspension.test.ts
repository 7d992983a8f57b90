// The state core goes away mid-run (the API or Postgres down or frozen: every call fails the way the client reports
// a call its own retries gave up on) for longer than the worker's lease. The run is suspended, not ended: once the
// core answers again the same worker resumes it from its checkpoint, claims its todo again under a new epoch (the
// old epoch's late write is a conflict), and no step is repeated or lost; the suspension is a typed evidence row.
// The drill with a real frozen Postgres is packages/cli/src/agent/infra-drills.e2e.test.ts.
import { describe, expect, it } from "vitest";
import { runAgent } from "./run.ts";
import { act } from "../testing/scripted-model-server.ts";
import { ladderPhone, onEachTap, tapRow, tappedRows } from "./ladder-testing.ts";
import { useHarness } from "../testing/use-harness.ts";
import { API_UNREACHABLE, ControlPlaneConflict, leaseRefOf, outageFeed, type ControlPlane, type Lease } from "../ports.ts";

const agent = { id: "worker-suspended", name: "worker", kind: "headless" as const, capabilities: ["phone"] };
const harness = useHarness();

interface Outage {
  away: boolean;
  failed: number;
  /** It answers again after this many failed calls. */
  failures: number;
}

/** The core as the worker sees it: while `o.away`, every call fails as API_UNREACHABLE. */
function behind(cp: ControlPlane, o: Outage): ControlPlane {
  return new Proxy(cp, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        if (o.away) {
          if (++o.failed >= o.failures) o.away = false;
          return Promise.reject(Object.assign(new Error("Cannot reach the PhoneLoop API at http://127.0.0.1:4000 (ETIMEDOUT; 9 attempts over 30.0 s)."), { code: API_UNREACHABLE }));
        }
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe("the state core goes away longer than the lease", () => {
  it("the run is suspended with a summary and the same worker resumes it: its todo claimed again under a new epoch, no step repeated or lost", async () => {
    const phone = ladderPhone();
    const away: Outage = { away: false, failed: 0, failures: 4 };
    let oldLease: Lease | undefined;
    // Right after the 3rd tap reaches the phone the core stops answering, and stays away past the lease.
    const device = onEachTap(phone, (n) => {
      if (n === 3) {
        oldLease = [...h.cp.leases.values()][0];
        away.away = true;
        h.clock.advance(61_000);
      }
    });
    const h = await harness({ device, executor: [tapRow(0), tapRow(1), tapRow(2), tapRow(3), tapRow(4), act({ type: "status", status: "complete" })] });
    const events: string[] = [];
    const out = await runAgent({ ...h.ports, controlPlane: behind(h.cp, away) }, { goal: "Open five items in order", agent, config: { leaseTtlMs: 60_000 }, onEvent: (e) => e.type === "anomaly" && events.push(e.kind) });
    expect(out).toMatchObject({ status: "completed", agentId: agent.id });
    expect(away.failed).toBe(4);
    expect(events).toContain("suspended");

    // Every row tapped once, in order: the tap the outage caught was recorded as interrupted, never repeated.
    expect(tappedRows(phone)).toEqual([0, 1, 2, 3, 4]);
    expect(h.cp.stepsOf(out.runId).map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5]);

    // The same agent holds the todo again under a new epoch; the old epoch's late write is a conflict.
    expect(oldLease).toMatchObject({ ownerId: agent.id, epoch: 1 });
    expect([...h.cp.leases.values()].map((l) => [l.ownerId, l.epoch])).toEqual([[agent.id, 2]]);
    await expect(h.cp.appendEvidence({ idempotencyKey: "late-write", kind: "action", goalId: out.goalId, todoId: oldLease!.todoId, lease: leaseRefOf(oldLease!), summary: "late", data: { action: { type: "navigate_back" } } })).rejects.toBeInstanceOf(ControlPlaneConflict);

    // What the team reads: one suspension, why, and where the run went on from.
    const suspended = [...h.cp.evidence.values()].filter((e) => e.kind === "anomaly" && (e.data as { fault?: string }).fault === "suspended");
    expect(suspended).toHaveLength(1);
    expect(suspended[0]!.data).toMatchObject({ fault: "suspended", cause: "api_unreachable", node: "executor", todoId: oldLease!.todoId, stepIndex: 2 });
    expect(suspended[0]!.summary).toMatch(/^Suspended: the state core did not answer\. .* resumed the run from its last checkpoint, at step 3 of todo /);
  });

  it("the core goes away while the model is asked: the suspension names the step being taken, and the recorded steps stay what they were", async () => {
    const phone = ladderPhone();
    const away: Outage = { away: false, failed: 0, failures: 4 };
    // Two steps recorded; while the model is asked for the third, the core stops answering (past the lease).
    const goneWhileAsked = (): ReturnType<typeof tapRow> => {
      away.away = true;
      h.clock.advance(61_000);
      return tapRow(2);
    };
    const h = await harness({ device: phone, executor: [tapRow(0), tapRow(1), goneWhileAsked, tapRow(2), tapRow(3), tapRow(4), act({ type: "status", status: "complete" })] });
    const out = await runAgent({ ...h.ports, controlPlane: behind(h.cp, away) }, { goal: "Open five items in order", agent, config: { leaseTtlMs: 60_000 } });
    expect(out).toMatchObject({ status: "completed" });
    expect(tappedRows(phone)).toEqual([0, 1, 2, 3, 4]);
    const suspended = [...h.cp.evidence.values()].filter((e) => e.kind === "anomaly" && (e.data as { fault?: string }).fault === "suspended");
    expect(suspended).toHaveLength(1);
    expect(suspended[0]!.data).toMatchObject({ node: "executor", stepIndex: 2 });
    expect(suspended[0]!.summary).toMatch(/at step 3 of todo /);
    // The step recorded before the outage is not reported as interrupted or unknown afterwards, to the model or in its row.
    expect(h.cp.stepsOf(out.runId).map((st) => st.outcome.outcome)).toEqual(["ok", "ok", "ok", "ok", "ok", "complete"].map((o) => expect.stringMatching(new RegExp(`^${o}`))));
    expect(h.executorRequests()[3]!.lastUserText).not.toMatch(/interrupted|not recorded|unknown/);
  });

  it("the suspension row counts the client's own tries too: a request that hung until its deadline before the client gave up is in the outage's duration", async () => {
    const phone = ladderPhone();
    const away: Outage = { away: false, failed: 0, failures: 3 };
    const outages = outageFeed();
    // While the model is asked for the third step the core stops answering; the client hung 130 s on one request
    // until its deadline and gave up (it reports that outage before the error reaches the run).
    const goneWhileAsked = (): ReturnType<typeof tapRow> => {
      away.away = true;
      h.clock.advance(130_000);
      outages.report({ procedure: "step.record", fault: "ETIMEDOUT", lastFault: "ETIMEDOUT", startedAt: h.clock.now() - 130_000, durationMs: 130_000, attempts: 1, outcome: "gave_up" });
      return tapRow(2);
    };
    const h = await harness({ device: phone, executor: [tapRow(0), tapRow(1), goneWhileAsked, tapRow(2), tapRow(3), tapRow(4), act({ type: "status", status: "complete" })] });
    const out = await runAgent({ ...h.ports, controlPlane: behind(h.cp, away), outages }, { goal: "Open five items in order", agent, config: { leaseTtlMs: 60_000 } });
    expect(out).toMatchObject({ status: "completed" });
    const suspended = [...h.cp.evidence.values()].filter((e) => e.kind === "anomaly" && (e.data as { fault?: string }).fault === "suspended");
    expect(suspended).toHaveLength(1);
    const data = suspended[0]!.data as { retriedMs: number; suspendedMs: number; outageMs: number; attempts: number };
    expect(data).toMatchObject({ retriedMs: 130_000, attempts: 1 });
    expect(data.outageMs).toBe(data.retriedMs + data.suspendedMs);
    expect(suspended[0]!.summary).toMatch(/The client tried step\.record 1 time over 130\.0 s \(ETIMEDOUT\) before giving up; then the worker waited [\d.]+ s more/);
  });

  it("a core that stays away past suspendMaxMs stops the run at its last checkpoint with API_UNREACHABLE (a later worker resumes it)", async () => {
    const phone = ladderPhone();
    const away: Outage = { away: false, failed: 0, failures: Number.POSITIVE_INFINITY };
    const device = onEachTap(phone, (n) => {
      if (n === 2) away.away = true;
    });
    const h = await harness({ device, executor: [tapRow(0), tapRow(1), tapRow(2), act({ type: "status", status: "complete" })] });
    const run = runAgent({ ...h.ports, controlPlane: behind(h.cp, away) }, { goal: "Open items", agent, config: { suspendMaxMs: 60_000 } });
    await expect(run).rejects.toMatchObject({ code: API_UNREACHABLE });
    // It waited with growing pauses until suspendMaxMs, then gave up: nothing was written meanwhile.
    expect(h.clock.sleeps.filter((ms) => ms >= 250).length).toBeGreaterThan(3);
    const runId = [...h.cp.runs.keys()][0]!;
    expect(h.cp.runs.get(runId)!.status).toBe("running");
    expect([...h.cp.evidence.values()].filter((e) => (e.data as { fault?: string }).fault === "suspended")).toEqual([]);
  });

  it("a run the reaper marked interrupted while its worker could not write is taken back by the same worker, which goes on", async () => {
    const phone = ladderPhone();
    const h = await harness({ device: phone, executor: [tapRow(0), tapRow(1), tapRow(2), act({ type: "status", status: "complete" })] });
    const cp = h.cp;
    let refused = 0;
    // The 3rd step record meets the core's answer for a run the reaper interrupted (what the API says then): the
    // reaper interrupts a run only when its worker is silent and holds no unexpired lease, so the lease has lapsed.
    const port = new Proxy(cp, {
      get(target, prop, receiver) {
        const v: unknown = Reflect.get(target, prop, receiver);
        if (prop !== "recordStep" || typeof v !== "function") return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        return async (r: Parameters<ControlPlane["recordStep"]>[0]) => {
          if (r.step?.index === 2 && refused++ === 0) {
            h.clock.advance(61_000);
            throw Object.assign(new Error(`run.recordStep: Cannot record a step of run ${r.runId}: it is interrupted. A finished run only reads; start a new run.`), { code: "ILLEGAL_TRANSITION", details: { runId: r.runId, status: "interrupted", legal: [] } });
          }
          return cp.recordStep(r);
        };
      },
    });
    const out = await runAgent({ ...h.ports, controlPlane: port }, { goal: "Open three items", agent, config: { leaseTtlMs: 60_000 } });
    expect(out.status).toBe("completed");
    expect(refused).toBeGreaterThan(0);
    expect(phone.actions().filter((c) => c.op === "tap")).toHaveLength(3);
    expect(h.cp.stepsOf(out.runId).map((s) => s.index)).toEqual([0, 1, 2, 3]);
    const suspended = [...h.cp.evidence.values()].filter((e) => (e.data as { fault?: string }).fault === "suspended");
    expect(suspended.map((e) => (e.data as { cause: string }).cause)).toEqual(["run_interrupted"]);
    expect(h.cp.runs.get(out.runId)!.startedBy).toEqual([agent.id, agent.id]);
  });

  it("the answer to finishing the run is lost (it landed): the run is over, not resumed", async () => {
    const phone = ladderPhone();
    const h = await harness({ device: phone, executor: [tapRow(0), act({ type: "status", status: "complete" })] });
    const cp = h.cp;
    let lost = 0;
    const port = new Proxy(cp, {
      get(target, prop, receiver) {
        const v: unknown = Reflect.get(target, prop, receiver);
        if (prop !== "finishRun" || typeof v !== "function") return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        return async (input: Parameters<ControlPlane["finishRun"]>[0]) => {
          await cp.finishRun(input);
          if (lost++ === 0) throw Object.assign(new Error("Cannot reach the PhoneLoop API at http://127.0.0.1:4000 (ETIMEDOUT)."), { code: API_UNREACHABLE });
        };
      },
    });
    const out = await runAgent({ ...h.ports, controlPlane: port }, { goal: "Open one item", agent });
    expect(out).toMatchObject({ status: "completed", endReason: "all_done" });
    expect(lost).toBe(1);
    expect(h.cp.runs.get(out.runId)!.status).toBe("completed");
    expect(h.cp.runs.get(out.runId)!.startedBy).toEqual([agent.id]);
  });
});
