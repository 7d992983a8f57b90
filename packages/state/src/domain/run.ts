// A run's status, and why it ended: the runtime reports one of these words when it finishes a run.
import { z } from "zod";

// `interrupted`: its worker died (lease expired, heartbeat stale); not finished, any eligible worker may resume it.
export const RUN_STATUSES = ["running", "completed", "partial", "blocked", "failed", "cancelled", "interrupted"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** The statuses a run ends with (finishRun): not running, and not interrupted (which waits to be resumed). */
export const RUN_END_STATUSES = ["completed", "partial", "blocked", "failed", "cancelled"] as const;
export type RunEndStatus = (typeof RUN_END_STATUSES)[number];

/** A reviewer's grade of a run's replay: A as intended, B done with extra questions, C done with a side effect, D off course. */
export const RUN_GRADES = ["A", "B", "C", "D"] as const;
export type RunGrade = (typeof RUN_GRADES)[number];

export const RUN_END_REASONS = [
  "completed", // every todo of the run's scope reached done
  "all_done", // no todo was left to claim: the goal's plan is finished
  "device_lost", // the phone disconnected and did not come back in time
  "gate_waiting", // an open gate waits for a person's answer
  "goal_paused", // the goal was paused while the run was working
  "goal_cancelled", // the goal was cancelled while the run was working
  "exhausted", // a quota window has no budget left
  "throttled", // the next turn would not fit the remaining quota
  "cancelled", // the run was stopped by its operator (a signal, a closed tab)
  "step_cap", // one todo used up the steps a turn may take
  "scroll_streak", // the executor kept scrolling (more than 8 of its last 12 steps) without finding what it needs
  "run_step_cap", // the run used up the steps it may take in total
  "model_failed", // the model kept failing (errors, unusable answers) after retries
  "lease_lost", // another agent took the todo over (a newer lease fenced this one)
  "todo_blocked", // the todo is blocked and needs a replan or a person
  "infeasible", // the planner found the goal cannot be done as written
  "writeback_failed", // validated results could not be written back to the core
  "wip_limit", // the next todo could not be claimed: a WIP limit of the workspace (a lane, or this phone) was reached
] as const;
export type RunEndReason = (typeof RUN_END_REASONS)[number];
export const RunEndReasonSchema = z.enum(RUN_END_REASONS);

/**
 * A stop whose cause can go away: the run ended `blocked` (or `failed` when its phone went away) for one of these
 * reasons, and `run.resume` takes it up again from its checkpoint once the cause is gone. `cause` says what stopped
 * it and `remedy` what removes the cause, both in words a person reads on the board and the CLI prints.
 */
export interface RunStop {
  reason: RunEndReason;
  cause: string;
  remedy: string;
}

const STOPS: Partial<Record<RunEndReason, Omit<RunStop, "reason">>> = {
  exhausted: { cause: "its quota had no budget left", remedy: "an admin raises the quota (or its window resets), then resume the run" },
  throttled: { cause: "its next turn did not fit the quota left", remedy: "an admin raises the quota (or its window resets), then resume the run" },
  goal_paused: { cause: "its goal was paused", remedy: "resume the goal, then resume the run" },
  gate_waiting: { cause: "a gate waited for a person's answer", remedy: "an approver answers the gate, then resume the run" },
  model_failed: { cause: "the model endpoint kept failing", remedy: "fix the model settings or wait until the endpoint answers, then resume the run" },
  device_lost: { cause: "the connection to its phone was lost", remedy: "connect the same phone (the same serial) again and resume the run with it" },
  todo_blocked: { cause: "a todo was blocked and needed a replan or a person", remedy: "unblock or replan the todo, then resume the run" },
  writeback_failed: { cause: "validated results could not be written to the state core (the API or its database did not answer)", remedy: "when the API and its database answer again, resume the run" },
  lease_lost: { cause: "another worker took its todo over", remedy: "resume the run when that worker is done with the todo" },
  wip_limit: { cause: "a WIP limit of its workspace was reached (a lane of the board, or its phone)", remedy: "wait until a held todo finishes, or ask an admin to raise the limit on the board, then resume the run" },
};

/** The statuses a resumable stop ends with: blocked, and failed for a lost phone (the runtime's words for it). */
const STOP_STATUSES: readonly RunStatus[] = ["blocked", "failed"];

/** The run's stop when it is resumable (its cause can go away), else null: running, interrupted or truly finished. */
export function resumableStop(run: { status: string; endReason: string | null }): RunStop | null {
  if (!STOP_STATUSES.includes(run.status as RunStatus) || !run.endReason) return null;
  const stop = STOPS[run.endReason as RunEndReason];
  if (!stop) return null;
  // A failed run is resumable only when its phone went away; any other failure is final.
  if (run.status === "failed" && run.endReason !== "device_lost") return null;
  return { reason: run.endReason as RunEndReason, ...stop };
}

/** Whether a run may be taken up again: running (its worker restarted), interrupted, or a resumable stop. */
export function isResumable(run: { status: string; endReason: string | null }): boolean {
  return run.status === "running" || run.status === "interrupted" || resumableStop(run) !== null;
}

/** Why a finished run cannot be resumed, for the refusal: its status and what it means. */
export function whyFinal(run: { status: string; endReason: string | null }): string {
  const reason = run.endReason ? ` (${run.endReason})` : "";
  switch (run.status) {
    case "completed":
      return `it is completed${reason}: its work is done`;
    case "cancelled":
      return `it was cancelled${reason} by its operator`;
    case "partial":
      return `it ended partial${reason}: it used up its steps or found the goal cannot be done as written`;
    default:
      return `it is ${run.status}${reason}, which is final`;
  }
}
