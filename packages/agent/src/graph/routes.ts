// The classification of an executor exit: which turn result the runtime records and how the run goes on. Routing
// BEFORE a turn is the state core's (`routeTurn`); this only reads what the executor handed back.
import type { RunEndReason, RunEndStatus, SkipReason, TurnResultKind } from "../ports.ts";
import type { ExecutorReturn } from "./state.ts";

export type ReturnRoute =
  /** Validate the declared outputs, then continue with the next todo. */
  | { kind: "validate" }
  /** Record the turn, then ask the supervisor model: retry, replan or summarise. */
  | { kind: "supervise"; turn: TurnResultKind }
  /** Record the turn (when there is one to record) and end the run with this status; it may resume later. */
  | { kind: "stop"; turn: TurnResultKind | null; status: Exclude<RunEndStatus, "completed">; detail: string };

export function routeReturn(ret: Pick<ExecutorReturn, "reason" | "summary">): ReturnRoute {
  const r: RunEndReason = ret.reason;
  switch (r) {
    case "completed":
    case "all_done":
      return { kind: "validate" };
    case "scroll_streak":
    case "step_cap":
    case "infeasible":
      return { kind: "supervise", turn: "replan_required" };
    case "run_step_cap":
      return { kind: "stop", turn: "replan_required", status: "partial", detail: ret.summary };
    case "device_lost":
      // A lost connection ends this worker's part: no retries; the todo goes back to the pool for a worker with a
      // phone, and the run resumes when its phone is back. The executor's summary already says what was lost.
      return { kind: "stop", turn: "host_failure", status: "failed", detail: ret.summary };
    case "cancelled":
    case "goal_cancelled":
      return { kind: "stop", turn: "wait", status: "cancelled", detail: "Cancelled by the user." };
    case "exhausted":
      return { kind: "stop", turn: "wait", status: "blocked", detail: `quota exhausted: ${ret.summary}` };
    case "goal_paused":
      return { kind: "stop", turn: "wait", status: "blocked", detail: `paused: ${ret.summary}` };
    case "throttled":
      return { kind: "stop", turn: "wait", status: "blocked", detail: `throttled: ${ret.summary}` };
    case "model_failed":
      return { kind: "stop", turn: "wait", status: "blocked", detail: `model endpoint failing: ${ret.summary}` };
    case "gate_waiting":
      // Opening the gate blocked the todo (the core did, in the same transaction): nothing to record on it.
      return { kind: "stop", turn: null, status: "blocked", detail: ret.summary };
    case "todo_blocked":
    case "writeback_failed":
      return { kind: "stop", turn: null, status: "blocked", detail: ret.summary };
    case "lease_lost":
    // Another worker owns the todo now: write nothing on it.
    case "wip_limit":
      // The todo was never claimed (a WIP limit of the workspace): nothing to record; the run waits, resumable.
      return { kind: "stop", turn: null, status: "blocked", detail: ret.summary };
  }
}

/** The run end reason for a refusal of the core's shouldRun. */
export function endReasonOfSkip(reason: SkipReason): RunEndReason {
  switch (reason) {
    case "goal_paused":
    case "goal_cancelled":
    case "gate_waiting":
    case "todo_blocked":
    case "exhausted":
    case "throttled":
      return reason;
    case "goal_completed":
    case "todo_finished":
      return "completed";
  }
}

/** The executor's status for an exit reason. */
export function statusForExit(reason: RunEndReason): ExecutorReturn["status"] {
  if (reason === "completed" || reason === "all_done") return "completed";
  if (reason === "scroll_streak" || reason === "step_cap" || reason === "run_step_cap" || reason === "infeasible") return "partial";
  return "blocked";
}
