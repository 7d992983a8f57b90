// The API's reaper: every `intervalMs` it interrupts runs whose worker died (reapRuns) and expires gates past their
// expiry (expireGates), so nothing stays `running` without a worker. Ticks never overlap; the work is the state
// core's operators, so several API processes may reap at once (each run is re-checked under its row lock).
import { expireGates, reapRuns, type Db, type OperatorContext } from "@phoneloop/state";
import { startPeriodicPass } from "./periodic-pass.ts";

export interface ReaperOptions {
  intervalMs: number;
  /** An agent whose heartbeat is older than this, holding no unexpired lease, is gone. */
  agentStaleMs: number;
  onLog?: (line: string) => void;
  /** Operators' time (tests pass a manual clock); default the database's now(). */
  ctx?: OperatorContext;
}

export interface Reaper {
  /** One pass now (also what each interval runs). */
  tick(): Promise<{ interruptedRunIds: string[]; expiredGateIds: string[] }>;
  close(): Promise<void>;
}

export function startReaper(db: Db, opts: ReaperOptions): Reaper {
  const log = opts.onLog ?? (() => {});
  const ctx: OperatorContext = { actor: "reaper", ...opts.ctx };

  const tick = async () => {
    const runs = await reapRuns(db, { agentStaleMs: opts.agentStaleMs }, ctx);
    const gates = await expireGates(db, {}, ctx);
    for (const r of runs) log(`reaper: run ${r.runId} interrupted (worker ${r.agentId} silent since ${r.heartbeatAt.toISOString()}, no lease)`);
    if (gates.gateIds.length) log(`reaper: expired gates ${gates.gateIds.join(", ")}`);
    if (gates.escalatedGateIds.length) log(`reaper: escalated gates to the admins ${gates.escalatedGateIds.join(", ")}`);
    return { interruptedRunIds: runs.map((r) => r.runId), expiredGateIds: gates.gateIds };
  };
  return startPeriodicPass("reaper", opts.intervalMs, tick, log);
}
