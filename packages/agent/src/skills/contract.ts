// A skill's shape and its state contract. A skill is what a successful run did, kept as steps whose targets are
// element selectors with fallbacks (resource id, then text, then the relative position on the screen), each step
// with the screen it must start from, and the screen the skill must end on. A screen contract names the app, its
// activity (the screen's signature) and the elements that must be there; checking it reads only the UI tree.
import type { Action } from "../actions/schema.ts";
import type { UiNode } from "../ports.ts";
import { listElements, type ElementRef } from "../graph/observe.ts";
import { wordChar } from "./phrases.ts";

/** Finds one element: by resource id, else by its text, else the element nearest to where it was (0–1000). */
export interface ElementSelector {
  resourceId?: string;
  text?: string;
  /** `text` is the start of the element's text, up to a word's end (a list row: its title, then a preview that
   *  changes: "{name}" finds "Bob Miller Did you order the charger?"). Else the text is the element's whole text. */
  textStarts?: true;
  /** The element's centre when the skill was distilled, normalised to 0–1000. */
  at: { x: number; y: number };
}

export interface ScreenContract {
  /** The foreground package. */
  app: string;
  /** The foreground activity: the screen's signature. */
  activity?: string;
  /** Elements that must be on the screen. */
  required: ElementSelector[];
}

/** One step: an action of the action space (without the screen-specific element index or point) and its target. */
export interface SkillStep {
  action: SkillAction;
  target?: ElementSelector;
  /** The screen the step starts from (its precondition; the previous step's postcondition). */
  before: ScreenContract;
  /** Types into a password field: its text is a parameter whose value no skill keeps (it has no example). */
  secret?: true;
  /** A wheel step (a number picker: the target): drag it a row at a time until it shows this value, whatever it
   *  shows first; the step's action is the first drag of the run it came from. May hold a parameter ({hour}). */
  turnTo?: string;
  /** The sha256 of the screenshot blob of the observation this step started from in the run it was distilled from
   *  (observation evidence's blob): the Learning page's thumbnail. Absent when the run kept none. */
  shot?: string;
}

export type SkillAction = Extract<Action, { type: "click" | "long_press" | "double_tap" | "drag" | "input_text" | "click_then_type" | "keyboard_enter" | "navigate_back" | "navigate_home" | "scroll" | "open_app" | "open_deeplink" }>;
export const SKILL_ACTION_TYPES: readonly SkillAction["type"][] = ["click", "long_press", "double_tap", "drag", "input_text", "click_then_type", "keyboard_enter", "navigate_back", "navigate_home", "scroll", "open_app", "open_deeplink"];

export interface SkillBody {
  format: 1;
  app: string;
  /** What the skill does in words, parameters as {name}: "create a note titled {title} containing {body}". */
  description?: string;
  /** Its parameters' names in the order they first appear. Every `{name}` with name in this list, in a step's action
   *  text (input_text.text, click_then_type.text), a target's text, or a contract's required[].text, is that
   *  parameter. A `{x}` whose x is not listed is literal text. */
  params?: string[];
  /** The values the run it was distilled from used (name -> value): shown on the Learning page and used by
   *  `suite --validate-skills` to replay a candidate. */
  example?: Record<string, string>;
  /** Where the skill may start (the first step's screen). */
  pre: ScreenContract;
  steps: SkillStep[];
  /** Where it must end. */
  post: ScreenContract;
}

/** What a contract check reads: the foreground and the visible elements. */
export interface ScreenState {
  app: string;
  activity: string;
  width: number;
  height: number;
  elements: ElementRef[];
}

export function screenState(tree: UiNode | null, foreground: { packageName: string; activity: string } | null, screen?: { width: number; height: number }): ScreenState {
  // The screen's size, else the extent of what the dump shows (its root may be a dialog's window).
  let width = screen?.width ?? 1;
  let height = screen?.height ?? 1;
  const walk = (n: UiNode, depth: number) => {
    width = Math.max(width, n.bounds.right);
    height = Math.max(height, n.bounds.bottom);
    if (depth < 2) for (const c of n.children) walk(c, depth + 1);
  };
  if (tree && !screen) walk(tree, 0);
  return { app: foreground?.packageName ?? "", activity: foreground?.activity ?? "", width, height, elements: listElements(tree, width, height) };
}

const centre = (e: { box: [number, number, number, number] }) => ({ x: (e.box[0] + e.box[2]) / 2, y: (e.box[1] + e.box[3]) / 2 });
const distance = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y);
/** How far (0–1000) an element may have moved and still be found by its position alone. */
export const POSITION_TOLERANCE = 60;

/** The element a selector names on this screen, and which fallback found it; null when none does. */
export function findElement(sel: ElementSelector, elements: readonly ElementRef[]): { element: ElementRef; by: "resource_id" | "text" | "position" } | null {
  const nearest = (xs: ElementRef[]) => xs.reduce((best, e) => (distance(centre(e), sel.at) < distance(centre(best), sel.at) ? e : best));
  const named = (e: ElementRef) => textNames(sel, e.text);
  if (sel.resourceId) {
    const byId = elements.filter((e) => e.resourceId === sel.resourceId);
    const exact = sel.text ? byId.filter(named) : [];
    if (exact.length) return { element: nearest(exact), by: "resource_id" };
    if (byId.length === 1 || (byId.length && !sel.text)) return { element: nearest(byId), by: "resource_id" };
  }
  if (sel.text) {
    const byText = elements.filter(named);
    if (byText.length) return { element: nearest(byText), by: "text" };
  }
  // Position alone only for an element that carried neither id nor text (an icon): anything else moved away.
  if (!sel.resourceId && !sel.text) {
    const near = elements.filter((e) => e.clickable && distance(centre(e), sel.at) <= POSITION_TOLERANCE);
    if (near.length) return { element: nearest(near), by: "position" };
  }
  return null;
}

