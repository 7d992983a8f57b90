// Model text → one validated Action, or a typed parse error that is fed back to the model once. Linear in the
// input and bounded in memory on any text: reasoning blocks are cut in one pass, replies past MAX_INPUT and JSON
// nested past MAX_DEPTH are refused with their own code, and nothing else can throw out of parseAction.
import { ActionSchema, ACTION_TYPES, TAKEOVER_REASONS, type Action, type ActionType, type TakeoverReason } from "./schema.ts";
import { extractBalanced, extractFenced, nestingDepth, normalisePunctuation, tryParseJson } from "./repair.ts";
import { quoteUntrusted } from "../prompts/fence.ts";

export type ParseErrorCode =
  | "EMPTY_OUTPUT"
  | "NO_ACTION_FOUND"
  | "INVALID_JSON"
  | "UNKNOWN_ACTION_TYPE"
  | "INVALID_ARGUMENTS"
  | "COORDINATE_OUT_OF_RANGE"
  | "OUTPUT_TOO_LONG"
  | "NESTING_TOO_DEEP"
  | "UNREADABLE_OUTPUT";

/** Characters left after removing reasoning blocks; an action is a few hundred. */
export const MAX_INPUT = 64_000;
/** JSON nesting an action never needs. */
export const MAX_DEPTH = 32;
/** Lines longer than this are not read as function-call syntax (an action call is short). */
const MAX_CALL_LINE = 2000;

export interface ParseError {
  code: ParseErrorCode;
  message: string;
  /** The (truncated) text that failed, for evidence. */
  raw: string;
}

export type ParseResult = { ok: true; action: Action; repairs: string[] } | { ok: false; error: ParseError };

const ALIASES: Record<string, ActionType | "__done" | "__infeasible" | "__swipe" | "__type"> = {
  tap: "click", click: "click", press: "click", touch: "click", click_element: "click", tap_element: "click", left_click: "click",
  double_click: "double_tap", doubletap: "double_tap", double_tap: "double_tap", dbl_click: "double_tap",
  long_press: "long_press", longpress: "long_press", long_click: "long_press", press_and_hold: "long_press",
  drag: "drag", drag_and_drop: "drag", left_click_drag: "drag", swipe_from_to: "drag",
  scroll: "scroll", swipe: "__swipe", fling: "__swipe",
  input_text: "input_text", type: "__type", type_text: "__type", input: "__type", enter_text: "__type", write: "__type", text: "__type",
  click_then_type: "click_then_type", tap_and_type: "click_then_type", click_and_type: "click_then_type",
  keyboard_enter: "keyboard_enter", enter: "keyboard_enter", press_enter: "keyboard_enter", submit: "keyboard_enter",
  navigate_back: "navigate_back", back: "navigate_back", press_back: "navigate_back", go_back: "navigate_back",
  navigate_home: "navigate_home", home: "navigate_home", press_home: "navigate_home", go_home: "navigate_home",
  open_app: "open_app", launch: "open_app", launch_app: "open_app", open: "open_app", start_app: "open_app",
  open_deeplink: "open_deeplink", deeplink: "open_deeplink", open_url: "open_deeplink", open_link: "open_deeplink",
  wait: "wait", sleep: "wait", pause: "wait",
  answer: "answer", reply: "answer", respond: "answer",
  ask_user: "ask_user", ask: "ask_user", call_user: "ask_user", ask_human: "ask_user",
  ask_takeover: "ask_takeover", take_over: "ask_takeover", takeover: "ask_takeover", request_takeover: "ask_takeover", hand_over: "ask_takeover",
  status: "status", done: "__done", finish: "__done", finished: "__done", complete: "__done", completed: "__done", task_complete: "__done", success: "__done", stop: "__done",
  infeasible: "__infeasible", impossible: "__infeasible", fail: "__infeasible", failed: "__infeasible", give_up: "__infeasible",
  use_skill: "use_skill", skill: "use_skill", run_skill: "use_skill",
};

const MAX_RAW = 2000;

function fail(code: ParseErrorCode, message: string, raw: string): ParseResult {
  return { ok: false, error: { code, message, raw: raw.slice(0, MAX_RAW) } };
}

