// Routing of CONCEPTS §2 and the supervisor's reaction to an executor return, as pure functions.
import type { RunStatus, TurnResult } from "../ports.ts";
import type { ExecutorReturn, ExitReason, NodeName } from "./state.ts";

export type ReturnRoute =
  /** Validate the declared outputs, then continue with the next todo. */
  | { kind: "validate" }
  /** Ask the supervisor model: retry, replan or summarise. */
  | { kind: "supervise"; turn: TurnResult }
  /** Leave the todo waiting with a reason and end the run (it resumes later). */
  | { kind: "wait"; turn: TurnResult | null; reason: string }
  /** Stop: go to the summarizer with this run status. */
  | { kind: "stop"; turn: TurnResult; status: RunStatus; blocked: string };

export function routeReturn(ret: ExecutorReturn): ReturnRoute {
  const r: ExitReason = ret.reason;
  switch (r) {
    case "complete":
    case "answer":
      return { kind: "validate" };
    case "scroll_streak":
    case "step_cap":
    case "infeasible":
      return { kind: "supervise", turn: "replan_required" };
    case "run_step_cap":
      return { kind: "stop", turn: "replan_required", status: "partial", blocked: ret.summary };
    case "device_lost":
      // Connection lost → summarizer, no more retries.
      return { kind: "stop", turn: "host_failure", status: "device_lost", blocked: `Device connection lost: ${ret.summary}` };
    case "cancelled":
      return { kind: "stop", turn: "wait", status: "cancelled", blocked: "Cancelled by the user." };
    case "quota":
      return { kind: "wait", turn: "wait", reason: `quota exhausted: ${ret.summary}` };
    case "paused":
      return { kind: "wait", turn: "wait", reason: `paused: ${ret.summary}` };
    case "throttled":
      return { kind: "wait", turn: "wait", reason: `throttled: ${ret.summary}` };
    case "gate_waiting":
      return { kind: "wait", turn: "user_action_required", reason: ret.summary };
    case "model_failed":
      return { kind: "wait", turn: "wait", reason: `model endpoint failing: ${ret.summary}` };
    case "writeback_failed":
      return { kind: "wait", turn: null, reason: ret.summary };
    case "lease_lost":
      // Another worker owns the todo now: write nothing on it.
      return { kind: "wait", turn: null, reason: ret.summary };
  }
}

/** After the summarizer nothing runs; otherwise the planner decides (CONCEPTS §2 routing). */
export function nextNode(current: NodeName, cancelled: boolean, deviceLost: boolean, allDone: boolean): NodeName {
  if (current === "summarizer") return "end";
  if (cancelled || deviceLost || allDone) return "summarizer";
  return current === "executor" ? "planner" : current;
}
