// Post-execute anomaly detection: pure functions over the executed actions, each with the screen it was taken on
// (pHash, block luminance signature and UI-tree text). A screen "did not change" only when neither its image (pHash
// and blocks) nor its text changed, so a counter that moves is progress. Every message says what was observed. The text digest is a hand-written
// FNV-1a (six lines, no dependency, the same in the browser and in Node; it only needs to tell texts apart).
import type { Action } from "../actions/schema.ts";
import type { UiNode } from "../ports.ts";
import { hammingDistance } from "./phash.ts";
import { blocksChanged } from "./blocks.ts";

export { phash, hammingDistance, PHASH_SIZE } from "./phash.ts";
export { blockSignature, blocksChanged, BLOCK_GRID, BLOCK_TOLERANCE } from "./blocks.ts";

export const DETECTOR_LIMITS = {
  /** The same action on the same target and the same screen this many times in a row is a loop. */
  repetitionRun: 5,
  /** Points closer than this many device pixels count as the same point. */
  similarPx: 50,
  /** Cycles of these lengths over (action, target, screen), seen twice in a row. */
  cycleMin: 2,
  cycleMax: 4,
  frozenRun: 3,
  /** More than `scrollBudget` scrolls among the last `scrollWindow` actions (waits not counted) is no progress. */
  scrollWindow: 12,
  scrollBudget: 8,
  /** pHash distance at or below which two screenshots look identical (a blinking cursor or clock moves a bit or two). */
  sameScreenBits: 2,
} as const;
export type DetectorLimits = { [K in keyof typeof DETECTOR_LIMITS]: number };

export type AnomalyKind = "repetition" | "cycle" | "frozen_screen" | "oscillation" | "scroll_streak";

export interface Anomaly {
  kind: AnomalyKind;
  message: string;
}

/** What a screen looked like: its perceptual hash, its block signature and a digest of the UI tree's visible text. */
export interface ScreenSample {
  phash: string;
  /** Block luminance signature (absent when the frame had none). */
  blocks?: string;
  /** Digest of the visible text ("" when there is no tree). */
  text: string;
}

/** One executed action, with its resolved point in device pixels, its target and the screen it was taken on. */
export interface ActionSample {
  type: Action["type"];
  /** Non-point arguments that make two actions "the same" (direction, text, app…). */
  key: string;
  px?: { x: number; y: number };
  /** The element acted on (resource id or label). */
  target?: string;
  /** The screen the action was taken on. */
  screen?: ScreenSample;
}

/** FNV-1a over the visible texts of the tree (the status bar excluded: its clock ticks). */
export function screenSample(phash: string, tree: UiNode | null, blocks?: string): ScreenSample {
  const image = { phash, ...(blocks ? { blocks } : {}) };
  if (!tree) return { ...image, text: "" };
  let h = 0x811c9dc5;
  const stack = [tree];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.packageName === "com.android.systemui") continue;
    for (const t of [n.text, n.contentDesc, "\u0000"])
      for (let i = 0; i < t.length; i++) {
        h ^= t.charCodeAt(i);
        h = Math.imul(h, 0x01000193) >>> 0;
      }
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return { ...image, text: h.toString(16).padStart(8, "0") };
}

