// The model adapter port: how one model family is asked for an action and how its reply becomes one. From the step's
// screen (the image at the size the adapter's image rule gives, the device's size), UI tree, todo, history and offered
// skills to the model's messages; from its reply to Actions in device pixels, or a typed rejection — parseReply never
// throws. Each adapter declares its image rule, coordinate frame, image-token formula and system prompt
// (AdapterDescriptor); the one mapping from its frame to the device's is frame.ts toDevice.
import { MAX_INPUT, stripReasoning, type ParseError, type ParseErrorCode } from "../../actions/parse.ts";
import type { Action } from "../../actions/schema.ts";
import type { ChatMessage, EncodedImage } from "../../ports.ts";
import { fenceUntrusted, neutralise } from "../../prompts/fence.ts";
import { toBase64 } from "../../images/index.ts";
import type { ImageTokenFormula } from "../tokens.ts";
import { fromDevice, toDevice, type CoordinateFrame, type ImageRule, type Point, type Size } from "./frame.ts";

export type { Point, Size } from "./frame.ts";

/** What an adapter is, for the runtime, the benchmark and a Models page picking one. */
export interface AdapterDescriptor {
  /** The adapter's id (a model setting's `adapter`). */
  id: "phoneloop" | "ui-tars" | "qwen-vl" | "autoglm-phone" | "gui-owl" | "tool-calls";
  /** The model family it speaks to, e.g. "UI-TARS". */
  family: string;
  /** The published version it follows, e.g. "1.5"; one id may have several. */
  version: string;
  /** Where its grammar and frame are documented (project, and the release or commit read). */
  source: string;
  image: ImageRule;
  frame: CoordinateFrame;
  tokenFormula: ImageTokenFormula;
  /** How the model is asked to answer: text in its own grammar, or OpenAI-style tool calls. */
  replyStyle: "text" | "tool-calls";
}

/** One step's inputs, in the product's words. */
export interface AdapterInput {
  goal: string;
  todo: string;
  app: string;
  /** The device's screen, px. */
  screen: Size;
  /** The screenshot already at imageSizeFor(descriptor.image, screen). */
  image: EncodedImage;
  /** The UI tree as the executor lists it (prompts/screen.ts), "" when there is none. */
  elements: string;
  /** Earlier steps (memory/history.ts). */
  history: string;
  inputs?: Record<string, string>;
  outputs?: string[];
  /** Offered skills (graph/learning.ts describeSkills), deeplink shortcuts. */
  skills?: string;
  shortcuts?: string;
  reminder?: string;
  /** Why the last reply could not be used, in the rejection's words. */
  feedback?: string;
}

/** The sizes a reply's coordinates are read against. */
export interface ReplyScreen {
  device: Size;
  /** The image as the model saw it. */
  image: Size;
}

/** An Action (its points in the product's 0–1000 frame, unrounded) with the device pixels it lands on. */
export interface DeviceAction {
  action: Action;
  point?: Point;
  from?: Point;
  to?: Point;
}

/** Several actions in one reply are all read, in order; the runtime performs the first and asks again. */
export type AdapterReply = { ok: true; actions: DeviceAction[]; thought?: string; repairs: string[] } | { ok: false; error: ParseError };

/** OpenAI-style function definitions offered with the request (tool-calls adapters). */
export interface ToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ModelAdapter {
  descriptor: AdapterDescriptor;
  systemPrompt: string;
  messages(input: AdapterInput): ChatMessage[];
  /** Structured output the endpoint may honour (the product's own language only). */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  tools?: ToolDefinition[];
  /** Reads a reply; may throw on input it does not expect — parseReply turns that into a typed rejection. */
  read(reply: string, screen: ReplyScreen): AdapterReply;
}

const MAX_RAW = 2000;

export function reject(code: ParseErrorCode, message: string, raw: string): AdapterReply {
  return { ok: false, error: { code, message, raw: raw.slice(0, MAX_RAW) } };
}

