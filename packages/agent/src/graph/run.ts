// The runner: the only loop that performs effects. It registers the agent, starts or resumes a run from its
// last checkpoint, and walks planner → executor → planner … → summarizer, checkpointing after every node.
import type { AgentPorts, AgentRegistration, RunStatus } from "../ports.ts";
import { runExecutor } from "./executor.ts";
import { runPlanner } from "./planner.ts";
import { runSummarizer, type RunReport } from "./summarizer.ts";
import { DEFAULT_CONFIG, guard, initialState, type AgentConfig, type AgentEvent, type RunContext, type RunState } from "./state.ts";

export interface RunAgentOptions {
  /** Work on an existing objective, or create one from `goal`. */
  goalId?: string;
  goal?: string;
  /** Resume this run from its last checkpoint (another worker's, after a crash or a closed tab). */
  runId?: string;
  agent: AgentRegistration;
  config?: Partial<AgentConfig>;
  /** Graceful cancel: the run is summarised. */
  signal?: AbortSignal;
  /** Hard stop (tests of crash recovery): nothing more is written. */
  kill?: AbortSignal;
  onEvent?: (e: AgentEvent) => void;
}

export interface RunOutcome {
  runId: string;
  goalId: string;
  agentId: string;
  status: RunStatus;
  resumed: boolean;
  report: RunReport;
}

function isRunState(x: unknown): x is RunState {
  return typeof x === "object" && x !== null && (x as RunState).version === 1 && typeof (x as RunState).runId === "string";
}

export async function runAgent(ports: AgentPorts, opts: RunAgentOptions): Promise<RunOutcome> {
  const cp = ports.controlPlane;
  const config: AgentConfig = { ...DEFAULT_CONFIG, ...opts.config };
  const ctx: RunContext = { ports, config, ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.kill ? { kill: opts.kill } : {}), ...(opts.onEvent ? { onEvent: opts.onEvent } : {}) };
  const { agentId } = await cp.registerAgent({ ...opts.agent, capabilities: opts.agent.capabilities.length ? opts.agent.capabilities : config.capabilities });

  // Resuming by run id alone: the checkpoint knows the objective and the goal.
  const early = opts.runId ? await cp.loadCheckpoint(opts.runId) : null;
  let goalId = opts.goalId ?? (isRunState(early) ? early.goalId : undefined);
  let goal = opts.goal ?? (isRunState(early) ? early.goal : undefined);
  if (goalId) {
    const o = await cp.getGoal(goalId);
    if (!o) throw Object.assign(new Error(`No objective ${goalId}; create it first or pass a goal.`), { code: "unknown_objective" });
    goal ??= o.goal;
  } else {
    if (!goal) throw Object.assign(new Error("A run needs a goal or an goalId."), { code: "missing_goal" });
    goalId = (await cp.createGoal({ goal })).goalId;
  }
  const started = await cp.startRun({ ...(opts.runId ? { runId: opts.runId } : {}), goalId, agentId, goal: goal! });
  const saved = started.resumed ? await cp.loadCheckpoint(started.runId) : null;
  const state: RunState = isRunState(saved) ? saved : initialState({ runId: started.runId, goalId, agentId, goal: goal!, preapproved: config.preapproved });
  const resumed = isRunState(saved);
  state.agentId = agentId;

  // Resuming an executor: the todo's lease belonged to the previous worker; claim it anew (a new epoch),
  // so any late write of the old worker is an explicit conflict.
  if (resumed && state.node === "executor" && state.executor) {
    const lease = await cp.claim({ agentId, goalId, capabilities: config.capabilities, todoId: state.executor.todoId, ttlMs: config.leaseTtlMs });
    if (!lease) {
      state.end = { status: "waiting", reason: `todo ${state.executor.todoId} is still leased by another worker` };
      state.node = "summarizer";
    } else {
      state.executor.lease = lease;
      await cp.startTodo(lease.todoId, lease);
    }
  }
  const checkpoint = (s: RunState) => (guard(ctx), cp.saveCheckpoint(s.runId, s));
  await checkpoint(state);

  let report: RunReport | null = null;
  while (state.node !== "end") {
    guard(ctx);
    ctx.onEvent?.({ type: "node", node: state.node });
    await cp.heartbeat(agentId);
    switch (state.node) {
      case "planner":
        await runPlanner(ctx, state);
        break;
      case "executor": {
        const ret = await runExecutor(ctx, state, checkpoint);
        ctx.onEvent?.({ type: "executor_return", ret });
        state.lastReturn = ret;
        state.node = "planner";
        break;
      }
      case "summarizer":
        report = await runSummarizer(ctx, state);
        state.node = "end";
        break;
    }
    await checkpoint(state);
  }
  report ??= (await cp.listEvidence({ goalId, runId: state.runId, kind: "summary" })).at(-1)?.data as RunReport | undefined ?? null;
  const status = state.end?.status ?? "completed";
  ctx.onEvent?.({ type: "end", status, reason: state.end?.reason ?? "" });
  return { runId: state.runId, goalId, agentId, status, resumed, report: report! };
}
