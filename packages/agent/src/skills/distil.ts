// Distilling a skill from what a run recorded: the screens it saw (observation evidence) and the actions it took
// (action evidence, a skill's own steps included). Each action becomes a step whose target is the element under
// its point, kept as a selector with fallbacks; a detour — navigation that came back to the very screen it left
// (opening the wrong item and going back, scrolling away and back) — is dropped, so the skill is the straight path.
import type { Evidence } from "../ports.ts";
import { parseAction } from "../actions/parse.ts";
import type { ElementRef } from "../graph/observe.ts";
import { phrasesOf, wordChar } from "./phrases.ts";
import { SKILL_ACTION_TYPES, WHEEL_VALUE_ID, selectorOf, wheelValue, type ElementSelector, type ScreenContract, type SkillAction, type SkillBody, type SkillStep } from "./contract.ts";

/** A screen as observation evidence records it. */
export interface RecordedScreen {
  app: string;
  activity: string;
  width: number;
  height: number;
  elements: Pick<ElementRef, "text" | "resourceId" | "box" | "password">[];
}

/** One action as the run performed it, with the screen before it and the point it acted on (device pixels). */
export interface RecordedAction {
  before: RecordedScreen;
  action: SkillAction;
  px: { x: number; y: number } | null;
  /** The sha256 of the screenshot of the observation the action started from (its evidence's blob), when kept. */
  shot?: string;
}

type StoredElement = { text?: string; id?: string; box?: [number, number, number, number]; password?: boolean };

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
    elements: (els as StoredElement[]).filter((e) => Array.isArray(e.box)).map((e) => ({ text: e.text ?? "", resourceId: e.id ?? "", box: e.box!, ...(e.password ? { password: true } : {}) })),
  };
}

function skillAction(x: unknown): SkillAction | null {
  // A skill's own step is kept without its point (its target names the element): parsed with a stand-in point.
  let parsed = parseAction(JSON.stringify(x));
  if (!parsed.ok && x && typeof x === "object") parsed = parseAction(JSON.stringify({ ...x, x: 0, y: 0 }));
  if (!parsed.ok || !(SKILL_ACTION_TYPES as readonly string[]).includes(parsed.action.type)) return null;
  const { element: _e, x: _x, y: _y, intent: _i, ...rest } = parsed.action as SkillAction & { element?: string; x?: number; y?: number; intent?: string };
  return rest as SkillAction;
}

