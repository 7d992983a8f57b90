// The reference policy: a model, in the sense of the agent's Model port, that is no AI. It answers the planner with
// the plan of the pack's task the goal states, and the executor with the one move of the todo it is given, found
// on the screen by reading the request's element list (the UI tree as the runtime shows it to any model). It
// proves the harness (the runtime, the device layer, the virtual phone and the state core): with it every task of
// the pack is solved, so a failure elsewhere is the harness's, not a model's.
import { planFor, stepOf, type Move, type PlannedTodo, type Target } from "./plans.ts";
import { readRequest, type ReadRequest, type ScreenElement } from "./request.ts";
import { matchTask, packageOf } from "./tasks.ts";

/** The name the policy answers as (its replies' `model`), and how a person sees it. */
export const REFERENCE_POLICY_MODEL = "reference-policy";
export const REFERENCE_POLICY_LABEL = "Demo model — reference policy, not AI";

/**
 * Labels that put away what came over the screen without accepting anything: a popup, update prompt or suggestion
 * sheet, a permission prompt, a heads-up notification ("Mark as read"), a network error page ("Retry") — in English
 * and as a phone in Chinese shows them.
 */
const DISMISS = [
  ...["Later", "Not now", "No thanks", "Don't allow", "Maybe later", "Skip", "Close", "Dismiss", "Mark as read", "Retry"],
  ...["以后再说", "稍后", "暂不", "不允许", "拒绝", "跳过", "标为已读", "重试"],
];

type Action = Record<string, unknown>;

/**
 * JSON with every non-ASCII character escaped (`\uFF0C`): the runtime's reply repair turns full-width punctuation
 * into ASCII before parsing (a model's `，` in JSON syntax), which would also change text meant to be typed as is
 * (`明天中午十二点见，不见不散`). Escaped, the text reaches the phone exactly.
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The reply text for a chat completion request (what the model "says"). */
export function answerRequest(body: Record<string, unknown>): string {
  return asciiJson(JSON.parse(reply(body)) as unknown);
}

function reply(body: Record<string, unknown>): string {
  const req = readRequest(body);
  switch (req.kind) {
    case "plan":
      return JSON.stringify(plan(req));
    case "decision":
      return JSON.stringify(decide(req));
    case "host":
      return JSON.stringify(host(req));
    case "report":
      return JSON.stringify(report(req));
    case "guard":
      return JSON.stringify({ verdict: "unsure", reason: "The reference policy leaves permission decisions to the rules and to people." });
    case "action":
      return JSON.stringify(act(req));
    default:
      return JSON.stringify({ error: "The reference policy answers only the PhoneLoop agent's planner, executor and summarizer requests." });
  }
}

function plannedTodos(goal: string): PlannedTodo[] {
  const matched = matchTask(goal);
  return matched ? planFor(matched, goal) : [];
}

function plan(req: ReadRequest): Record<string, unknown> {
  const todos = plannedTodos(req.goal);
  if (!todos.length) {
    // Not a task of the pack: one todo the executor will report as infeasible, so the run ends with the reason.
    return { plan: "The reference policy knows only the virtual phone's built-in tasks.", todos: [{ id: "t1", title: "Report that this goal is not a built-in task", kind: "executor", inputs: [], outputs: [] }] };
  }
  return {
    plan: `Reference policy: ${todos.length} steps, one screen move each, read from the UI tree.`,
    todos: todos.map((t, i) => ({ id: `s${i + 1}`, title: t.title, kind: t.kind, ...(t.app ? { app: t.app } : {}), inputs: t.inputs, outputs: t.outputs })),
  };
}

function decide(req: ReadRequest): Record<string, unknown> {
  // A step handed back (a loop, a step cap): try it again while attempts are left, then summarise.
  const attempt = Number(/after attempt (\d+)/.exec(req.text)?.[1] ?? "1");
  return attempt < 3 ? { decision: "retry", reason: "The reference policy tries the same step again on the current screen.", todos: [] } : { decision: "summarise", reason: "The step could not be done.", todos: [] };
}

function host(req: ReadRequest): Record<string, unknown> {
  const todo = todoOf(req);
  if (todo?.compute === "one_hour_before") {
    const m = /(\d{1,2}):(\d{2})/.exec(req.inputs.appointment ?? "");
    if (m) {
      const alarm = `${String((Number(m[1]) + 23) % 24).padStart(2, "0")}:${m[2]}`;
      return { answer: `One hour before ${m[0]} is ${alarm}.`, outputs: { alarm } };
    }
  }
  return { answer: "The reference policy cannot answer this.", outputs: {} };
}