/** <think>…</think> blocks removed in one pass; an unclosed block loses only its tag. */
export function stripReasoning(s: string): string {
  let out = "";
  let i = 0;
  for (;;) {
    const open = s.indexOf("<think>", i);
    if (open < 0) return out + s.slice(i);
    out += s.slice(i, open);
    const close = s.indexOf("</think>", open + 7);
    // No close after this open means none after any later open either: drop the remaining tags and stop.
    if (close < 0) return out + s.slice(open + 7).split("<think>").join("");
    i = close + 8;
  }
}

export function parseAction(text: string): ParseResult {
  try {
    return parseUnchecked(text);
  } catch (e) {
    // A last line of defence: the parser is meant to be total, and a run must never die of a reply.
    return fail("UNREADABLE_OUTPUT", `The reply could not be read (${e instanceof Error ? e.name : "error"}). Reply with exactly one short JSON object such as {"type":"click","x":500,"y":300}.`, typeof text === "string" ? text : "");
  }
}

function parseUnchecked(text: string): ParseResult {
  const repairs: string[] = [];
  if (typeof text !== "string" || !text.trim()) return fail("EMPTY_OUTPUT", "The reply was empty. Reply with one JSON action.", typeof text === "string" ? text : "");
  // Drop <think>…</think> blocks some reasoning models emit before the answer.
  let s = stripReasoning(text);
  if (s !== text) repairs.push("removed reasoning block");
  if (s.length > MAX_INPUT) return fail("OUTPUT_TOO_LONG", `The reply is ${s.length} characters long without its reasoning. Reply with exactly one short JSON object.`, text);
  const norm = normalisePunctuation(s);
  if (norm !== s) repairs.push("normalised punctuation");
  s = norm;

  const fenced = extractFenced(s);
  if (fenced !== null) {
    repairs.push("removed code fence");
    s = fenced;
  }

  const json = extractBalanced(s);
  if (json !== null && nestingDepth(json) > MAX_DEPTH)
    return fail("NESTING_TOO_DEEP", `The JSON is nested more than ${MAX_DEPTH} levels deep. Reply with one flat JSON object such as {"type":"click","x":500,"y":300}.`, text);
  let obj: unknown = undefined;
  if (json !== null) {
    const parsed = tryParseJson(json);
    // A bare array of numbers (e.g. "<point>[[1,2]]</point>") is not an action object: fall through to call syntax.
    if (parsed.ok && (isObj(parsed.value) || (Array.isArray(parsed.value) && JSON.stringify(parsed.value).includes("{")) || parseCallSyntax(s) === null)) {
      obj = parsed.value;
      if (json.trim() !== s.trim()) repairs.push("ignored surrounding prose");
    }
  }
  if (obj === undefined) {
    const call = parseCallSyntax(s);
    if (call) {
      repairs.push("read function-call syntax");
      obj = call;
    } else if (json !== null) {
      return fail("INVALID_JSON", "The JSON could not be read. Reply with exactly one JSON object such as {\"type\":\"click\",\"x\":500,\"y\":300}.", text);
    } else {
      return fail("NO_ACTION_FOUND", "No action was found. Reply with exactly one JSON object such as {\"type\":\"click\",\"x\":500,\"y\":300}.", text);
    }
  }
  return normaliseObject(obj, repairs, text);
}

