// The grounding check's model side: do the model's taps land where it means? One instruction about a known target
// on a real screenshot, sent the way the executor asks for an action but with no UI tree — the model must find the
// target in the pixels — and its reply read back as a tap in device pixels, scored by its distance from the
// target's centre. The executor's model adapter asks and reads as in a run (graph/runner/ask-model.ts): phoneloop
// with the product's own prompt and parser and the one mapping from the 0–1000 frame to device pixels (observe.ts
// toPx); another adapter with its family's messages (and tools) and its parser, whose points are device pixels.
import { parseAction } from "../actions/parse.ts";
import { toPx } from "../graph/observe.ts";
import type { ChatMessage, EncodedImage } from "../ports.ts";
import { executorMessages } from "../prompts/executor.ts";
import { DEFAULT_ADAPTER, imageSizeFor, parseReply, type ModelAdapter } from "./adapters/index.ts";
import type { ToolDefinition } from "./adapters/port.ts";

/** A target on the screenshot: what to ask for and the element's box in device pixels. */
export interface GroundingTarget {
  instruction: string;
  box: { left: number; top: number; right: number; bottom: number };
}

export function groundingMessages(image: EncodedImage, target: GroundingTarget, app: string): ChatMessage[] {
  return executorMessages({
    goal: target.instruction,
    todo: target.instruction,
    inputs: {},
    outputs: [],
    history: "",
    app,
    screen: { width: image.width, height: image.height },
    elements: "",
    image,
  });
}

/** What the check sends: the executor's adapter's messages (and tools, for a tool-calls adapter); phoneloop's own when none. */
export function groundingAsk(image: EncodedImage, target: GroundingTarget, app: string, adapter?: ModelAdapter | null): { messages: ChatMessage[]; tools?: ToolDefinition[] } {
  if (!adapter || adapter.descriptor.id === DEFAULT_ADAPTER) return { messages: groundingMessages(image, target, app) };
  const messages = adapter.messages({ goal: target.instruction, todo: target.instruction, app, screen: { width: image.width, height: image.height }, image, elements: "", history: "" });
  return { messages, ...(adapter.tools ? { tools: adapter.tools } : {}) };
}

const TAPS = new Set(["click", "double_tap", "long_press", "click_then_type"]);

export type GroundingTap = { ok: true; x: number; y: number; action: string } | { ok: false; message: string };

/** The reply as a tap in device pixels, or why it is none (a typed reply never throws). */
export function groundingTap(reply: string, screen: { width: number; height: number }, adapter?: ModelAdapter | null): GroundingTap {
  if (adapter && adapter.descriptor.id !== DEFAULT_ADAPTER) {
    const device = { width: screen.width, height: screen.height };
    const read = parseReply(adapter, reply, { device, image: imageSizeFor(adapter.descriptor.image, device) });
    if (!read.ok) return { ok: false, message: `The reply is not an action the ${adapter.descriptor.family} adapter can read: ${read.error.message}` };
    const first = read.actions[0]!;
    if (!TAPS.has(first.action.type)) return { ok: false, message: `The model answered ${first.action.type}, not a tap: it did not point at the target.` };
    if (!first.point) return { ok: false, message: "The model named an element instead of a point, but the check shows it no element list: it must point in the image." };
    return { ok: true, x: first.point.x, y: first.point.y, action: first.action.type };
  }
  const parsed = parseAction(reply);
  if (!parsed.ok) return { ok: false, message: `The reply is not an action the runtime can read: ${parsed.error.message}` };
  const a = parsed.action;
  if (a.type !== "click" && a.type !== "double_tap" && a.type !== "long_press" && a.type !== "click_then_type") {
    return { ok: false, message: `The model answered ${a.type}, not a tap: it did not point at the target.` };
  }
  if (a.x === undefined || a.y === undefined) return { ok: false, message: "The model named an element instead of a point, but the check shows it no element list: it must point in the image." };
  const px = toPx({ x: a.x, y: a.y }, screen.width, screen.height);
  return { ok: true, x: px.x, y: px.y, action: a.type };
}

/** How far the tap fell from the target's centre, in device pixels, and whether it is inside the target. */
export function groundingScore(tap: { x: number; y: number }, box: GroundingTarget["box"]): { distancePx: number; inside: boolean } {
  const cx = (box.left + box.right) / 2;
  const cy = (box.top + box.bottom) / 2;
  return { distancePx: Math.round(Math.hypot(tap.x - cx, tap.y - cy)), inside: tap.x >= box.left && tap.x <= box.right && tap.y >= box.top && tap.y <= box.bottom };
}
