// Resuming a run by id: while the run's worker still holds a lease on the goal's todos it may be alive, so the
// core answers CONFLICT naming it and until when; this waits for that moment (saying so) instead of ending the
// run. The same agent id — a restarted worker — is let in at once by the core, so it never waits here. A run that
// stopped for a cause the core can check (its quota, a pause, a gate, another phone) is refused with what removes it.
import { ControlPlaneConflict, type AgentRegistration, type Clock, type ControlPlane } from "@phoneloop/agent";

export interface ResumeWait {
  runId: string;
  /** The worker that holds the run's lease. */
  holder: string;
  /** When its lease ends (ISO time). */
  until: string;
}

/** A small margin past the lease's end, so the next try finds it expired on the database's clock too. */
const AFTER_EXPIRY_MS = 250;

export async function waitToResume(
  cp: ControlPlane,
  opts: {
    runId: string;
    agent: AgentRegistration & { id: string };
    /** The phone the run goes on with (null: it could not be read; connecting reports that itself). */
    phone?: Promise<{ serial: string; model: string } | null>;
    clock: Clock;
    signal?: AbortSignal;
    onWait?: (w: ResumeWait) => void;
  },
): Promise<void> {
  // Registered with its phone: the core takes a run stopped for a lost phone up again with that same phone only.
  const phone = await opts.phone;
  await cp.registerAgent({ ...opts.agent, ...(phone ? { meta: { ...opts.agent.meta, device: phone } } : {}) });
  for (;;) {
    try {
      await cp.resumeRun({ runId: opts.runId, agentId: opts.agent.id });
      return;
    } catch (e) {
      const until = e instanceof ControlPlaneConflict ? e.details?.expiresAt : undefined;
      if (typeof until !== "string") throw e;
      const holder = String((e as ControlPlaneConflict).details?.currentHolder ?? "another worker");
      opts.onWait?.({ runId: opts.runId, holder, until });
      await opts.clock.sleep(Math.max(AFTER_EXPIRY_MS, Date.parse(until) - opts.clock.now() + AFTER_EXPIRY_MS), opts.signal);
    }
  }
}

/** How to resume this run, as the worker prints it first: the same agent id takes its own lease over at once. */
export function resumeHint(run: { runId: string; agentId: string }, argv: string[]): string {
  const at = argv.findIndex((a) => a === "--device" || a.startsWith("--device="));
  const device = at < 0 ? "<spec>" : argv[at]!.startsWith("--device=") ? argv[at]!.slice("--device=".length) : (argv[at + 1] ?? "<spec>");
  return `npm run agent -- --run-id ${run.runId} --agent-id ${run.agentId} --device ${device}`;
}