/** `click(x=500, y=300)`, `tap(500, 300)`, `Action: click(start_box='(1,2)')`, `navigate_back()`, a bare `BACK`. */
function parseCallSyntax(s: string): Record<string, unknown> | null {
  for (const line of s.split(/\n/)) {
    if (line.length > MAX_CALL_LINE) continue;
    const m = /(?:^|[\s:])([A-Za-z_]+)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*$/.exec(line.trim());
    if (m && ALIASES[m[1]!.toLowerCase()] !== undefined) {
      const name = m[1]!.toLowerCase();
      const args = m[2]!.trim();
      const out: Record<string, unknown> = { type: name };
      const kv = [...args.matchAll(/([A-Za-z_]+)\s*=\s*('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\[[^\]]*\]|\([^)]*\)|[^,]+)/g)];
      if (kv.length > 0) {
        for (const [, k, v] of kv) out[k!] = unquote(v!.trim());
      } else if (args) {
        const parts = args.split(",").map((p) => unquote(p.trim()));
        const nums = parts.map(Number);
        if (parts.length >= 2 && nums.slice(0, 2).every((n) => Number.isFinite(n))) {
          out.x = nums[0];
          out.y = nums[1];
          if (parts.length > 2) out.text = parts.slice(2).join(",");
        } else if (parts.length === 1) {
          out.arg = parts[0];
        }
      }
      return out;
    }
  }
  const bare = s.trim().toLowerCase().replace(/[.!]$/, "");
  if (/^[a-z_]+$/.test(bare) && ALIASES[bare] !== undefined) return { type: bare };
  const point = /<point>\s*\[?\[?\s*(\d+(?:\.\d+)?)[\s,]+(\d+(?:\.\d+)?)\s*\]?\]?\s*<\/point>/i.exec(s);
  const verb = /\b(click|tap|long_press|double_tap)\b/i.exec(s);
  if (point && verb) return { type: verb[1]!.toLowerCase(), x: Number(point[1]), y: Number(point[2]) };
  return null;
}

function unquote(v: string): string {
  if ((v.startsWith("'") && v.endsWith("'")) || (v.startsWith('"') && v.endsWith('"'))) return v.slice(1, -1);
  return v;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function unwrap(obj: unknown, repairs: string[]): Record<string, unknown> | null {
  let v = obj;
  for (let depth = 0; depth < 4; depth++) {
    if (Array.isArray(v)) {
      const first = v.find((x) => isObj(x) || Array.isArray(x));
      if (v.length > 1) repairs.push("several actions: kept the first");
      v = first;
      continue;
    }
    if (!isObj(v)) return null;
    if (Array.isArray(v.actions)) {
      const outer = v;
      v = v.actions;
      if (Array.isArray(v) && v.length > 0 && isObj(v[0])) v = [{ thought: outer.thought, intent: outer.intent, ...v[0] }, ...v.slice(1)];
      continue;
    }
    if (isObj(v.function) && typeof v.function.name === "string") {
      repairs.push("read tool-call shape");
      v = { type: v.function.name, ...argsOf(v.function.arguments) };
      continue;
    }
    if (typeof v.name === "string" && v.arguments !== undefined && v.type === undefined) {
      repairs.push("read tool-call shape");
      v = { type: v.name, ...argsOf(v.arguments) };
      continue;
    }
    if (isObj(v.action)) {
      const inner = v.action;
      v = { thought: v.thought ?? v.reason ?? v.reasoning, intent: v.intent, ...inner };
      continue;
    }
    if (typeof v.action === "string" && v.type === undefined) {
      const { action, params, args, arguments: a, parameters, ...rest } = v;
      v = { type: action, ...rest, ...argsOf(params ?? args ?? a ?? parameters) };
      continue;
    }
    if (typeof v.action_type === "string" && v.type === undefined) {
      const { action_type, ...rest } = v;
      v = { type: action_type, ...rest };
      continue;
    }
    return v;
  }
  return isObj(v) ? v : null;
}

function argsOf(a: unknown): Record<string, unknown> {
  if (isObj(a)) return a;
  if (typeof a === "string") {
    const p = tryParseJson(a);
    if (p.ok && isObj(p.value)) return p.value;
  }
  return {};
}

function num(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v.trim()))) return Number(v.trim());
  return undefined;
}

/** [x, y], "(x, y)", "x,y", {x, y}, or a box [x1, y1, x2, y2] (its centre). */
function pointOf(v: unknown): { x: number; y: number } | undefined {
  let nums: number[] | undefined;
  if (Array.isArray(v)) nums = v.flat().map(num).filter((n): n is number => n !== undefined);
  else if (typeof v === "string") nums = [...v.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
  else if (isObj(v)) {
    const x = num(v.x);
    const y = num(v.y);
    if (x !== undefined && y !== undefined) return { x, y };
    return undefined;
  }
  if (!nums) return undefined;
  if (nums.length === 2) return { x: nums[0]!, y: nums[1]! };
  if (nums.length === 4) return { x: (nums[0]! + nums[2]!) / 2, y: (nums[1]! + nums[3]!) / 2 };
  return undefined;
}

function str(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  return undefined;
}

function firstDefined<T>(...vs: (T | undefined)[]): T | undefined {
  return vs.find((v) => v !== undefined);
}

function normaliseObject(raw: unknown, repairs: string[], text: string): ParseResult {
  const o = unwrap(raw, repairs);
  if (!o) return fail("NO_ACTION_FOUND", "No action object was found. Reply with exactly one JSON object with a \"type\" field.", text);
  const rawType = str(firstDefined(o.type, o.action_type, o.name, o.command, o.op));
  if (rawType === undefined) return fail("NO_ACTION_FOUND", `The object has no "type". Use one of: ${ACTION_TYPES.join(", ")}.`, text);
  const key = rawType.trim().toLowerCase().replace(/[\s-]+/g, "_");
  const alias = ALIASES[key];
  if (alias === undefined) return fail("UNKNOWN_ACTION_TYPE", `${quoteUntrusted(rawType, 40)} is not an action. Use one of: ${ACTION_TYPES.join(", ")}.`, text);
  if (alias !== key && !(ACTION_TYPES as readonly string[]).includes(key)) repairs.push(`action alias ${key} → ${alias}`);

  const a: Record<string, unknown> = {};
  const intent = str(o.intent);
  const thought = str(firstDefined(o.thought, o.reason, o.reasoning, o.explanation));
  if (intent !== undefined) a.intent = intent;
  if (thought !== undefined) a.thought = thought;

  // Target: a point in any of the usual spellings, or an element reference.
  let x = num(o.x);
  let y = num(o.y);
  if (x === undefined || y === undefined) {
    const p = pointOf(firstDefined(o.coordinate, o.coordinates, o.coords, o.point, o.position, o.pos, o.location, o.center, o.click_point, o.tap_point, o.target_point, o.start_box, o.box, o.bbox, o.xy));
    if (p) {
      x = p.x;
      y = p.y;
      repairs.push("read point from alternative field");
    }
  }
  const element = str(firstDefined(o.element, o.element_id, o.elementId, o.index, o.element_index, o.target, o.id));
  const text2 = str(firstDefined(o.text, o.content, o.value, o.input, o.keys, o.string, o.arg));

  if (x !== undefined && y !== undefined) {
    // Fractions 0–1 (both below 1 with a decimal part) are scaled; anything past 1000 is a pixel coordinate.
    if (x <= 1 && y <= 1 && (!Number.isInteger(x) || !Number.isInteger(y))) {
      x = Math.round(x * 1000);
      y = Math.round(y * 1000);
      repairs.push("scaled 0–1 fractions to 0–1000");
    }
    if (x < 0 || y < 0 || x > 1000 || y > 1000)
      return fail("COORDINATE_OUT_OF_RANGE", `Point (${x}, ${y}) is outside 0–1000. Coordinates are normalised: 0–1000 on each axis, not pixels.`, text);
    a.x = Math.round(x);
    a.y = Math.round(y);
  }
  if (element !== undefined && a.x === undefined) a.element = element.replace(/^[#\[]|\]$/g, "");

  let type: ActionType;
  switch (alias) {
    case "__done":
      type = "status";
      a.status = "complete";
      break;
    case "__infeasible":
      type = "status";
      a.status = "infeasible";
      break;
    case "__type":
      type = a.x !== undefined || a.element !== undefined ? "click_then_type" : "input_text";
      break;
    case "__swipe": {
      const from = pointOf(firstDefined(...dragFrom(o)));
      const to = pointOf(firstDefined(...dragTo(o)));
      if (from && to && str(o.direction) === undefined) {
        type = "drag";
        a.from = from;
        a.to = to;
        delete a.x;
        delete a.y;
      } else type = "scroll";
      break;
    }
    default:
      type = alias;
  }
  a.type = type;

  switch (type) {
    case "scroll": {
      const d = str(firstDefined(o.direction, o.dir, o.scroll_direction, o.scrollDirection, o.arg))?.toLowerCase();
      if (d !== undefined) a.direction = d;
      break;
    }
    case "drag": {
      if (a.from === undefined) {
        const from = pointOf(firstDefined(...dragFrom(o)));
        // "left_click_drag" names the end "coordinate" beside its "start_coordinate".
        const to = pointOf(firstDefined(...dragTo(o), o.start_coordinate !== undefined || o.startCoordinate !== undefined ? o.coordinate : undefined));
        if (from) a.from = from;
        if (to) a.to = to;
        delete a.x;
        delete a.y;
      }
      break;
    }
    case "input_text":
    case "click_then_type":
    case "answer":
      if (text2 !== undefined) a.text = text2;
      else if (type === "answer" && str(o.answer) !== undefined) a.text = str(o.answer);
      if (isObj(o.outputs)) a.outputs = stringRecord(o.outputs);
      break;
    case "open_app":
      a.app = str(firstDefined(o.app, o.app_name, o.appName, o.package, o.package_name, o.arg, o.text));
      break;
    case "open_deeplink":
      a.uri = str(firstDefined(o.uri, o.url, o.link, o.deeplink, o.arg, o.text));
      break;
    case "wait": {
      const ms = num(firstDefined(o.ms, o.duration_ms, o.durationMs));
      const sec = num(firstDefined(o.seconds, o.duration, o.time, o.arg));
      if (ms !== undefined) a.ms = Math.round(ms);
      else if (sec !== undefined) a.ms = Math.round(sec * 1000);
      break;
    }
    case "long_press": {
      const ms = num(firstDefined(o.durationMs, o.duration_ms, o.ms));
      if (ms !== undefined) a.durationMs = Math.round(ms);
      break;
    }
    case "ask_user":
      a.question = str(firstDefined(o.question, o.text, o.content, o.arg));
      if (Array.isArray(o.options)) a.options = o.options.map(String);
      break;
    case "ask_takeover":
      a.question = str(firstDefined(o.question, o.message, o.text, o.content, o.arg));
      a.reason = takeoverReasonOf(str(firstDefined(o.reason, o.why, o.kind)));
      break;
    case "status": {
      if (a.status === undefined) {
        const st = str(firstDefined(o.status, o.goal_status, o.value, o.result, o.arg))?.toLowerCase();
        a.status = st && /^(infeasible|impossible|fail|failed|blocked)$/.test(st) ? "infeasible" : st && /^(complete|completed|done|success|successful|finished)$/.test(st) ? "complete" : st;
      }
      const summary = str(firstDefined(o.summary, o.text, o.message, o.answer));
      if (summary !== undefined) a.summary = summary;
      if (isObj(o.outputs)) a.outputs = stringRecord(o.outputs);
      delete a.x;
      delete a.y;
      delete a.element;
      break;
    }
    case "use_skill":
      a.skill = str(firstDefined(o.skill, o.skill_name, o.arg));
      if (isObj(o.params)) a.params = stringRecord(o.params);
      break;
  }
  if (!["click", "double_tap", "long_press", "scroll", "click_then_type"].includes(type)) {
    delete a.x;
    delete a.y;
    delete a.element;
  }

  const checked = ActionSchema.safeParse(a);
  if (!checked.success) {
    const issues = checked.error.issues.map((i) => `${i.path.join(".") || type}: ${i.message}`).join("; ");
    return fail("INVALID_ARGUMENTS", `The ${type} action is incomplete: ${issues}.`, text);
  }
  return { ok: true, action: checked.data, repairs };
}

/**
 * A takeover's reason from the words a model gave it — one of the reasons, a spelling of one ("sign_in", "otp",
 * "black screen"), or a sentence that names it ("请登录账号", "Enter the SMS code"); none of them is "other".
 * The one reading of a reason, for the product's language and every adapter whose grammar has a takeover.
 */
export function takeoverReasonOf(words: string | undefined): TakeoverReason {
  const v = (words ?? "").trim().toLowerCase().replace(/[\s-]+/g, "_");
  if ((TAKEOVER_REASONS as readonly string[]).includes(v)) return v as TakeoverReason;
  if (/(captcha|robot|人机验证|滑块)/.test(v)) return "captcha";
  if (/(otp|2fa|mfa|sms|one_?time|(verification|login|sign_?in|security|access)_code|验证码|动态码)/.test(v)) return "one_time_code";
  if (/(black|blind|secure|cannot_see|can't_see|黑屏)/.test(v)) return "blind_screen";
  if (/(sign_?in|log_?in|password|credential|登录|登陆|密码)/.test(v)) return "login";
  return "other";
}

/** Where a drag or swipe starts and ends, in the spellings models use. */
const dragFrom = (o: Record<string, unknown>) => [o.from, o.start, o.start_point, o.startPoint, o.start_coordinate, o.startCoordinate, o.from_coordinate, o.from_point, o.start_box];
const dragTo = (o: Record<string, unknown>) => [o.to, o.end, o.end_point, o.endPoint, o.end_coordinate, o.endCoordinate, o.to_coordinate, o.to_point, o.end_box];

function stringRecord(o: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) out[k] = typeof v === "string" ? v : JSON.stringify(v);
  return out;
}