function report(req: ReadRequest): Record<string, unknown> {
  const ended = /^RUN ENDED: (.*)$/m.exec(req.text)?.[1] ?? "";
  return { findings: [], conclusion: `${REFERENCE_POLICY_LABEL}: the run ended (${ended || "see the records"}).` };
}

function todoOf(req: ReadRequest): PlannedTodo | null {
  const n = stepOf(req.todo);
  if (n === null) return null;
  return plannedTodos(req.goal)[n - 1] ?? null;
}

const fill = (template: string, inputs: Record<string, string>): string => template.replace(/\{in:(\w+)\}/g, (_m, k: string) => inputs[k] ?? "");

/** History lines of this todo that are its own move (not a dismissal, scroll or wait). */
function ownActions(history: string[]): string[] {
  const dismissals = new Set(DISMISS.map((d) => `click element ${JSON.stringify(d)}`));
  return history
    .map((l) => /^#\d+ (.*?) → (.*)$/.exec(l))
    .filter((m) => m !== null && !/^(failed|error|refused|denied|not performed)/i.test(m[2]!))
    .map((m) => m![1]!)
    .filter((a) => a !== "" && !dismissals.has(a) && !a.startsWith("scroll ") && !a.startsWith("wait ") && a !== "status complete");
}

const centreOf = (e: ScreenElement) => ({ x: Math.round((e.box[0] + e.box[2]) / 2), y: Math.round((e.box[1] + e.box[3]) / 2) });

function findTarget(els: ScreenElement[], t: Target): ScreenElement | undefined {
  if ("id" in t) return els.find((e) => e.id === t.id);
  if ("post" in t) return posts(els)[t.post - 1];
  const want = t.text.normalize("NFKC").toLowerCase();
  const norm = (e: ScreenElement) => e.text.normalize("NFKC").toLowerCase();
  const clickable = (e: ScreenElement) => !e.flags.includes("text");
  // Among elements that contain the words, the most specific: the shortest text, then the smallest box — a list
  // container's text holds all its rows' words ("Use Bluetooth OFF Saved devices …"), the row holds only its own.
  const area = (e: ScreenElement) => (e.box[2] - e.box[0]) * (e.box[3] - e.box[1]);
  const mostSpecific = (xs: ScreenElement[]) => xs.sort((a, b) => norm(a).length - norm(b).length || area(a) - area(b))[0];
  const containing = els.filter((e) => norm(e).includes(want));
  return els.find((e) => norm(e) === want && clickable(e)) ?? els.find((e) => norm(e) === want) ?? mostSpecific(containing.filter(clickable)) ?? mostSpecific(containing);
}

/** Posts in a feed or result list: clickable rows whose text starts with an author and a handle. */
function posts(els: ScreenElement[]): ScreenElement[] {
  return els.filter((e) => !e.flags.includes("text") && /\s@\w+/.test(e.text));
}

const click = (e: ScreenElement, intent: string): Action => ({ type: "click", element: String(e.index), intent });
const complete = (summary: string, outputs?: Record<string, string>): Action => ({ type: "status", status: "complete", summary, ...(outputs ? { outputs } : {}) });
const infeasible = (summary: string): Action => ({ type: "status", status: "infeasible", summary });

/**
 * The todo before this one typed into a field: its keyboard is up (a tap on a popup's button leaves the field its
 * focus). Seen this way because a keyboard need not show in the element list (an ADB keyboard has no elements).
 */
function afterTyping(req: ReadRequest): boolean {
  const n = stepOf(req.todo);
  return n !== null && n > 1 && plannedTodos(req.goal)[n - 2]?.move?.do === "type";
}

/**
 * Whether what the next todo taps is on the screen. After typing, a keyboard that shows no elements is closed only
 * when it may cover that target: back with no keyboard up (a popup's button took the field's focus) leaves the screen.
 */
function nextTargetInSight(req: ReadRequest): boolean {
  const n = stepOf(req.todo);
  const next = n === null ? undefined : plannedTodos(req.goal)[n]?.move;
  return next?.do === "tap" && findTarget(req.elements, next.target) !== undefined;
}

/** Whether something over the screen was put away after this todo typed (its history, in order). */
function dismissedAfterTyping(req: ReadRequest): boolean {
  const lines = req.history.map((l) => /^#\d+ (.*?) → /.exec(l)?.[1] ?? "");
  const at = lines.findIndex((a) => a.startsWith("click_then_type "));
  return at >= 0 && lines.slice(at + 1).some((a) => DISMISS.some((d) => a === `click element ${JSON.stringify(d)}`));
}

/** The keyboard is up when the IME's keys are on screen (the virtual phone draws them as elements). */
function keyboardUp(req: ReadRequest): boolean {
  return req.elements.some((e) => /keyboard|inputmethod/i.test(e.id) || /keyboard/i.test(e.className));
}

function act(req: ReadRequest): Action {
  if (/\bdenied\b/i.test(req.feedback)) return infeasible("A person denied the action at the gate, so this step stops here.");
  const todo = todoOf(req);
  if (!todo?.move) return infeasible("The reference policy has no move for this todo: it solves only the virtual phone's built-in tasks.");
  const move = todo.move;
  const done = ownActions(req.history);
  const els = req.elements;

  // A popup, update prompt or suggestion sheet in the way is dismissed first.
  const popup = els.find((e) => DISMISS.includes(e.text) && !e.flags.includes("text"));
  if (popup && move.do !== "answer" && move.do !== "read") return { type: "click", element: popup.text, intent: `dismiss the "${popup.text}" prompt` };

  switch (move.do) {
    case "open":
      return done.length ? complete(`${move.app} is open.`) : { type: "open_app", app: packageOf(move.app) ?? move.app, intent: `open ${move.app}` };
    case "home":
      return done.length ? complete("On the home screen.") : { type: "navigate_home", intent: "go to the home screen" };
    case "back":
      return done.length ? complete("Went back.") : { type: "navigate_back", intent: "go back" };
    case "enter":
      return done.length ? complete("Submitted.") : { type: "keyboard_enter", intent: "submit" };
    case "hide_keyboard":
      return done.length || !(keyboardUp(req) || (afterTyping(req) && !nextTargetInSight(req))) ? complete("The keyboard is closed.") : { type: "navigate_back", intent: "close the keyboard" };
    case "type": {
      const field = findTarget(els, { id: move.field });
      const typed = done.filter((a) => a.startsWith("click_then_type ")).length;
      // A screen that reloaded after the typing (a network error page's Retry) may have lost the text: typed again, once.
      const text = fill(move.text, req.inputs);
      if (typed === 1 && field && !field.text.includes(text) && !/[•●*]/.test(field.text) && dismissedAfterTyping(req)) return { type: "click_then_type", element: String(field.index), text, intent: `type into ${move.field} again: the screen reloaded` };
      if (typed) return complete(`Typed into ${move.field}.`);
      // The keyboard of the field typed into before may cover this one (a landscape screen): back closes it, once.
      if (!field && afterTyping(req) && !done.includes("navigate_back")) return { type: "navigate_back", intent: "close the keyboard, which may cover the field" };
      if (!field) return scrollOr(req, `No field ${move.field} on this screen.`);
      return { type: "click_then_type", element: String(field.index), text, intent: `type into ${move.field}` };
    }
    case "tap":
      return tapMove(req, done, move.target, move.scroll ?? false);
    case "wheel":
      return wheelMove(req, move);
    case "read":
      return readMove(req, move.outputs);
    case "answer":
      return answerMove(req, done, move);
    case "sign_in":
      return signInMove(req, done, move);
  }
}

/**
 * A sign-in the goal gives no password for: only a person can type it, so the policy asks for a takeover at the
 * login form (its password field) and, once the person handed back, checks the screen says it is signed in.
 */
function signInMove(req: ReadRequest, done: string[], move: Extract<Move, { do: "sign_in" }>): Action {
  const signedIn = new RegExp(move.signedIn, "u");
  const passwordField = req.elements.some((e) => e.flags.includes("password"));
  if (!passwordField && screenTexts(req).some((t) => signedIn.test(t))) return complete("Signed in.");
  const asked = done.some((a) => a.startsWith("ask_takeover "));
  if (asked) return infeasible(passwordField ? "The person handed the phone back on the login form without signing in." : "The screen does not show the account signed in.");
  if (!passwordField) return infeasible("No login form with a password field is on this screen.");
  return { type: "ask_takeover", reason: "login", question: "Please type the password and tap Log in: the goal does not give the password, so only you can sign in.", intent: "ask a person to sign in" };
}

function scrollOr(req: ReadRequest, why: string, max = 6): Action {
  const scrolls = req.history.filter((l) => /^#\d+ scroll down/.test(l)).length;
  if (scrolls < max && req.elements.some((e) => e.flags.includes("scrollable"))) return { type: "scroll", direction: "down", intent: "look further down" };
  return infeasible(why);
}

function tapMove(req: ReadRequest, done: string[], target: Target, scroll: boolean): Action {
  if (done.length) return complete("Tapped.");
  const el = findTarget(req.elements, target);
  const name = "id" in target ? target.id : "text" in target ? target.text : `post ${target.post}`;
  // Not in sight: further down a list, or (a few screens at most) below the fold of a landscape screen.
  if (!el) return scrollOr(req, `"${name}" is not on this screen.`, scroll || "post" in target ? 6 : 3);
  return click(el, `tap "${name}"`);
}

function wheelMove(req: ReadRequest, move: Extract<Move, { do: "wheel" }>): Action {
  const wheel = req.elements.find((e) => e.id === move.wheel);
  if (!wheel) return infeasible(`No ${move.wheel} wheel on this screen.`);
  const value = fill(move.value, req.inputs);
  const m = /(\d{1,2}):(\d{2})/.exec(value);
  if (!m) return infeasible(`"${value}" is not a time.`);
  const target = Number(move.part === "hour" ? m[1] : m[2]);
  const modulo = move.part === "hour" ? 24 : 60;
  // The wheel's text is its three visible values; the middle one is the selected value.
  const shown = wheel.text.split(/\s+/);
  const current = Number(shown[Math.floor(shown.length / 2)] ?? NaN);
  if (Number.isNaN(current)) return infeasible(`Cannot read the ${move.wheel} wheel's value.`);
  if (current === target) return complete(`The ${move.part} is ${String(target).padStart(2, "0")}.`);
  let delta = (target - current + modulo) % modulo;
  if (delta > modulo / 2) delta -= modulo;
  // Dragging down by one row shows the previous value; a drag moves at most a few rows so it stays on screen.
  const rowH = (wheel.box[3] - wheel.box[1]) / 3;
  const rows = Math.max(-4, Math.min(4, delta));
  const { x, y } = centreOf(wheel);
  const to = Math.round(Math.max(0, Math.min(1000, y - rows * rowH)));
  return { type: "drag", from: { x, y }, to: { x, y: to }, intent: `turn the ${move.part} wheel towards ${String(target).padStart(2, "0")}` };
}

/** Texts on the screen, longest first for reading (a message body before its preview). */
const screenTexts = (req: ReadRequest) => req.elements.map((e) => e.text).filter((t) => t.trim() !== "");

function readMove(req: ReadRequest, patterns: Record<string, string>): Action {
  const outputs: Record<string, string> = {};
  for (const [key, source] of Object.entries(patterns)) {
    const re = new RegExp(source, "imu");
    if (source.startsWith("#")) {
      const el = req.elements.find((e) => e.id === source.slice(1));
      if (el?.text) outputs[key] = el.text;
      continue;
    }
    for (const t of screenTexts(req)) {
      const m = re.exec(t);
      if (m?.[1]) {
        outputs[key] = m[1].trim();
        break;
      }
    }
  }
  const missing = Object.keys(patterns).filter((k) => !(k in outputs));
  if (missing.length) return scrollOr(req, `Could not read ${missing.join(", ")} from the screen.`);
  return complete(`Read ${Object.entries(outputs).map(([k, v]) => `${k} = ${v}`).join("; ")}.`, outputs);
}

function answerMove(req: ReadRequest, done: string[], move: Extract<Move, { do: "answer" }>): Action {
  if (done.some((a) => a.startsWith("answer "))) return complete("Answered.");
  if (move.element) {
    const el = req.elements.find((e) => e.id === move.element);
    return el?.text ? { type: "answer", text: el.text, intent: "report what the screen says" } : scrollOr(req, `No ${move.element} text on this screen.`);
  }
  const re = new RegExp(move.pattern ?? "(.+)", "u");
  for (const t of screenTexts(req)) {
    const m = re.exec(t);
    if (m) return { type: "answer", text: m[0].replace(re, move.format ?? "$&"), intent: "answer the question" };
  }
  return scrollOr(req, "The answer is not on this screen.");
}
