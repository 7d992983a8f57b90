// Distilling a skill from what a run recorded: the screens it saw (observation evidence) and the actions it took
// (action evidence, a skill's own steps included). Each action becomes a step whose target is the element under
// its point, kept as a selector with fallbacks; a detour — navigation that came back to the very screen it left
// (opening the wrong item and going back, scrolling away and back) — is dropped, so the skill is the straight path.
import type { Evidence } from "../ports.ts";
import { parseAction } from "../actions/parse.ts";
import type { ElementRef } from "../graph/observe.ts";
import { SKILL_ACTION_TYPES, selectorOf, type ElementSelector, type ScreenContract, type SkillAction, type SkillBody, type SkillStep } from "./contract.ts";

/** A screen as observation evidence records it. */
export interface RecordedScreen {
  app: string;
  activity: string;
  width: number;
  height: number;
  elements: Pick<ElementRef, "text" | "resourceId" | "box">[];
}

/** One action as the run performed it, with the screen before it and the point it acted on (device pixels). */
export interface RecordedAction {
  before: RecordedScreen;
  action: SkillAction;
  px: { x: number; y: number } | null;
}

type StoredElement = { text?: string; id?: string; box?: [number, number, number, number] };

/** An observation's (or a skill step's `before`) data as a screen; null when it is not one. */
export function recordedScreen(data: Record<string, unknown>): RecordedScreen | null {
  const els = data.elements;
  if (typeof data.app !== "string" || !Array.isArray(els)) return null;
  const [app, activity = ""] = data.app.split("/") as [string, string?];
  const screen = (data.screen ?? {}) as { width?: number; height?: number };
  return {
    app,
    activity: activity.startsWith(".") ? `${app}${activity}` : activity,
    width: screen.width ?? 1000,
    height: screen.height ?? 1000,
    elements: (els as StoredElement[]).filter((e) => Array.isArray(e.box)).map((e) => ({ text: e.text ?? "", resourceId: e.id ?? "", box: e.box! })),
  };
}

function skillAction(x: unknown): SkillAction | null {
  const parsed = parseAction(JSON.stringify(x));
  if (!parsed.ok || !(SKILL_ACTION_TYPES as readonly string[]).includes(parsed.action.type)) return null;
  const { element: _e, x: _x, y: _y, intent: _i, ...rest } = parsed.action as SkillAction & { element?: string; x?: number; y?: number; intent?: string };
  return rest as SkillAction;
}

/** The run's screens and actions, in order, from its evidence (one todo's, or the whole run's). */
export function recordedActions(evidence: readonly Evidence[]): { actions: RecordedAction[]; last: RecordedScreen | null } {
  const actions: RecordedAction[] = [];
  let last: RecordedScreen | null = null;
  for (const e of evidence) {
    if (e.kind === "observation") {
      last = recordedScreen(e.data) ?? last;
      continue;
    }
    if (e.kind !== "action" || e.data.error) continue;
    const action = skillAction(e.data.action);
    const before = e.data.before ? recordedScreen(e.data.before as Record<string, unknown>) : last;
    if (!action || !before) continue;
    const px = e.data.px as { x: number; y: number } | null | undefined;
    actions.push({ before, action, px: px && typeof px.x === "number" ? px : null });
    // A skill's own steps carry the screen after them only as the next one's `before`; the next observation follows.
    if (e.data.before) last = null;
  }
  return { actions, last };
}

const signature = (s: RecordedScreen) => `${s.app}/${s.activity}|${s.elements.map((e) => `${e.resourceId}:${e.text}`).sort().join("|")}`;

/** The element under a point (the smallest box holding it). */
function elementAt(s: RecordedScreen, px: { x: number; y: number }) {
  const nx = (px.x / Math.max(1, s.width - 1)) * 1000;
  const ny = (px.y / Math.max(1, s.height - 1)) * 1000;
  const under = s.elements.filter((e) => nx >= e.box[0] && nx <= e.box[2] && ny >= e.box[1] && ny <= e.box[3]);
  if (!under.length) return { text: "", resourceId: "", box: [nx, ny, nx, ny] as [number, number, number, number] };
  return under.reduce((a, b) => ((b.box[2] - b.box[0]) * (b.box[3] - b.box[1]) < (a.box[2] - a.box[0]) * (a.box[3] - a.box[1]) ? b : a));
}