/** Whether an element's text is the one a selector names: the same, or (textStarts) its start up to a word's end. */
function textNames(sel: ElementSelector, text: string): boolean {
  if (text === sel.text) return true;
  if (!sel.textStarts || !sel.text || !text.startsWith(sel.text)) return false;
  return !(wordChar([...sel.text].at(-1)) && wordChar([...text.slice(sel.text.length)][0]));
}

/** Whether the screen meets the contract; when not, what is missing, in words. */
export function checkContract(c: ScreenContract, s: ScreenState): { ok: true } | { ok: false; reason: string } {
  if (c.app && s.app !== c.app) return { ok: false, reason: `expected ${c.app} in front, found ${s.app || "no app"}` };
  if (c.activity && s.activity !== c.activity) return { ok: false, reason: `expected the screen ${c.activity}, found ${s.activity || "another screen"}` };
  for (const sel of c.required) if (!findElement(sel, s.elements)) return { ok: false, reason: `the element ${describeSelector(sel)} is not on the screen` };
  return { ok: true };
}

export function describeSelector(sel: ElementSelector): string {
  const text = sel.text ? `"${sel.text}${sel.textStarts ? "…" : ""}"` : "";
  return sel.resourceId ? `#${sel.resourceId.replace(/^.*:id\//, "")}${text ? ` ${text}` : ""}` : text || `at (${Math.round(sel.at.x)}, ${Math.round(sel.at.y)})`;
}

export function selectorOf(e: { text: string; resourceId: string; box: [number, number, number, number] }): ElementSelector {
  return { ...(e.resourceId ? { resourceId: e.resourceId } : {}), ...(e.text ? { text: e.text } : {}), at: centre(e) };
}

/** The resource id of the value a number picker (a wheel) shows, as Android's NumberPicker names its field. */
export const WHEEL_VALUE_ID = "android:id/numberpicker_input";
/** The value a wheel shows: its value field's text, the field whose centre is inside the wheel; null without one. */
export function wheelValue(wheel: { box: [number, number, number, number] }, elements: readonly { resourceId: string; text: string; box: [number, number, number, number] }[]): string | null {
  const [x1, y1, x2, y2] = wheel.box;
  const field = elements.find((e) => e.resourceId === WHEEL_VALUE_ID && centre(e).x >= x1 && centre(e).x <= x2 && centre(e).y >= y1 && centre(e).y <= y2);
  return field ? field.text : null;
}

/** A parameter's name: lower case letters, digits and underscores, starting with a letter. */
export const PARAM_NAME = /^[a-z][a-z0-9_]*$/;

/** Reads a stored body back; null when it is not a skill body of this format. */
export function readSkillBody(x: unknown): SkillBody | null {
  const b = x as SkillBody | null;
  if (!b || typeof b !== "object" || b.format !== 1 || !Array.isArray(b.steps) || !b.pre || !b.post || typeof b.app !== "string") return null;
  for (const st of b.steps) if (!st || !st.action || !SKILL_ACTION_TYPES.includes(st.action.type) || !st.before || (st.shot !== undefined && typeof st.shot !== "string") || (st.turnTo !== undefined && (typeof st.turnTo !== "string" || !st.target))) return null;
  // The optional fields, when there: a description in words, parameter names, and their example values as strings.
  if (b.description !== undefined && typeof b.description !== "string") return null;
  if (b.params !== undefined && (!Array.isArray(b.params) || !b.params.every((p) => typeof p === "string" && PARAM_NAME.test(p)))) return null;
  if (b.example !== undefined && (!b.example || typeof b.example !== "object" || Array.isArray(b.example) || !Object.values(b.example).every((v) => typeof v === "string"))) return null;
  return b;
}

/**
 * The body with its parameters given: every `{name}` with name in `params`, in a step's action text, a target's text
 * and a contract's required text, becomes its value (a `{x}` whose x is not a parameter stays as it is). A parameter
 * with no value or an empty one is missing: the body is not bound (the runtime never guesses a parameter). A value
 * for a name that is not a parameter is ignored.
 */
export function bindSkill(body: SkillBody, values: Record<string, string>): { ok: true; body: SkillBody } | { ok: false; missing: string[] } {
  const params = body.params ?? [];
  const missing = params.filter((p) => !values[p]?.trim());
  if (missing.length) return { ok: false, missing };
  if (!params.length) return { ok: true, body };
  const listed = new Set(params);
  const sub = (t: string) => t.replace(/\{([a-z][a-z0-9_]*)\}/g, (m, name: string) => (listed.has(name) ? values[name]! : m));
  const sel = <S extends ElementSelector | undefined>(s: S): S => (s && s.text !== undefined ? { ...s, text: sub(s.text) } : s);
  const contract = (c: ScreenContract): ScreenContract => ({ ...c, required: c.required.map((r) => sel(r)) });
  const action = (a: SkillAction): SkillAction => (a.type === "input_text" || a.type === "click_then_type" ? { ...a, text: sub(a.text) } : a);
  return {
    ok: true,
    body: {
      ...body,
      pre: contract(body.pre),
      post: contract(body.post),
      steps: body.steps.map((st) => ({ ...st, action: action(st.action), ...(st.target ? { target: sel(st.target) } : {}), ...(st.turnTo !== undefined ? { turnTo: sub(st.turnTo) } : {}), before: contract(st.before) })),
    },
  };
}