/** The label a target is known by in messages and comparisons. */
export function targetOf(node: UiNode | undefined): string | undefined {
  if (!node) return undefined;
  return node.resourceId.replace(/^.*:id\//, "") || node.text || node.contentDesc || undefined;
}

export function sampleOf(action: Action, px: { x: number; y: number } | undefined, at: { target?: string; screen?: ScreenSample } = {}): ActionSample {
  const { thought: _t, intent: _i, x: _x, y: _y, element: _e, ...rest } = action as Action & { x?: number; y?: number; element?: string };
  return { type: action.type, key: JSON.stringify(rest), ...(px ? { px } : {}), ...(at.target ? { target: at.target } : {}), ...(at.screen ? { screen: at.screen } : {}) };
}

export function sameScreen(a: ScreenSample, b: ScreenSample, limits: DetectorLimits = DETECTOR_LIMITS): boolean {
  if (a.phash.length !== b.phash.length || hammingDistance(a.phash, b.phash) > limits.sameScreenBits || a.text !== b.text) return false;
  return !(a.blocks && b.blocks && blocksChanged(a.blocks, b.blocks));
}

/** Same action type and arguments, same point (or target), on the same screen when both screens are known. */
export function similar(a: ActionSample, b: ActionSample, limits: DetectorLimits = DETECTOR_LIMITS): boolean {
  if (a.type !== b.type) return false;
  if (a.screen && b.screen && !sameScreen(a.screen, b.screen, limits)) return false;
  if (a.target && b.target && a.target !== b.target) return false;
  if (a.px && b.px) return Math.hypot(a.px.x - b.px.x, a.px.y - b.px.y) < limits.similarPx;
  if (a.px || b.px) return false;
  return a.key === b.key;
}

function describe(s: ActionSample): string {
  const on = s.target ? ` on ${JSON.stringify(s.target.slice(0, 40))}` : s.px ? ` at about (${Math.round(s.px.x)}, ${Math.round(s.px.y)}) px` : "";
  return `${s.type}${on}`;
}

/** 1. The same action on the same target and unchanged screen, `repetitionRun` times in a row (scroll and wait excluded). */
export function detectRepetition(actions: ActionSample[], limits: DetectorLimits = DETECTOR_LIMITS): Anomaly | null {
  const n = limits.repetitionRun;
  if (actions.length < n) return null;
  const tail = actions.slice(-n);
  const last = tail.at(-1)!;
  if (last.type === "scroll" || last.type === "wait") return null;
  if (!tail.every((s, i) => i === 0 || similar(tail[i - 1]!, s, limits))) return null;
  const screens = tail.every((s) => s.screen) ? ", and the screen (image and text) was the same before each of them" : "";
  return { kind: "repetition", message: `The last ${n} actions were the same ${describe(last)}${screens}: this looks like a loop.` };
}

/** 2. A cycle of 2 to 4 steps over (action, target, screen), seen twice in a row (A-B-C-A-B-C). */
export function detectCycle(actions: ActionSample[], limits: DetectorLimits = DETECTOR_LIMITS): Anomaly | null {
  for (let len = limits.cycleMin; len <= limits.cycleMax; len++) {
    if (actions.length < 2 * len) break;
    const tail = actions.slice(-2 * len);
    const repeats = tail.slice(len).every((s, i) => similar(tail[i]!, s, limits));
    // A cycle has at least two different steps (one step over and over is a repetition).
    const varied = tail.slice(0, len).some((s, i, all) => i > 0 && !similar(all[0]!, s, limits));
    if (repeats && varied) {
      const steps = tail.slice(0, len).map(describe).join(" → ");
      const screens = tail.every((s) => s.screen) ? " and came back to the same screens" : "";
      const alternate = len === 2 ? ` The actions alternate ${tail.map((s) => s.type).join(" / ")}.` : "";
      return { kind: "cycle", message: `The last ${2 * len} actions went twice through the cycle ${steps}${screens}: no progress.${alternate}` };
    }
  }
  return null;
}

/**
 * 3. Screens: the screens the last actions were taken on, then `current`. The same image and text over
 * `frozenRun` screenshots after an action that is not wait/scroll → frozen; A-B-A-B → oscillation.
 */
export function detectScreen(actions: ActionSample[], current: ScreenSample, limits: DetectorLimits = DETECTOR_LIMITS): Anomaly | null {
  const screens: ScreenSample[] = [];
  for (const s of actions.slice(-3)) if (s.screen) screens.push(s.screen);
  screens.push(current);
  const last = actions.at(-1);
  if (last && last.type !== "wait" && last.type !== "scroll" && screens.length >= limits.frozenRun) {
    const tail = screens.slice(-limits.frozenRun);
    if (tail.every((h) => sameScreen(h, tail[0]!, limits))) {
      const did = actions.slice(-(limits.frozenRun - 1)).map(describe).join(", ");
      return { kind: "frozen_screen", message: `Neither the screen's image nor its text changed over the last ${limits.frozenRun} screenshots, after ${did}: the page is not responding to these actions.` };
    }
  }
  if (screens.length >= 4) {
    const [a1, b1, a2, b2] = screens.slice(-4) as [ScreenSample, ScreenSample, ScreenSample, ScreenSample];
    if (sameScreen(a1, a2, limits) && sameScreen(b1, b2, limits) && !sameScreen(a1, b1, limits))
      return { kind: "oscillation", message: `The screen alternates between the same two pages (A-B-A-B) after ${actions.slice(-3).map(describe).join(", ")}: the actions undo each other.` };
  }
  return null;
}

/** 4. Scroll budget: more than `scrollBudget` scrolls among the last `scrollWindow` actions, waits not counted. */
export function scrollsInWindow(actions: ActionSample[], limits: DetectorLimits = DETECTOR_LIMITS): { scrolls: number; window: number } {
  const window = actions.filter((a) => a.type !== "wait").slice(-limits.scrollWindow);
  return { scrolls: window.filter((a) => a.type === "scroll").length, window: window.length };
}

export function detectScrollStreak(actions: ActionSample[], limits: DetectorLimits = DETECTOR_LIMITS): Anomaly | null {
  if (actions.at(-1)?.type !== "scroll") return null;
  const { scrolls, window } = scrollsInWindow(actions, limits);
  return scrolls > limits.scrollBudget
    ? { kind: "scroll_streak", message: `${scrolls} of the last ${window} actions (waits not counted) were scrolls without reaching the target: no progress, handing back to the planner.` }
    : null;
}

/** All post-execute detectors; scroll_streak is an exit, the others become a reminder on the next model call. */
export function detectAnomalies(actions: ActionSample[], current: ScreenSample, limits: DetectorLimits = DETECTOR_LIMITS): Anomaly[] {
  const out: Anomaly[] = [];
  const repetition = detectRepetition(actions, limits);
  for (const a of [repetition, repetition ? null : detectCycle(actions, limits), detectScreen(actions, current, limits), detectScrollStreak(actions, limits)]) if (a) out.push(a);
  return out;
}