export interface DistilOptions {
  /**
   * The todo's result was information (an answer, outputs read from the screen): a screen it opened and left again
   * was where it read that, so such visits are its path, not detours (scrolling away and back still is one).
   */
  keepVisits?: boolean;
}

/** Drops detours: a run of navigation (back, scroll, or a tap that opened another screen) that ends on the screen it started from. */
export function dropDetours(actions: RecordedAction[], last: RecordedScreen | null, opts: DistilOptions = {}): RecordedAction[] {
  const out = [...actions];
  const after = (i: number) => (i + 1 < out.length ? out[i + 1]!.before : last);
  const navigation = (i: number) => {
    const a = out[i]!;
    if (a.action.type === "scroll") return true;
    if (opts.keepVisits) return false;
    if (a.action.type === "navigate_back") return true;
    const next = after(i);
    return a.action.type === "click" && next !== null && `${next.app}/${next.activity}` !== `${a.before.app}/${a.before.activity}`;
  };
  for (let changed = true; changed; ) {
    changed = false;
    outer: for (let i = 0; i < out.length; i++) {
      for (let j = out.length - 1; j >= i; j--) {
        const end = after(j);
        if (!end || signature(end) !== signature(out[i]!.before)) continue;
        let all = true;
        for (let k = i; k <= j && all; k++) all = navigation(k);
        if (!all) continue;
        out.splice(i, j - i + 1);
        changed = true;
        break outer;
      }
    }
  }
  return out;
}

const contractOf = (s: RecordedScreen, required: ElementSelector[]): ScreenContract => ({ app: s.app, ...(s.activity ? { activity: s.activity } : {}), required });

/** Distils a skill body from a run's recorded actions; null when nothing replayable is left. */
export function distilSkill(actions: RecordedAction[], last: RecordedScreen | null, opts: DistilOptions = {}): SkillBody | null {
  const path = dropDetours(actions, last, opts);
  if (!path.length) return null;
  const steps: SkillStep[] = path.map((a) => {
    const needsTarget = a.px && (a.action.type === "click" || a.action.type === "long_press" || a.action.type === "double_tap" || a.action.type === "click_then_type");
    const target = needsTarget ? selectorOf(elementAt(a.before, a.px!)) : undefined;
    return { action: a.action, ...(target ? { target } : {}), before: contractOf(a.before, target ? [target] : []) };
  });
  const end = last ?? path.at(-1)!.before;
  // The end screen's stable parts: elements by resource id (their texts may differ from one phone to the next).
  const ids = [...new Set(end.elements.map((e) => e.resourceId).filter(Boolean))].slice(0, 3);
  const post = contractOf(end, ids.map((id) => ({ resourceId: id, at: { x: 500, y: 500 } })));
  const body: SkillBody = { format: 1, app: "", pre: steps[0]!.before, steps, post };
  return { ...body, app: appsOfSkill(body)[0]! };
}

/**
 * The apps a skill acts in, most used first (its end screen counts too; a tie goes to the app it ends in). It
 * belongs to the first that is an installed app: a path from the home screen starts on the launcher, which is none.
 */
export function appsOfSkill(body: Pick<SkillBody, "steps" | "post">): string[] {
  const counts = new Map<string, number>();
  for (const s of body.steps) counts.set(s.before.app, (counts.get(s.before.app) ?? 0) + 1);
  counts.set(body.post.app, (counts.get(body.post.app) ?? 0) + 1);
  const order = [body.post.app, ...body.steps.map((s) => s.before.app).reverse()];
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || order.indexOf(a[0]) - order.indexOf(b[0])).map(([app]) => app);
}

/** A skill's name from what it does: the todo's words, lower case. */
export function skillName(title: string): string {
  // Cut, then trimmed: a name never ends in a space (the state core stores names trimmed; a use_skill names it as listed).
  return title.toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim().slice(0, 120).trim() || "skill";
}