/** The reply read by the adapter, never a throw: empty, oversized and unreadable replies are typed rejections. */
export function parseReply(adapter: ModelAdapter, reply: unknown, screen: ReplyScreen): AdapterReply {
  if (typeof reply !== "string" || !reply.trim()) return reject("EMPTY_OUTPUT", "The reply was empty. Reply with one action.", typeof reply === "string" ? reply : "");
  const text = stripReasoning(reply);
  if (text.length > MAX_INPUT) return reject("OUTPUT_TOO_LONG", `The reply is ${text.length} characters long without its reasoning. Reply with one short action.`, reply);
  try {
    const r = adapter.read(reply, screen);
    if (r.ok && r.actions.length === 0) return reject("NO_ACTION_FOUND", "No action was found in the reply.", reply);
    return r;
  } catch (e) {
    return reject("UNREADABLE_OUTPUT", `The reply could not be read (${e instanceof Error ? e.name : "error"}).`, reply);
  }
}

/** A point in the adapter's frame as device pixels plus the product-frame coordinates an Action carries. */
export type Mapped = { ok: true; device: Point; norm: Point } | { ok: false; error: ParseError };

export function mapPoint(p: Point, frame: CoordinateFrame, screen: ReplyScreen, raw: string): Mapped {
  const m = toDevice(p, frame, screen.image, screen.device);
  if (!m.ok) return { ok: false, error: { code: "COORDINATE_OUT_OF_RANGE", message: `${m.message} Point inside the screenshot.`, raw: raw.slice(0, MAX_RAW) } };
  return { ok: true, device: m.point, norm: fromDevice(m.point, { kind: "normalised", max: 1000 }, screen.image, screen.device) };
}

/** A box's centre (x1, y1, x2, y2 in any order of corners). */
export function boxCentre(b: [number, number, number, number]): Point {
  return { x: (b[0] + b[2]) / 2, y: (b[1] + b[3]) / 2 };
}

/** Numbers in a coordinate text: "(1,2)", "<point>1 2</point>", "[1, 2, 3, 4]", "<|box_start|>(1,2),(3,4)<|box_end|>". */
export function coordinateNumbers(s: string): number[] {
  return [...s.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
}

/** A point or a box (→ its centre) from 2 or 4 numbers; null otherwise. */
export function pointOf(nums: number[]): Point | null {
  if (nums.length === 2) return { x: nums[0]!, y: nums[1]! };
  if (nums.length === 4) return boxCentre(nums as [number, number, number, number]);
  return null;
}

/**
 * The user turn shared by the adapters that speak their own grammar: the todo, history, skills and, where the model
 * takes it, the UI tree — fenced as data the way the product's own prompt fences them (prompts/fence.ts).
 */
export function taskLines(input: AdapterInput, opts: { elements: boolean }): string[] {
  const lines = [`Task: ${neutralise(input.goal)}`, `Current step: ${neutralise(input.todo)}`];
  if (input.inputs && Object.keys(input.inputs).length) lines.push(`Known values:\n${fenceUntrusted("blackboard", Object.entries(input.inputs).map(([k, v]) => `${k} = ${v}`).join("\n"))}`);
  if (input.outputs?.length) lines.push(`When finished, report: ${input.outputs.join(", ")}.`);
  if (input.history) lines.push(`Earlier steps:\n${fenceUntrusted("history", input.history)}`);
  if (input.skills) lines.push(`Paths that worked before on this app:\n${fenceUntrusted("skills", input.skills)}`);
  if (input.reminder) lines.push(`Reminder: ${neutralise(input.reminder)}`);
  if (input.feedback) lines.push(`Your last reply could not be used: ${neutralise(input.feedback)}`);
  if (opts.elements && input.elements) lines.push(`Visible elements:\n${fenceUntrusted("screen", input.elements)}`);
  return lines;
}

/** The system prompt, then one user turn of text and the screenshot. */
export function oneTurn(system: string, text: string, image: EncodedImage): ChatMessage[] {
  return [
    { role: "system", content: system },
    { role: "user", content: [{ type: "text", text }, { type: "image", mime: image.mime, base64: toBase64(image.bytes), width: image.width, height: image.height }] },
  ];
}
