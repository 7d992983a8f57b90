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
] as const;
export type RunEndReason = (typeof RUN_END_REASONS)[number];
export const RunEndReasonSchema = z.enum(RUN_END_REASONS);
