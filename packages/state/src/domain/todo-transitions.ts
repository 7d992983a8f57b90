// Todo states and their legal transitions, defined once as data. Every operator that moves a todo asks
// `nextTodoState`; nothing else decides whether a move is legal.
import { StateError } from "./errors.ts";

export const TODO_STATES = ["pending", "claimed", "running", "validating", "done", "failed", "blocked", "superseded"] as const;
export type TodoState = (typeof TODO_STATES)[number];

export const TODO_EVENTS = [
  "claim", // a peer takes a pending todo under a lease
  "reclaim", // a peer takes a todo whose holder's lease expired
  "start", // the holder begins work on the phone
  "validate", // the holder reports "done"; a check must confirm it
  "writeback", // validated progress is written back; work continues
  "complete", // validated completion
  "retry", // the turn failed in a way the holder may repair (attempts + 1)
  "fail", // the todo cannot be done as written
  "block", // someone other than the holder must act (a gate, a replan)
  "release", // the holder gives the todo back to the pool
  "reopen", // a blocked or failed todo returns to the pool
  "supersede", // the planner replaced it (with a reason; never deleted)
] as const;
export type TodoEvent = (typeof TODO_EVENTS)[number];

/** from state → event → to state. Absent means illegal. */
export const TODO_TRANSITIONS: { readonly [S in TodoState]: Partial<Record<TodoEvent, TodoState>> } = {
  pending: { claim: "claimed", block: "blocked", supersede: "superseded" },
  claimed: { start: "running", complete: "done", release: "pending", reclaim: "claimed", block: "blocked", fail: "failed" },
  running: {
    validate: "validating",
    writeback: "running",
    complete: "done",
    retry: "running",
    release: "pending",
    reclaim: "claimed",
    block: "blocked",
    fail: "failed",
  },
  validating: { writeback: "running", complete: "done", retry: "running", release: "pending", reclaim: "claimed", block: "blocked", fail: "failed" },
  blocked: { reopen: "pending", supersede: "superseded", fail: "failed" },
  failed: { reopen: "pending", supersede: "superseded" },
  done: {},
  superseded: {},
};

/** States in which a todo is held under a lease; writes to it need the current lease. */
export const HELD_STATES: readonly TodoState[] = ["claimed", "running", "validating"];
export const TERMINAL_STATES: readonly TodoState[] = ["done", "superseded"];

export function legalTodoEvents(from: TodoState): TodoEvent[] {
  return Object.keys(TODO_TRANSITIONS[from]) as TodoEvent[];
}

export function canTransitionTodo(from: TodoState, event: TodoEvent): boolean {
  return TODO_TRANSITIONS[from][event] !== undefined;
}

/** The state after `event`, or ILLEGAL_TRANSITION naming the current state and what may happen next. */
export function nextTodoState(from: TodoState, event: TodoEvent, todoId = "todo"): TodoState {
  const to = TODO_TRANSITIONS[from][event];
  if (to) return to;
  const legal = legalTodoEvents(from);
  throw new StateError(
    "ILLEGAL_TRANSITION",
    `Cannot ${event} ${todoId}: it is ${from}. ` +
      (legal.length ? `From ${from} it may only: ${legal.join(", ")}.` : `${from} is final; nothing may follow it.`),
    { todoId, from, event, legal },
  );
}

/** Whether this event ends the holder's lease (the todo leaves the held states). */
export function endsLease(event: TodoEvent, to: TodoState): boolean {
  return event !== "reclaim" && !HELD_STATES.includes(to);
}
