// Post-execute anomaly detection (docs/concepts.md, "Detectors"), with its exact thresholds. Pure functions over the step history.
import type { Action } from "../actions/schema.ts";
import { hammingDistance } from "./phash.ts";

export { phash, hammingDistance, PHASH_SIZE } from "./phash.ts";

export const DETECTOR_LIMITS = {
  repetitionWindow: 10,
  repetitionRun: 5,
  /** Points closer than this many device pixels count as the same point. */
  similarPx: 50,
  frozenRun: 3,
  scrollStreakMax: 8,
  /** pHash distance at or below which two screenshots are "identical" (a blinking cursor or clock moves a bit or two). */
  sameScreenBits: 2,
} as const;

export type AnomalyKind = "repetition" | "cycle" | "frozen_screen" | "oscillation" | "scroll_streak";

export interface Anomaly {
  kind: AnomalyKind;
  message: string;
}

/** One executed action, with its resolved point in device pixels when it had one. */
export interface ActionSample {
  type: Action["type"];
  /** Non-point arguments that make two actions "the same" (direction, text, app…). */
  key: string;
  px?: { x: number; y: number };
}

export function sampleOf(action: Action, px: { x: number; y: number } | undefined): ActionSample {
  const { thought: _t, intent: _i, x: _x, y: _y, element: _e, ...rest } = action as Action & { x?: number; y?: number; element?: string };
  return { type: action.type, key: JSON.stringify(rest), ...(px ? { px } : {}) };
}

export function similar(a: ActionSample, b: ActionSample, limits = DETECTOR_LIMITS): boolean {
  if (a.type !== b.type) return false;
  if (a.px && b.px) return Math.hypot(a.px.x - b.px.x, a.px.y - b.px.y) < limits.similarPx;
  if (a.px || b.px) return false;
  return a.key === b.key;
}

/** 1. Among the last 10 actions, 5 consecutive similar ones. Scroll and wait have their own rules. */
export function detectRepetition(actions: ActionSample[], limits = DETECTOR_LIMITS): Anomaly | null {
  const recent = actions.slice(-limits.repetitionWindow);
  let run = 1;
  for (let i = 1; i < recent.length; i++) {
    const cur = recent[i]!;
    if (cur.type !== "scroll" && cur.type !== "wait" && similar(recent[i - 1]!, cur, limits)) run++;
    else run = 1;
    // Only report a run that ends at the newest action: an old run is history, not the current loop.
    if (run >= limits.repetitionRun && i === recent.length - 1)
      return { kind: "repetition", message: `The last ${run} actions were the same ${cur.type}${cur.px ? ` at about (${Math.round(cur.px.x)}, ${Math.round(cur.px.y)}) px` : ""}; this looks like a loop.` };
  }
  return null;
}

/** 2. A-B-A-B alternation of actions (e.g. back / enter / back / enter). */
export function detectCycle(actions: ActionSample[], limits = DETECTOR_LIMITS): Anomaly | null {
  const n = actions.length;
  if (n < 4) return null;
  const [a1, b1, a2, b2] = actions.slice(-4) as [ActionSample, ActionSample, ActionSample, ActionSample];
  if (similar(a1, a2, limits) && similar(b1, b2, limits) && !similar(a1, b1, limits))
    return { kind: "cycle", message: `The actions alternate ${a1.type} / ${b1.type} / ${a2.type} / ${b2.type}: a cycle that makes no progress.` };
  return null;
}

/**
 * 3. Screens: `hashes` are the pHashes of the screenshots in order (before the first action, then after each).
 * Three identical in a row while the last action was not wait/scroll → not responding; A-B-A-B → oscillating.
 */
export function detectScreen(hashes: string[], lastAction: ActionSample | undefined, limits = DETECTOR_LIMITS): Anomaly | null {
  const same = (a: string, b: string) => hammingDistance(a, b) <= limits.sameScreenBits;
  const n = hashes.length;
  if (n >= limits.frozenRun && lastAction && lastAction.type !== "wait" && lastAction.type !== "scroll") {
    const tail = hashes.slice(-limits.frozenRun);
    if (tail.every((h) => same(h, tail[0]!)))
      return { kind: "frozen_screen", message: `The screen has not changed over the last ${limits.frozenRun} screenshots although the action was ${lastAction.type}: the page is not responding to it.` };
  }
  if (n >= 4) {
    const [a1, b1, a2, b2] = hashes.slice(-4) as [string, string, string, string];
    if (same(a1, a2) && same(b1, b2) && !same(a1, b1))
      return { kind: "oscillation", message: "The screen alternates between the same two pages (A-B-A-B): the actions undo each other." };
  }
  return null;
}

/** 4. More than 8 consecutive scrolls → no progress; leave the executor and let the supervisor replan. */
export function scrollStreak(actions: ActionSample[]): number {
  let n = 0;
  for (let i = actions.length - 1; i >= 0 && actions[i]!.type === "scroll"; i--) n++;
  return n;
}

export function detectScrollStreak(actions: ActionSample[], limits = DETECTOR_LIMITS): Anomaly | null {
  const n = scrollStreak(actions);
  return n > limits.scrollStreakMax
    ? { kind: "scroll_streak", message: `${n} scrolls in a row without reaching the target: no progress, handing back to the planner.` }
    : null;
}

/** All post-execute detectors; scroll_streak is an exit, the others become a reminder on the next model call. */
export function detectAnomalies(actions: ActionSample[], hashes: string[], limits = DETECTOR_LIMITS): Anomaly[] {
  const out: Anomaly[] = [];
  for (const a of [detectRepetition(actions, limits), detectCycle(actions, limits), detectScreen(hashes, actions.at(-1), limits), detectScrollStreak(actions, limits)])
    if (a) out.push(a);
  return out;
}