/** The run's screens and actions, in order, from its evidence (one todo's, or the whole run's). */
export function recordedActions(evidence: readonly Evidence[]): { actions: RecordedAction[]; last: RecordedScreen | null } {
  const actions: RecordedAction[] = [];
  let last: RecordedScreen | null = null;
  let shot: string | null = null;
  for (const e of evidence) {
    if (e.kind === "observation") {
      const screen = recordedScreen(e.data);
      if (screen) [last, shot] = [screen, e.blobSha256];
      continue;
    }
    // A skill's scroll looking for its step's element, or its tap closing a popup it did not expect, is part of that
    // step (it does so again next time), not a step of a path.
    const part = e.data.skill as { seek?: unknown; popup?: unknown } | undefined;
    if (e.kind !== "action" || e.data.error || part?.seek !== undefined || part?.popup !== undefined) continue;
    const action = skillAction(e.data.action);
    const before = e.data.before ? recordedScreen(e.data.before as Record<string, unknown>) : last;
    if (!action || !before) continue;
    const px = e.data.px as { x: number; y: number } | null | undefined;
    // A skill's own step carries its screen in its data (its own blob, if any); the model's started from the last observation.
    const from = e.data.before ? e.blobSha256 : shot;
    actions.push({ before, action, px: px && typeof px.x === "number" ? px : null, ...(from ? { shot: from } : {}) });
    // A skill's own steps carry the screen after them only as the next one's `before`; the next observation follows.
    if (e.data.before) [last, shot] = [null, null];
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
    // A back right after typing closes the keyboard the typing opened (the UI tree looks the same): it is the path's.
    const typedBefore = i > 0 && (out[i - 1]!.action.type === "input_text" || out[i - 1]!.action.type === "click_then_type");
    if (a.action.type === "navigate_back") return !typedBefore;
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

const OPENS = new Set<SkillAction["type"]>(["open_app", "open_deeplink"]);
const contractOf = (s: RecordedScreen, required: ElementSelector[]): ScreenContract => ({ app: s.app, ...(s.activity ? { activity: s.activity } : {}), required });

/** The wheel a drag starts on: the smallest element with a resource id that holds the drag's start and a wheel's value field. */
function wheelAt(s: RecordedScreen, a: SkillAction) {
  if (a.type !== "drag") return null;
  const { x, y } = a.from;
  const holders = s.elements.filter((e) => e.resourceId && e.resourceId !== WHEEL_VALUE_ID && x >= e.box[0] && x <= e.box[2] && y >= e.box[1] && y <= e.box[3] && wheelValue(e, s.elements) !== null);
  return holders.length ? holders.reduce((a, b) => ((b.box[2] - b.box[0]) * (b.box[3] - b.box[1]) < (a.box[2] - a.box[0]) * (a.box[3] - a.box[1]) ? b : a)) : null;
}

/**
 * Consecutive drags on one wheel are one step: turn it to the value it showed after them (the path's point was the
 * value, not how far it was from where that phone's wheel started).
 */
function wheelTurns(path: RecordedAction[], last: RecordedScreen | null): (RecordedAction & { wheel?: RecordedScreen["elements"][number]; turnTo?: string })[] {
  const out: (RecordedAction & { wheel?: RecordedScreen["elements"][number]; turnTo?: string })[] = [];
  for (let i = 0; i < path.length; i++) {
    const wheel = wheelAt(path[i]!.before, path[i]!.action);
    if (!wheel) {
      out.push(path[i]!);
      continue;
    }
    let j = i;
    while (j + 1 < path.length && wheelAt(path[j + 1]!.before, path[j + 1]!.action)?.resourceId === wheel.resourceId) j++;
    const after = j + 1 < path.length ? path[j + 1]!.before : last;
    const shown = after ? after.elements.find((e) => e.resourceId === wheel.resourceId) : undefined;
    const value = shown ? wheelValue(shown, after!.elements) : null;
    out.push(value === null ? path[i]! : { ...path[i]!, wheel, turnTo: value });
    if (value === null) continue;
    i = j;
  }
  return out;
}

/** Distils a skill body from a run's recorded actions; null when nothing replayable is left. */
export function distilSkill(actions: RecordedAction[], last: RecordedScreen | null, opts: DistilOptions = {}): SkillBody | null {
  const path = wheelTurns(dropDetours(actions, last, opts), last);
  if (!path.length) return null;
  let focused: { password?: boolean } | null = null;
  const steps: SkillStep[] = path.map((a) => {
    const needsTarget = a.px && (a.action.type === "click" || a.action.type === "long_press" || a.action.type === "double_tap" || a.action.type === "click_then_type");
    const under = needsTarget ? elementAt(a.before, a.px!) : null;
    if (a.action.type === "click" || a.action.type === "click_then_type") focused = under;
    // Typed into a password field (the field tapped, or the one focused before): the text is a secret.
    const secret = (a.action.type === "click_then_type" || a.action.type === "input_text") && focused?.password === true;
    // A wheel is found by its id and place, never by the values it shows (they turn).
    const target = a.wheel ? selectorOf({ ...a.wheel, text: "" }) : under ? selectorOf(under) : undefined;
    if (secret) {
      const before = contractOf(a.before, target ? [target] : []);
      return { action: a.action, ...(target ? { target } : {}), secret: true, before, ...(a.shot ? { shot: a.shot } : {}) };
    }
    if (a.turnTo !== undefined) return { action: a.action, target: target!, turnTo: a.turnTo, before: contractOf(a.before, [target!]), ...(a.shot ? { shot: a.shot } : {}) };
    // A step that opens an app (or follows a deeplink) starts from wherever the phone is: the screen
    // the run happened to leave it on is no part of the skill (a todo after another app's work starts there).
    const before = OPENS.has(a.action.type) ? { app: "", required: [] } : contractOf(a.before, target ? [target] : []);
    return { action: a.action, ...(target ? { target } : {}), before, ...(a.shot ? { shot: a.shot } : {}) };
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
  for (const s of body.steps) if (s.before.app) counts.set(s.before.app, (counts.get(s.before.app) ?? 0) + 1);
  counts.set(body.post.app, (counts.get(body.post.app) ?? 0) + 1);
  const order = [body.post.app, ...body.steps.map((s) => s.before.app).filter(Boolean).reverse()];
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || order.indexOf(a[0]) - order.indexOf(b[0])).map(([app]) => app);
}

/** A skill's name from what it does: the todo's words, lower case. */
export function skillName(title: string): string {
  // Cut, then trimmed: a name never ends in a space (the state core stores names trimmed; a use_skill names it as listed).
  return title.toLocaleLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim().slice(0, 120).trim() || "skill";
}

// Parameters: text the run took from the goal, a todo's title or the blackboard is the skill's parameter, so the next
// run with other values reuses it (skill bodies' `params`, contract.ts).

/**
 * Where a value the run used came from. A keyed source names it (a todo's input, a blackboard key: the value is that
 * key's); free text (the goal's words, a todo's title) does not — a text the run typed or tapped is a value when it
 * occurs there as a whole word or phrase, and a quoted phrase of it is one wherever it is typed.
 */
export type ValueSource = { key: string; value: string } | { text: string; from: "goal" | "title" };

/** The quoted phrases of a text ("…", “…”, ‘…’, 「…」, 『…』). */
const quotedPhrases = (text: string) => [...text.matchAll(/"([^"\n]{1,200})"|“([^”\n]{1,200})”|‘([^’\n]{1,200})’|「([^」\n]{1,200})」|『([^』\n]{1,200})』/g)].map((m) => (m.slice(1).find((g) => g !== undefined) ?? "").trim()).filter(Boolean);

const nameOfKey = (key: string) => {
  const s = key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  return !s ? "" : /^[a-z]/.test(s) ? s : `p_${s}`;
};
/** Words of a resource id that name the kind of widget, not what it holds. */
const WIDGET_WORDS = new Set(["input", "field", "edit", "text", "txt", "box", "view", "button", "btn", "et", "tv", "entry", "picker"]);
/**
 * A parameter's name from the field it went into: the resource id's short name (after ":id/"), split into words,
 * widget words dropped (input, field, edit, text, box, view, button…), its last word — note_title → title,
 * contact_phone_input → phone, compose_message_text → message, search_input → search. `fallback` without one.
 */
export function paramNameOf(resourceId: string | undefined, fallback: string): string {
  const words = nameOfKey((resourceId ?? "").replace(/^.*:id\//, "")).split("_").filter(Boolean);
  return nameOfKey(words.filter((w) => !WIDGET_WORDS.has(w)).at(-1) ?? words.at(-1) ?? "") || fallback;
}

export interface ParameteriseOptions {
  /** Texts never made parameters (the apps' labels: tapping "Notes" on the launcher is not a value of the goal). */
  literals?: string[];
}

/**
 * The skill with the values it took from its sources as parameters: each typed text (input_text, click_then_type)
 * equal to a source's value — or containing a keyed value or a quoted phrase as a whole word or phrase — becomes
 * `{name}` there; a target's text equal to a keyed value or a phrase of the goal (the contact the goal names) too,
 * in the step's contract as well. The name is the key for a keyed value, else paramNameOf the field it was typed
 * into (the step's target, or the field the step before tapped), or the element tapped; unique (a second value
 * that would take a name gets name_2). Text from no source stays literal. `params` lists the names in order,
 * `example` keeps the values; a body with no parameter comes back as it was.
 */
export function parameterise(body: SkillBody, sources: readonly ValueSource[], opts: ParameteriseOptions = {}): SkillBody {
  const keyed = sources.filter((s): s is { key: string; value: string } => "key" in s && s.value.trim() !== "").sort((a, b) => b.value.length - a.value.length);
  const free = sources.filter((s): s is { text: string; from: "goal" | "title" } => "text" in s);
  const quoted = [...new Set(free.flatMap((s) => quotedPhrases(s.text)))].sort((a, b) => b.length - a.length);
  const literals = new Set((opts.literals ?? []).map((l) => l.toLocaleLowerCase()));
  const bodyText = JSON.stringify(body);
  const byValue = new Map<string, string>();
  const example: Record<string, string> = {};
  const params: string[] = [];
  const nameFor = (value: string, preferred: string) => {
    const v = value.toLocaleLowerCase();
    const had = byValue.get(v);
    if (had) return had;
    let name = preferred;
    for (let n = 2; name in example || bodyText.includes(`{${name}}`); n++) name = `${preferred}_${n}`;
    byValue.set(v, name);
    example[name] = value;
    params.push(name);
    return name;
  };
  const equalKeyed = (text: string) => keyed.find((k) => k.value.trim().toLocaleLowerCase() === text.trim().toLocaleLowerCase());
  const inFree = (text: string, from: readonly ("goal" | "title")[]) => !literals.has(text.trim().toLocaleLowerCase()) && free.some((s) => from.includes(s.from) && phrasesOf(s.text, text.trim()).length > 0);

  /** A typed text with its values as parameters. */
  const typed = (text: string, field: string | undefined): string => {
    const whole = equalKeyed(text);
    if (whole) return `{${nameFor(whole.value, nameOfKey(whole.key) || "value")}}`;
    if (text.trim() && inFree(text, ["goal", "title"])) return `{${nameFor(text, paramNameOf(field, "text"))}}`;
    // Parts of it: keyed values and quoted phrases, longest first, each span taken once.
    const spans: { index: number; end: number; name: () => string }[] = [];
    const take = (value: string, name: (found: string) => string) => {
      if ([...value.trim()].length < 2) return;
      for (const m of phrasesOf(text, value.trim())) {
        const end = m.index + m.text.length;
        if (!spans.some((s) => m.index < s.end && end > s.index)) spans.push({ index: m.index, end, name: () => name(m.text) });
      }
    };
    for (const k of keyed) take(k.value, () => nameFor(k.value, nameOfKey(k.key) || "value"));
    for (const q of quoted) if (!literals.has(q.toLocaleLowerCase())) take(q, (found) => nameFor(found, paramNameOf(field, "text")));
    if (!spans.length) return text;
    let out = "";
    let at = 0;
    for (const s of spans.sort((a, b) => a.index - b.index)) {
      out += `${text.slice(at, s.index)}{${s.name()}}`;
      at = s.end;
    }
    return out + text.slice(at);
  };
  // Planners name the buttons they tap in their titles: only the goal's words make a tapped text a value — as
  // written (a name is: "Bob Miller"), not where a sentence starts ("Call Bob" names no button "Call").
  const namedByGoal = (t: string) =>
    !literals.has(t.toLocaleLowerCase()) && free.some((s) => s.from === "goal" && phrasesOf(s.text, t).some((m) => m.text === t && !/(?:^|[.!?。！？]\s*)\s*$/u.test(s.text.slice(0, m.index))));
  /** The goal has the phrase whole: not a piece of a longer value ("2026" of "2026-12-07", "09" of "09:30"). */
  const standsWhole = (phrase: string) => free.some((s) => s.from === "goal" && phrasesOf(s.text, phrase).some((m) => !/^[-:/.,]?[\p{N}]|^[-:/.][\p{L}]/u.test(s.text.slice(m.index + m.text.length))));
  /**
   * A tapped element's text as a parameter — the whole text, or the value its text starts with (a list row reads
   * its title, then a preview: "Bob Miller Did you order the charger?", "Desk lamp $24.00") — or null when it is the
   * app's own. `starts`: the value is only the start of the element's text.
   */
  const tapped = (sel: ElementSelector, action: SkillAction): { name: string; starts: boolean } | null => {
    const t = sel.text?.trim();
    if (!t) return null;
    const k = equalKeyed(t);
    if (k) return { name: nameFor(k.value, nameOfKey(k.key) || "value"), starts: false };
    if (namedByGoal(t)) return { name: nameFor(t, paramNameOf(sel.resourceId, "item")), starts: false };
    // A row is tapped by its start; a field typed into shows what it holds (its date, its hint), never a row's title.
    if (action.type === "click_then_type") return null;
    // The longest start of the text, ending at a word's end, that is a keyed value, a quoted phrase or the goal's
    // words standing whole there (not "2026" of the goal's "2026-12-07").
    const chars = [...t];
    for (let end = chars.length - 1; end >= 2; end--) {
      if (wordChar(chars[end]) && wordChar(chars[end - 1])) continue;
      const head = chars.slice(0, end).join("").trim();
      if ([...head].length < 2 || !/[\p{L}\p{N}]$/u.test(head)) continue;
      const key = equalKeyed(head);
      if (key) return { name: nameFor(key.value, nameOfKey(key.key) || "value"), starts: true };
      if ((quoted.some((q) => q.toLocaleLowerCase() === head.toLocaleLowerCase()) && !literals.has(head.toLocaleLowerCase())) || (namedByGoal(head) && standsWhole(head))) return { name: nameFor(head, paramNameOf(sel.resourceId, "item")), starts: true };
    }
    return null;
  };

  const steps = body.steps.map((st, i): SkillStep => {
    let { action, target, before } = st;
    if (target) {
      const value = st.turnTo !== undefined ? null : tapped(target, action);
      if (value) {
        const was = target.text;
        const sel = (r: ElementSelector): ElementSelector => ({ ...r, text: `{${value.name}}`, ...(value.starts ? { textStarts: true } : {}) });
        target = sel(target);
        before = { ...before, required: before.required.map((r) => (r.text === was && r.resourceId === st.target!.resourceId ? sel(r) : r)) };
      }
    }
    let turnTo = st.turnTo;
    if (turnTo !== undefined && turnTo.trim() && target) {
      // A wheel turned to a value the goal, a title or the blackboard gives ("06" of "06:45") turns to that parameter.
      const k = equalKeyed(turnTo);
      if (k) turnTo = `{${nameFor(k.value, nameOfKey(k.key) || "value")}}`;
      else if (inFree(turnTo, ["goal", "title"])) turnTo = `{${nameFor(turnTo, paramNameOf(target.resourceId, "value"))}}`;
    }
    if (action.type === "input_text" || action.type === "click_then_type") {
      // The field typed into: this step's target, else the one the step before tapped (input_text types into the focus).
      const prev = body.steps[i - 1];
      const field = st.target?.resourceId ?? (action.type === "input_text" && prev?.action.type === "click" ? prev.target?.resourceId : undefined);
      // A secret is always a parameter (the next run gives it; the skill never keeps it, see withoutSecrets).
      const text = st.secret ? `{${nameFor(action.text, paramNameOf(field, "password"))}}` : typed(action.text, field);
      if (text !== action.text) action = { ...action, text };
    }
    return { ...st, action, ...(target ? { target } : {}), ...(turnTo !== undefined ? { turnTo } : {}), before };
  });
  return params.length ? { ...body, params, example, steps } : body;
}

/**
 * The body as it is kept: the example values of parameters typed into password fields left out (the Learning page
 * shows examples, and a skill outlives the run). Called after the description is written from the examples, so a
 * secret the todo's title held reads as its `{name}` there too.
 */
export function withoutSecrets(body: SkillBody): SkillBody {
  const secret = new Set(body.steps.flatMap((st) => (st.secret && "text" in st.action ? [...st.action.text.matchAll(/\{([a-z][a-z0-9_]*)\}/g)].map((m) => m[1]!) : [])));
  if (!secret.size || !body.example) return body;
  return { ...body, example: Object.fromEntries(Object.entries(body.example).filter(([k]) => !secret.has(k))) };
}

/** A todo's title without a planner's step numbering ("Step 3 of 6: …"). */
export const withoutStepNumber = (title: string) => title.replace(/^\s*step\s+\d+\s*(?:of|\/)\s*\d+\s*[:.)\-–—]*\s*/i, "").trim();

/**
 * What a skill does in words: its todos' titles without step numbering, one after another; an "In <app>, " the
 * titles before already named dropped; the values of `example` as their `{name}`, and a planner's `{in:key}` as
 * `{key}` when that is a parameter (else "the key").
 */
export function describeWork(titles: readonly string[], example: Record<string, string> = {}): string {
  const named: string[] = [];
  const parts = titles.map((raw, i) => {
    let t = withoutStepNumber(raw).replace(/[.。]+$/u, "");
    const inApp = /^in ([^,]{1,60}),\s*/i.exec(t);
    if (inApp && named.includes(inApp[1]!.toLocaleLowerCase())) t = t.slice(inApp[0].length);
    const app = /^(?:open|in)\s+([^,]{1,60}?)(?:,|$)/i.exec(withoutStepNumber(raw));
    if (app) named.push(app[1]!.trim().toLocaleLowerCase());
    t = t.replace(/\{in:([A-Za-z0-9_]+)\}/g, (_, key: string) => (nameOfKey(key) in example ? `{${nameOfKey(key)}}` : `the ${key.replace(/_/g, " ")}`));
    for (const [name, value] of Object.entries(example).sort((a, b) => b[1].length - a[1].length)) {
      const hits = phrasesOf(t, value);
      for (const h of hits.reverse()) if (t[h.index - 1] !== "{" || t[h.index + h.text.length] !== "}") t = `${t.slice(0, h.index)}{${name}}${t.slice(h.index + h.text.length)}`;
    }
    return i > 0 && /^\p{Lu}\p{Ll}/u.test(t) ? t[0]!.toLocaleLowerCase() + t.slice(1) : t;
  });
  return parts.filter(Boolean).join(", ");
}
