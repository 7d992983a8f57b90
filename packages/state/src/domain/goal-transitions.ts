// Goal states and their legal transitions, as data.
import { StateError } from "./errors.ts";

export const GOAL_STATUSES = ["active", "paused", "cancelled", "completed"] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
export type GoalEvent = "pause" | "resume" | "cancel" | "complete";

export const GOAL_TRANSITIONS: { readonly [S in GoalStatus]: Partial<Record<GoalEvent, GoalStatus>> } = {
  active: { pause: "paused", cancel: "cancelled", complete: "completed" },
  paused: { resume: "active", cancel: "cancelled" },
  cancelled: {},
  completed: {},
};

export function nextGoalStatus(from: GoalStatus, event: GoalEvent, goalId = "goal"): GoalStatus {
  const to = GOAL_TRANSITIONS[from][event];
  if (to) return to;
  const legal = Object.keys(GOAL_TRANSITIONS[from]);
  throw new StateError(
    "ILLEGAL_TRANSITION",
    `Cannot ${event} goal ${goalId}: it is ${from}. ` +
      (legal.length ? `From ${from} it may only: ${legal.join(", ")}.` : `${from} is final.`),
    { goalId, from, event, legal },
  );
}
