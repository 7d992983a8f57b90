// The acquire effect family: what the run holds and may do, as the state core says — claiming a todo again,
// keeping its lease and routing the next turn under it (with the step's record, in one transaction), and whether
// the run may go on calling models at all (its quota, a pause). Also which refusals of the core are a suspension of
// this worker rather than another worker taking its work.
import { API_UNREACHABLE, ControlPlaneConflict, leaseRefOf, type TurnRoute } from "../../ports.ts";
import type { InputEffect, Observation } from "../executor.ts";
import type { PlannerAnswers, PlannerEffect } from "../planner.ts";
import type { ExecutorRunState, RunCommon, RunContext } from "../state.ts";
import type { StepRecords } from "./step-record.ts";

/**
 * Why the state core stopped this run's worker without anyone else taking its work: it did not answer within the
 * client's retries (the API or Postgres away or frozen), this worker's own lease lapsed meanwhile (nobody else holds
 * the todo), or the reaper marked the run interrupted meanwhile. Anything else — another holder, a refused write —
 * is not a suspension.
 */
export type SuspensionCause = "api_unreachable" | "lease_expired" | "run_interrupted";

export function suspensionOf(e: unknown, agentId: string): SuspensionCause | null {
  const { code, details } = (e ?? {}) as { code?: unknown; details?: Record<string, unknown> | null };
  if (code === API_UNREACHABLE) return "api_unreachable";
  // The API's reaper took this worker for dead while it could not write (its heartbeat stale, its lease lapsed).
  if (code === "ILLEGAL_TRANSITION" && details?.status === "interrupted") return "run_interrupted";
  if (e instanceof ControlPlaneConflict && e.details && "currentHolder" in e.details) {
    const holder = e.details.currentHolder;
    if (holder === null || holder === agentId) return "lease_expired";
  }
  return null;
}

/** Claims the executor's todo again (after a resume, or after its gate closed: the core gave it back to the pool). */
export async function acquire(ctx: RunContext, state: ExecutorRunState, e: Extract<InputEffect, { type: "acquire" }>): Promise<Observation> {
  const cp = ctx.ports.controlPlane;
  const claim = await cp.claimNext({ agentId: state.agentId, goalId: state.goalId, ttlMs: ctx.config.leaseTtlMs });
  if (!claim.claimed) return { type: "not_acquired", reason: claim.reason };
  if (claim.todo.id !== e.todoId) {
    await cp.releaseLease(leaseRefOf(claim.lease), `this run continues ${e.todoId}, not ${claim.todo.id}`);
    return { type: "not_acquired", reason: `the next todo in order is now ${claim.todo.id} ("${claim.todo.title}")` };
  }
  await cp.startTodo(leaseRefOf(claim.lease));
  return { type: "acquired", lease: claim.lease };
}

/** Keeps the lease (renewed at half its life) and routes the next turn after recording the step's writes. */
export async function route(ctx: RunContext, state: ExecutorRunState, e: Extract<InputEffect, { type: "route" }>, records: StepRecords): Promise<Observation> {
  const cp = ctx.ports.controlPlane;
  let lease = e.lease;
  // Keep the lease: renew at half its life. A lost lease means another worker owns the todo now.
  if (lease.expiresAt - ctx.ports.clock.now() < ctx.config.leaseTtlMs / 2) {
    try {
      lease = await cp.renewLease(leaseRefOf(lease), ctx.config.leaseTtlMs);
    } catch (err) {
      // Our own lease lapsed (nobody else holds the todo): a suspension, the run loop takes it up again.
      if (err instanceof ControlPlaneConflict && suspensionOf(err, state.agentId) === null) return { type: "lease_lost", message: err.message };
      throw err;
    }
  }
  // The step's writes, the checkpoint after it and the route of the next turn: one record, one transaction, the
  // route read after the writes. The step row and the checkpoint that no longer holds its action in flight commit
  // together, so a worker resumed at any later moment (a kill while the model is asked, a suspension) reads a
  // history that says what happened; only an action whose record never committed is found in flight, and reported
  // as unknown.
  let r: { route: TurnRoute; reason: string };
  try {
    r = (await records.flush(state, { checkpoint: true, route: e.todoId }))!.route!;
  } catch (err) {
    // A person took over (a gate opened on the todo ended this lease between two steps): the step's writes are
    // refused, and the agent stops here and waits for that gate like any other.
    const openGate = err instanceof ControlPlaneConflict ? ((await cp.listTodos(state.goalId)).find((t) => t.id === e.todoId)?.openGate ?? null) : null;
    if (!openGate) throw err;
    return { type: "routed", route: "user_action_required", reason: `a person took over the todo: ${openGate.question}`, skip: null, openGate, leaseLost: true };
  }
  if (ctx.signal?.aborted) return { type: "cancelled" };
  if (r.route === "ready_for_host" || r.route === "repair_required") return { type: "routed", route: r.route, reason: r.reason, lease, skip: null, openGate: null };
  const sr = await cp.shouldRun({ agentId: state.agentId, goalId: state.goalId, todoId: e.todoId });
  const openGate = r.route === "user_action_required" ? ((await cp.listTodos(state.goalId)).find((t) => t.id === e.todoId)?.openGate ?? null) : null;
  return { type: "routed", route: r.route, reason: r.reason, lease, skip: sr.decision === "skip" ? { reason: sr.reason, message: sr.message } : null, openGate };
}

/** Whether the run may still call a model (shouldRun for the goal), and whether it was cancelled meanwhile. */
export async function mayRun(ctx: RunContext, run: Pick<RunCommon, "goalId" | "agentId">): Promise<{ type: "may_run"; run: boolean; cancelled: boolean }> {
  const sr = await ctx.ports.controlPlane.shouldRun({ agentId: run.agentId, goalId: run.goalId });
  return { type: "may_run", run: sr.decision === "run", cancelled: Boolean(ctx.signal?.aborted) };
}

/** The planner's reads and moves on the todos and their leases; each answer is what the planner asked for. */
export async function acquireForPlanner(
  ctx: RunContext,
  run: Pick<RunCommon, "goalId" | "agentId">,
  e: Extract<PlannerEffect, { type: "list_todos" | "get_goal" | "should_run" | "claim_next" | "start_todo" | "release_lease" | "reopen_todo" }>,
): Promise<PlannerAnswers[typeof e.type]> {
  const cp = ctx.ports.controlPlane;
  switch (e.type) {
    case "list_todos":
      return cp.listTodos(run.goalId);
    case "get_goal":
      return cp.getGoal(run.goalId);
    case "should_run":
      return cp.shouldRun({ agentId: run.agentId, goalId: run.goalId, ...(e.todoId ? { todoId: e.todoId } : {}) });
    case "claim_next":
      return cp.claimNext({ agentId: run.agentId, goalId: run.goalId, ttlMs: ctx.config.leaseTtlMs });
    case "start_todo":
      return cp.startTodo(e.lease);
    case "release_lease":
      return cp.releaseLease(e.lease, e.reason).catch((err: unknown) => (e.tolerateConflict && err instanceof ControlPlaneConflict ? undefined : Promise.reject(err)));
    case "reopen_todo":
      await cp.reopenTodo({ todoId: e.todoId, reason: e.reason });
  }
}
