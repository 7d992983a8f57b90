// A turn is routed before it runs and classified after. Both are pure: decide here, act in services/turn.
import type { TodoEvent, TodoState } from "./todo-transitions.ts";

export const TURN_ROUTES = [
  "ready_for_host",
  "repair_required",
  "replan_required",
  "user_action_required",
  "wait",
  "blocked",
  "contract_error",
] as const;
export type TurnRoute = (typeof TURN_ROUTES)[number];

export const TURN_RESULT_KINDS = [
  "validated_progress",
  "validated_completion",
  "repair_required",
  "replan_required",
  "user_action_required",
  "wait",
  "host_failure",
  "validation_failed",
  "writeback_failed",
  "quota_spend_failed",
] as const;
export type TurnResultKind = (typeof TURN_RESULT_KINDS)[number];

/** Each result kind moves the todo by exactly one transition. */
export const TURN_RESULT_TRANSITION: { readonly [K in TurnResultKind]: TodoEvent } = {
  validated_progress: "writeback",
  validated_completion: "complete",
  repair_required: "retry",
  replan_required: "block",
  user_action_required: "block",
  wait: "release",
  host_failure: "release",
  validation_failed: "retry",
  writeback_failed: "retry",
  quota_spend_failed: "block",
};

/** Only validated results spend quota: skips, failures and previews spend nothing. */
export const SPENDING_RESULTS: readonly TurnResultKind[] = ["validated_progress", "validated_completion"];

/** Results after which the holder should repair its next action before retrying. */
export const REPAIR_RESULTS: readonly string[] = ["repair_required", "validation_failed", "writeback_failed"];

export interface TurnSnapshot {
  goalStatus: "active" | "paused" | "cancelled" | "completed";
  todo: { state: TodoState; attempts: number; lastResult: string | null; inputs: string[]; values: Record<string, unknown> };
  /** The values of the goal's done todos: a todo's inputs are the outputs of earlier todos (the blackboard). */
  doneValues: Record<string, unknown>;
  /** The active lease on the todo, if any. */
  lease: { ownerId: string; expired: boolean } | null;
  agentId: string;
  openGates: number;
  quota: { decision: "run" } | { decision: "skip"; reason: string };
  maxAttempts: number;
}

export interface TurnRouteDecision {
  route: TurnRoute;
  reason: string;
}

/** Where the next turn goes, from state alone. Order matters: the first rule that applies wins. */
export function decideTurnRoute(s: TurnSnapshot): TurnRouteDecision {
  const { todo } = s;
  if (s.goalStatus !== "active") return { route: "blocked", reason: `the goal is ${s.goalStatus}` };
  if (todo.state === "done" || todo.state === "superseded") return { route: "blocked", reason: `the todo is ${todo.state}` };
  if (s.openGates > 0) return { route: "user_action_required", reason: `${s.openGates} open gate(s) wait for an answer` };
  if (todo.state === "blocked") return { route: "blocked", reason: "the todo is blocked" };
  if (todo.state === "failed" || todo.attempts >= s.maxAttempts) {
    return { route: "replan_required", reason: todo.state === "failed" ? "the todo failed" : `${todo.attempts} attempts used` };
  }
  if (s.quota.decision === "skip") {
    return s.quota.reason === "throttled" ? { route: "wait", reason: "quota throttled" } : { route: "blocked", reason: `quota ${s.quota.reason}` };
  }
  if (todo.state === "pending") return { route: "wait", reason: "the todo is not claimed; claim it first" };
  if (!s.lease) return { route: "contract_error", reason: `the todo is ${todo.state} but has no active lease` };
  if (s.lease.ownerId !== s.agentId) return { route: "wait", reason: `the todo is held by ${s.lease.ownerId}` };
  if (s.lease.expired) return { route: "contract_error", reason: "your lease expired; claim the todo again" };
  const missing = missingInputs(todo, s.doneValues);
  if (missing.length) return { route: "contract_error", reason: `inputs no done todo of the goal gave: ${missing.join(", ")}; replan so an earlier todo outputs them` };
  if (todo.state === "validating") return { route: "wait", reason: "the last result is being validated" };
  if (todo.lastResult && REPAIR_RESULTS.includes(todo.lastResult)) {
    return { route: "repair_required", reason: `the last turn ended ${todo.lastResult}` };
  }
  return { route: "ready_for_host", reason: "held, unblocked, within quota" };
}

/** The todo's inputs found neither in its own values nor in the values of its goal's done todos. */
export function missingInputs(todo: { inputs: string[]; values: Record<string, unknown> }, doneValues: Record<string, unknown>): string[] {
  return todo.inputs.filter((k) => !(k in todo.values) && !(k in doneValues));
}
