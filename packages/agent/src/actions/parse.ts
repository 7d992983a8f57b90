// Model text → one validated Action, or a typed parse error that is fed back to the model once.
import { ActionSchema, ACTION_TYPES, type Action, type ActionType } from "./schema.ts";
import { extractBalanced, extractFenced, normalisePunctuation, tryParseJson } from "./repair.ts";

export type ParseErrorCode =
  | "empty_output"
  | "no_action_found"
  | "invalid_json"
  | "unknown_action_type"
  | "invalid_arguments"
  | "coordinate_out_of_range";

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
  drag: "drag", drag_and_drop: "drag",
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
  status: "status", done: "__done", finish: "__done", finished: "__done", complete: "__done", completed: "__done", task_complete: "__done", success: "__done", stop: "__done",
  infeasible: "__infeasible", impossible: "__infeasible", fail: "__infeasible", failed: "__infeasible", give_up: "__infeasible",
  use_skill: "use_skill", skill: "use_skill", run_skill: "use_skill",
};

const MAX_RAW = 2000;

function fail(code: ParseErrorCode, message: string, raw: string): ParseResult {
  return { ok: false, error: { code, message, raw: raw.slice(0, MAX_RAW) } };
}

export function parseAction(text: string): ParseResult {
  const repairs: string[] = [];
  if (!text || !text.trim()) return fail("empty_output", "The reply was empty. Reply with one JSON action.", text ?? "");
  let s = normalisePunctuation(text);
  if (s !== text) repairs.push("normalised punctuation");

  const fenced = extractFenced(s);
  if (fenced !== null) {
    repairs.push("removed code fence");
    s = fenced;
  }
  // Drop <think>…</think> blocks some reasoning models emit before the answer.
  const noThink = s.replace(/<think>[\s\S]*?<\/think>/g, "");
  if (noThink !== s) {
    repairs.push("removed reasoning block");
    s = noThink;
  }

  const json = extractBalanced(s);
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
      return fail("invalid_json", "The JSON could not be read. Reply with exactly one JSON object such as {\"type\":\"click\",\"x\":500,\"y\":300}.", text);
    } else {
      return fail("no_action_found", "No action was found. Reply with exactly one JSON object such as {\"type\":\"click\",\"x\":500,\"y\":300}.", text);
    }
  }
  return normaliseObject(obj, repairs, text);
}

/** `click(x=500, y=300)`, `tap(500, 300)`, `Action: click(start_box='(1,2)')`, `navigate_back()`, a bare `BACK`. */
function parseCallSyntax(s: string): Record<string, unknown> | null {
  for (const line of s.split(/\n/)) {
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
  if (!o) return fail("no_action_found", "No action object was found. Reply with exactly one JSON object with a \"type\" field.", text);
  const rawType = str(firstDefined(o.type, o.action_type, o.name, o.command, o.op));
  if (rawType === undefined) return fail("no_action_found", `The object has no "type". Use one of: ${ACTION_TYPES.join(", ")}.`, text);
  const key = rawType.trim().toLowerCase().replace(/[\s-]+/g, "_");
  const alias = ALIASES[key];
  if (alias === undefined) return fail("unknown_action_type", `"${rawType}" is not an action. Use one of: ${ACTION_TYPES.join(", ")}.`, text);
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
    const p = pointOf(firstDefined(o.coordinate, o.coordinates, o.point, o.position, o.pos, o.location, o.center, o.start_box, o.box, o.bbox, o.xy));
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
      return fail("coordinate_out_of_range", `Point (${x}, ${y}) is outside 0–1000. Coordinates are normalised: 0–1000 on each axis, not pixels.`, text);
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
      const from = pointOf(firstDefined(o.from, o.start, o.start_point, o.startPoint));
      const to = pointOf(firstDefined(o.to, o.end, o.end_point, o.endPoint));
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
      const d = str(firstDefined(o.direction, o.dir, o.arg))?.toLowerCase();
      if (d !== undefined) a.direction = d;
      break;
    }
    case "drag": {
      if (a.from === undefined) {
        const from = pointOf(firstDefined(o.from, o.start, o.start_point, o.startPoint, o.start_box));
        const to = pointOf(firstDefined(o.to, o.end, o.end_point, o.endPoint, o.end_box));
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
    return fail("invalid_arguments", `The ${type} action is incomplete: ${issues}.`, text);
  }
  return { ok: true, action: checked.data, repairs };
}

function stringRecord(o: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) out[k] = typeof v === "string" ? v : JSON.stringify(v);
  return out;
}
