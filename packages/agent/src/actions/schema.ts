// The action space (docs/concepts.md, "Host, executor, blackboard"). Coordinates are normalised to 0–1000 on both axes.
import { z } from "zod";
import { TAKEOVER_REASONS, type TakeoverReason } from "@phoneloop/state/domain";
import { quoteUntrusted } from "../prompts/fence.ts";

export const ACTION_TYPES = [
  "click",
  "double_tap",
  "long_press",
  "drag",
  "scroll",
  "input_text",
  "click_then_type",
  "keyboard_enter",
  "navigate_back",
  "navigate_home",
  "open_app",
  "open_deeplink",
  "wait",
  "answer",
  "ask_user",
  "ask_takeover",
  "status",
  "use_skill",
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/**
 * Why the agent asks a person to take over the phone (ask_takeover): a sign-in whose password it was not given, a
 * captcha, a one-time code sent to the person, a blind screen (the screenshot is black or the window is secure), or
 * another thing only a person can do — the core's one list, stored with the takeover gate.
 */
export { TAKEOVER_REASONS, type TakeoverReason };

const coord = z.number().finite().min(0).max(1000);
export const PointSchema = z.object({ x: coord, y: coord });
export type NormPoint = z.infer<typeof PointSchema>;

/** A model may name a UI-tree element (its listed index, resource id or text) instead of a point. */
const target = {
  x: coord.optional(),
  y: coord.optional(),
  element: z.string().min(1).optional(),
};
const common = {
  /** The model's declared intent, read by the permission checkpoint. */
  intent: z.string().optional(),
  thought: z.string().optional(),
};

function hasTarget(a: { x?: number; y?: number; element?: string }): boolean {
  return (a.x !== undefined && a.y !== undefined) || a.element !== undefined;
}
const targetMsg = { message: "needs a point (x, y in 0–1000) or an element from the list" };

export const ActionSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("click"), ...target, ...common }).refine(hasTarget, targetMsg),
  z.object({ type: z.literal("double_tap"), ...target, ...common }).refine(hasTarget, targetMsg),
  z.object({ type: z.literal("long_press"), ...target, durationMs: z.number().int().min(100).max(10_000).optional(), ...common }).refine(hasTarget, targetMsg),
  z.object({ type: z.literal("drag"), from: PointSchema, to: PointSchema, ...common }),
  z.object({ type: z.literal("scroll"), direction: z.enum(["up", "down", "left", "right"]), ...target, ...common }),
  z.object({ type: z.literal("input_text"), text: z.string(), ...common }),
  z.object({ type: z.literal("click_then_type"), ...target, text: z.string(), ...common }).refine(hasTarget, targetMsg),
  z.object({ type: z.literal("keyboard_enter"), ...common }),
  z.object({ type: z.literal("navigate_back"), ...common }),
  z.object({ type: z.literal("navigate_home"), ...common }),
  z.object({ type: z.literal("open_app"), app: z.string().min(1), ...common }),
  z.object({ type: z.literal("open_deeplink"), uri: z.string().min(1), ...common }),
  z.object({ type: z.literal("wait"), ms: z.number().int().min(0).max(30_000).optional(), ...common }),
  z.object({ type: z.literal("answer"), text: z.string(), outputs: z.record(z.string(), z.string()).optional(), ...common }),
  z.object({ type: z.literal("ask_user"), question: z.string().min(1), options: z.array(z.string()).optional(), ...common }),
  z.object({ type: z.literal("ask_takeover"), reason: z.enum(TAKEOVER_REASONS), question: z.string().min(1), ...common }),
  z.object({ type: z.literal("status"), status: z.enum(["complete", "infeasible"]), summary: z.string().optional(), outputs: z.record(z.string(), z.string()).optional(), ...common }),
  z.object({ type: z.literal("use_skill"), skill: z.string().min(1), params: z.record(z.string(), z.string()).optional(), ...common }),
]);
export type Action = z.infer<typeof ActionSchema>;

/** JSON schema sent as structured output where the endpoint supports it (a flat object: easy for every provider). */
export const ACTION_JSON_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: {
    thought: { type: "string", description: "One short sentence: what you see and why this action." },
    intent: { type: "string", description: "What this action will do in the app, e.g. 'open search', 'send message'." },
    type: { type: "string", enum: [...ACTION_TYPES] },
    x: { type: "number", minimum: 0, maximum: 1000 },
    y: { type: "number", minimum: 0, maximum: 1000 },
    element: { type: "string", description: "Index from the element list, e.g. \"7\", instead of x/y." },
    from: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] },
    to: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] },
    direction: { type: "string", enum: ["up", "down", "left", "right"] },
    text: { type: "string" },
    app: { type: "string" },
    uri: { type: "string" },
    ms: { type: "integer" },
    durationMs: { type: "integer" },
    question: { type: "string" },
    options: { type: "array", items: { type: "string" } },
    reason: { type: "string", enum: [...TAKEOVER_REASONS], description: "ask_takeover: why only a person can do this step." },
    status: { type: "string", enum: ["complete", "infeasible"] },
    summary: { type: "string" },
    outputs: { type: "object", additionalProperties: { type: "string" } },
    skill: { type: "string" },
    params: { type: "object", additionalProperties: { type: "string" } },
  },
  required: ["type"],
  additionalProperties: false,
};

/** Model-written text in a description: quoted, neutralised, one line, bounded. */
const said = (s: string, max = 200) => quoteUntrusted(s, max);

/** A short, stable description of an action for history, evidence and the board. */
export function describeAction(a: Action): string {
  const at = (t: { x?: number; y?: number; element?: string }) =>
    t.element !== undefined ? `element ${said(t.element, 60)}` : `(${t.x}, ${t.y})`;
  switch (a.type) {
    case "click":
    case "double_tap":
    case "long_press":
      return `${a.type} ${at(a)}`;
    case "drag":
      return `drag (${a.from.x}, ${a.from.y}) → (${a.to.x}, ${a.to.y})`;
    case "scroll":
      return `scroll ${a.direction}`;
    case "input_text":
      return `input_text ${said(a.text)}`;
    case "click_then_type":
      return `click_then_type ${at(a)} ${said(a.text)}`;
    case "open_app":
      return `open_app ${said(a.app, 80)}`;
    case "open_deeplink":
      return `open_deeplink ${said(a.uri)}`;
    case "wait":
      return `wait ${a.ms ?? 1000}ms`;
    case "answer":
      return `answer ${said(a.text)}`;
    case "ask_user":
      return `ask_user ${said(a.question)}`;
    case "ask_takeover":
      return `ask_takeover ${a.reason} ${said(a.question)}`;
    case "status":
      return `status ${a.status}`;
    case "use_skill":
      return `use_skill ${said(a.skill, 80)}${a.params && Object.keys(a.params).length ? ` with ${Object.entries(a.params).map(([k, v]) => `${k}=${said(v, 40)}`).join(", ")}` : ""}`;
    default:
      return a.type;
  }
}
